// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-range-not-constant.ph:8:17: error: slice length must be a compile-time constant (the end minus the start of 'a : b' must fold to a number)
// CHECK-NEXT: let a = A[n : 2 * n, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[n : 2 * n, 0 :+ 32]
}
