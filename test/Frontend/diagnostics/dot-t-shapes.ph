// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: dot-t-shapes.ph:10:11: error: dot_t shapes do not agree: [32, 8] x [16, 4] (dot_t(a, b) needs a: [M, K] and b: [N, K])
// CHECK-NEXT: let c = dot_t(a, b)
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[0 :+ 32, 0 :+ 8]
  let b = B[0 :+ 16, 0 :+ 4]
  let c = dot_t(a, b)
}
