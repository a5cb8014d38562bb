// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: duplicate-attribute.ph:11:1: error: duplicate attribute '@launch'
// CHECK-NEXT: @launch(256)
// CHECK-NEXT: {{^ *}}^~~~~~~{{$}}
// CHECK-NEXT: duplicate-attribute.ph:10:1: note: first given here
// CHECK-NEXT: @launch(128)
// CHECK-NEXT: {{^ *}}^~~~~~~{{$}}
// CHECK-NOT: error:
@launch(128)
@launch(256)
kernel k() {
}
