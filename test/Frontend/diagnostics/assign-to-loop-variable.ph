// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-to-loop-variable.ph:12:5: error: cannot assign to 'i': it is a loop variable
// CHECK-NEXT: i = 0
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: assign-to-loop-variable.ph:11:7: note: declared here
// CHECK-NEXT: for i in range(0, n) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  for i in range(0, n) {
    i = 0
  }
}
