// range(n) is range(0, n); two bounds need a comma between them.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: range-needs-two-bounds.ph:9:20: error: expected ',' after the start of the range (range takes [start,] stop and an optional step), got '10'
// CHECK-NEXT: for i in range(0 10) {
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  for i in range(0 10) {
  }
}
