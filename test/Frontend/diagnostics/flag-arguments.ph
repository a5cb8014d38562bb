// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: flag-arguments.ph:7:11: error: @pipeline takes no arguments
// CHECK-NEXT: @pipeline(2)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@pipeline(2)
kernel k() {
}
