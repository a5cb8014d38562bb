// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-length-not-constant.ph:8:18: error: slice length must be a compile-time constant
// CHECK-NEXT: let a = A[0 :+ n, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[0 :+ n, 0 :+ 32]
}
