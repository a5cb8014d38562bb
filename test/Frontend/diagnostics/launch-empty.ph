// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-empty.ph:7:1: error: @launch needs the number of threads per CTA, as in @launch(256)
// CHECK-NEXT: @launch
// CHECK-NEXT: {{^ *}}^~~~~~~{{$}}
// CHECK-NOT: error:
@launch
kernel k() {
}
