// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: while-condition-tile.ph:8:9: error: the condition of 'while' must be a bool scalar, got tile<bool>[4, 4]; a tile is no condition: reduce it to one bool first (any: max(i32(t)) == 1, all: min(i32(t)) == 1)
// CHECK-NEXT: while A[0 :+ 4, 0 :+ 4] > 0.0 {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  while A[0 :+ 4, 0 :+ 4] > 0.0 {
  }
}
