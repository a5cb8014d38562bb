// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-rank.ph:8:12: error: 'A' has 2 dimensions but the slice has 1 subscript
// CHECK-NEXT: let a = A[0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[0 :+ 32]
}
