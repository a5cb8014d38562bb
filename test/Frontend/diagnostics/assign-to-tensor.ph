// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-to-tensor.ph:11:3: error: cannot assign to 'A': it is a tensor; store to a slice such as 'A[i :+ 32]'
// CHECK-NEXT: A = 1.0
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: assign-to-tensor.ph:10:10: note: declared here
// CHECK-NEXT: kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  A = 1.0
}
