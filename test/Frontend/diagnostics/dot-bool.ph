// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: dot-bool.ph:9:15: error: 'dot' expects a numeric tile, got tile<bool>[16, 16]
// CHECK-NEXT: let c = dot(t, t)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let t = A[0 :+ 16, 0 :+ 16] > 0.0
  let c = dot(t, t)
}
