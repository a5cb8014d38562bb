// The errors of padded(X[...], value): the first argument must be a slice of
// a tensor parameter, the value a scalar compile-time constant that the
// tensor's element type can hold (bool only for bool tensors).
// RUN: not phobos check %s 2>&1 | FileCheck %s --strict-whitespace

kernel k(X: tensor<f32>[M, N], I: tensor<i8>[M], B: tensor<bool>[M], v: f32) {
  let x = X[0 :+ 4, 0 :+ 8]
  let a = padded(x, -inf)
  let b = padded(X[0 :+ 4, 0 :+ 8], v * 2.0)
  let c = padded(X[0 :+ 4, 0 :+ 8], x)
  let d = padded(I[0 :+ 16], -inf)
  let e = padded(I[0 :+ 16], 300)
  let f = padded(B[0 :+ 16], 1)
  let g = padded(X[0 :+ 4, 0 :+ 8], true)
  let h = padded(X[0 :+ 4, 0 :+ 8])
  let i = padded(X[0 :+ 4, 0 :+ 8], 1e39)
}

// CHECK:      padded-errors.ph:8:18: error: the first argument of 'padded' must be a slice of a tensor parameter (or a masked one), such as 'X[r :+ 32]', got tile<f32>[4, 8]
// CHECK-NEXT: {{^}}  let a = padded(x, -inf)
// CHECK-NEXT: {{^}}                 ^{{$}}
// CHECK-NEXT: padded-errors.ph:9:37: error: the fill value of 'padded' must be a compile-time constant (such as 0.0, -inf or an @autotune constant), got a value of type f32 known only at run time
// CHECK-NEXT: {{^}}  let b = padded(X[0 :+ 4, 0 :+ 8], v * 2.0)
// CHECK-NEXT: {{^}}                                    ^{{$}}
// CHECK-NEXT: padded-errors.ph:10:37: error: the fill value of 'padded' must be a scalar, got tile<f32>[4, 8]
// CHECK:      padded-errors.ph:11:30: error: cannot use the float constant -inf as i8
// CHECK:      padded-errors.ph:12:30: error: integer constant 300 does not fit in i8
// CHECK-NEXT: {{^}}  let e = padded(I[0 :+ 16], 300)
// CHECK-NEXT: {{^}}                             ^~~{{$}}
// CHECK-NEXT: padded-errors.ph:13:30: error: cannot fill a slice of 'B', a tensor of bool, with the int literal 1
// CHECK:      padded-errors.ph:14:37: error: cannot fill a slice of 'X', a tensor of f32, with the bool true
// CHECK:      padded-errors.ph:15:11: error: 'padded' expects 2 arguments, got 1
// CHECK:      padded-errors.ph:16:37: error: the constant 1e+39 is out of range for f32 (it would be infinite)
// CHECK:      9 errors generated.
