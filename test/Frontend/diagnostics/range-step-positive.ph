// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: range-step-positive.ph:8:24: error: range step must be positive, got -1
// CHECK-NEXT: for i in range(0, n, -1) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  for i in range(0, n, -1) {
  }
}
