// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tile-dimension-positive.ph:8:22: error: tile dimensions must be positive, got 0
// CHECK-NEXT: var acc: tile<f32>[0, 32] = 0.0
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  var acc: tile<f32>[0, 32] = 0.0
}
