// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: dot-shapes.ph:10:11: error: dot shapes do not agree: [32, 8] x [4, 128]
// CHECK-NEXT: let c = dot(a, b)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[0 :+ 32, 0 :+ 8]
  let b = B[0 :+ 4, 0 :+ 128]
  let c = dot(a, b)
}
