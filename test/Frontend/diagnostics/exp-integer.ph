// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: exp-integer.ph:8:15: error: 'exp' needs a float operand, got i32
// CHECK-NEXT: let a = exp(n)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = exp(n)
}
