// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: bit-operators.ph:10:13: error: '&' needs integer operands, got tile<f32>[64] and int literal
// CHECK: bit-operators.ph:11:11: error: '~' needs an integer operand, got f32
// CHECK: bit-operators.ph:12:13: error: '|' needs integer operands, got bool and bool (for bool use '&&' or '||')
// CHECK: bit-operators.ph:13:13: error: '<<' needs integer operands, got tile<f32>[64] and int literal
// CHECK-NOT: error:
kernel k(A: tensor<f32>[N], x: f32, b: bool) {
  let t = A[0 :+ 64]
  let a = t & 1
  let c = ~x
  let d = b | b
  let e = t << 2
}
