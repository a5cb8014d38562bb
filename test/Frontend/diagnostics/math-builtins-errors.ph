// Bad calls of the math builtins of issue 29: each a located error, and no other.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: math-builtins-errors.ph:34:15: error: 'erf' needs a float operand, got tile<i32>[16, 64]
// CHECK-NEXT: let a = erf(i)
// CHECK: math-builtins-errors.ph:35:11: error: 'pow' needs float operands, got tile<i32>[16, 64], int literal (convert with f32(...) or write a float)
// CHECK-NEXT: let b = pow(i, 2)
// CHECK: math-builtins-errors.ph:36:11: error: 'fma' expects 3 arguments, got 2
// CHECK-NEXT: let c = fma(t, t)
// CHECK: math-builtins-errors.ph:37:11: error: operands of 'clamp' have different types: tile<f32>[16, 64] and bool (convert the bool with f32(...))
// CHECK-NEXT: let d = clamp(t, true, 1.0)
// CHECK: math-builtins-errors.ph:38:17: error: 'isnan' needs a float operand, got tile<i32>[16, 64]
// CHECK-NEXT: let e = isnan(i)
// CHECK: math-builtins-errors.ph:39:21: error: axis 2 is out of range for tile<f32>[16, 64]
// CHECK-NEXT: let f = argmax(t, 2)
// CHECK: math-builtins-errors.ph:40:21: error: 'rowargmax' expects a tile, got f32
// CHECK-NEXT: let g = rowargmax(x)
// CHECK: math-builtins-errors.ph:41:16: error: the extent of 'iota' must be a positive integer constant, got a value of type i32 known only at run time
// CHECK-NEXT: let h = iota(n)
// CHECK: math-builtins-errors.ph:42:20: error: 'popcount' needs an integer operand, got tile<f32>[16, 64]
// CHECK-NEXT: let p = popcount(t)
// CHECK: math-builtins-errors.ph:43:20: error: 'popcount' needs an integer of a stated width, got int literal: write popcount(i32(...)) or popcount(i64(...))
// CHECK-NEXT: let q = popcount(7)
// CHECK: math-builtins-errors.ph:44:21: error: the axis of 'argmin' must be an integer constant
// CHECK-NEXT: let r = argmin(t, n)
// CHECK: math-builtins-errors.ph:45:19: error: 'sigmoid' needs a float operand, got bool
// CHECK-NEXT: let s = sigmoid(true)
// CHECK: math-builtins-errors.ph:46:11: error: the operands of 'pow' do not broadcast: tile<f32>[16, 64], tile<f32>[8, 64]
// CHECK-NEXT: let u = pow(t, A[0 :+ 8, 0 :+ 64])
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, 64], I: tensor<i32>[M, 64], n: i32, x: f32) {
  let t = A[0 :+ 16, 0 :+ 64]
  let i = I[0 :+ 16, 0 :+ 64]
  let a = erf(i)
  let b = pow(i, 2)
  let c = fma(t, t)
  let d = clamp(t, true, 1.0)
  let e = isnan(i)
  let f = argmax(t, 2)
  let g = rowargmax(x)
  let h = iota(n)
  let p = popcount(t)
  let q = popcount(7)
  let r = argmin(t, n)
  let s = sigmoid(true)
  let u = pow(t, A[0 :+ 8, 0 :+ 64])
}
