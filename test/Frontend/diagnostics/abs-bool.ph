// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: abs-bool.ph:8:15: error: 'abs' needs a numeric operand, got bool
// CHECK-NEXT: let a = abs(true)
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = abs(true)
}
