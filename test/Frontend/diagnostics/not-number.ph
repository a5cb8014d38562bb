// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: not-number.ph:8:11: error: '!' needs a bool operand, got i32
// CHECK-NEXT: let a = !n
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = !n
}
