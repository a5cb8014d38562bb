// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: do-not-broadcast.ph:8:31: error: shapes [32, 32] and [16, 32] do not broadcast in '+'
// CHECK-NEXT: let a = A[0 :+ 32, 0 :+ 32] + A[0 :+ 16, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[0 :+ 32, 0 :+ 32] + A[0 :+ 16, 0 :+ 32]
}
