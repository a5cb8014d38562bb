// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: if-condition-not-bool.ph:8:6: error: the condition of 'if' must be a bool scalar, got i32
// CHECK-NEXT: if n {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  if n {
  }
}
