// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tile-too-large.ph:8:12: error: a tile of [8192, 8192] has 67108864 elements, more than the limit of 16777216
// CHECK-NEXT: var acc: tile<f32>[8192, 8192] = 0.0
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  var acc: tile<f32>[8192, 8192] = 0.0
}
