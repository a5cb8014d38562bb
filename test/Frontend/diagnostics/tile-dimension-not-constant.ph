// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tile-dimension-not-constant.ph:8:22: error: tile dimension 'M' is not a compile-time constant
// CHECK-NEXT: var acc: tile<f32>[M, 32] = 0.0
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  var acc: tile<f32>[M, 32] = 0.0
}
