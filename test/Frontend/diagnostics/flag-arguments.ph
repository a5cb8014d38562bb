// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: flag-arguments.ph:7:13: error: @tensorcore takes no arguments
// CHECK-NEXT: @tensorcore(2)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@tensorcore(2)
kernel k() {
}
