// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: for-needs-range.ph:8:12: error: expected 'range([start, ]stop[, step])' after 'in', got '10'
// CHECK-NEXT: for i in 10 {
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  for i in 10 {
  }
}
