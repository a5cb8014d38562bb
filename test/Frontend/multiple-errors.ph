// One run reports every error it can: the parser resynchronises at the end of
// a broken statement (skipping any block it opened) and at the next kernel;
// an unclosed '(' ends at the next statement keyword.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// RUN: not phobos check %S/Inputs/type-errors.ph 2>&1 | FileCheck %s --check-prefix=TYPES

kernel first(X: tensor<f32>[M]) {
  let a = (1 +
  let b = 2
  if b > { let c = 1 }
  X[0 :+ 4] = 1.0
  let d = ]
}

kernel second(Y: tensor<f32>[M] {
}

kernel third(Z: tensor<f32>[M]) {
  let e = 1 let f = 2
}

// CHECK: multiple-errors.ph:8:15: error: expected an expression, got end of line
// CHECK: multiple-errors.ph:10:10: error: expected an expression, got '{'
// CHECK: multiple-errors.ph:12:11: error: expected an expression, got ']'
// CHECK: multiple-errors.ph:15:33: error: expected ')' after the parameters, got '{'
// CHECK: multiple-errors.ph:19:13: error: expected the end of the statement (a new line or ';'), got 'let'
// CHECK: 5 errors generated.

// Type errors: each wrong expression is reported once; what depends on it
// stays quiet (no cascade from `bad` to its uses).
// TYPES: type-errors.ph:4:13: error: unknown identifier 'nope'
// TYPES-NOT: error:
// TYPES: type-errors.ph:6:17: error: operands of '+' have different types: i32 and bool (convert the bool with i32(...))
// TYPES-NOT: error:
// TYPES: type-errors.ph:8:11: error: dot shapes do not agree: [4, 8] x [4, 8]
// TYPES-NOT: error:
// TYPES: type-errors.ph:9:23: error: cannot store f32 values into 'I', a tensor of bool
// TYPES: 4 errors generated.
