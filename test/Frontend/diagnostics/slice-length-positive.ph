// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-length-positive.ph:8:21: error: slice length must be positive, got -4
// CHECK-NEXT: let a = A[n + 4 : n, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[n + 4 : n, 0 :+ 32]
}
