// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: range-bound-type.ph:8:21: error: range bounds must be integer scalars, got f32
// CHECK-NEXT: for i in range(0, x) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  for i in range(0, x) {
  }
}
