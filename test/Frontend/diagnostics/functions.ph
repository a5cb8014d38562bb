// Errors about functions: inside a body (at its line, with a note at each call that led there,
// innermost first), recursion (at the call), argument shapes and counts (with a note at the
// parameter), a missing final return, an element type that cannot be inferred; and an error
// inside the standard library points into std/nn.ph with a note at the user's call.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// RUN: not phobos check --no-std %s 2>&1 | FileCheck %s --check-prefix=NOSTD

// CHECK: functions.ph:[[@LINE+30]]:7: error: function 'noret' must end with 'return <value>'
// CHECK: functions.ph:[[@LINE+32]]:15: error: element type 'U' is not the element type of any parameter (it cannot be inferred)
// CHECK: functions.ph:[[@LINE+15]]:13: error: '&&' needs bool operands, got tile<f32>[16, 32] and tile<f32>[16, 32]
// CHECK: functions.ph:[[@LINE+19]]:10: note: in the call of 'inner' here
// CHECK: functions.ph:[[@LINE+39]]:25: note: in the call of 'outer' here
// CHECK: functions.ph:[[@LINE+21]]:10: error: 'rec' calls itself: functions are inlined at every call, so recursion is not allowed
// CHECK: functions.ph:[[@LINE+39]]:30: error: 'T' of 'gelu' stands for a number type, but the argument is tile<bool>[16, 32] (bool is not a number type)
// CHECK: std/nn.ph:{{[0-9]+}}:12: note: parameter 'x' of 'gelu' is declared here
// CHECK-NEXT: fn gelu<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
// CHECK: functions.ph:[[@LINE+37]]:31: error: argument 'x' of 'outer' must be a tile of rank 2, got tile<f32>[16]
// CHECK: functions.ph:[[@LINE+11]]:10: note: parameter 'x' of 'outer' is declared here
// CHECK: functions.ph:[[@LINE+36]]:25: error: 'outer' takes 1 argument, got 2
// CHECK: functions.ph:[[@LINE+36]]:51: error: argument 'y' of 'pair' is tile<f32>[16, 32], but 'C' is 16 from an earlier argument

// NOSTD: functions.ph:[[@LINE+31]]:25: error: unknown identifier 'gelu'

fn inner(x: tile<f32>[R, C]) -> tile<f32>[R, C] {
  let b = x && x
  return x
}

fn outer(x: tile<f32>[R, C]) -> tile<f32>[R, C] {
  return inner(x) * 2.0
}

fn rec(x: tile<f32>[R, C]) -> tile<f32>[R, C] {
  return rec(x)
}

fn noret(x: f32) -> f32 {
  let y = x
}

fn uninferred<U>(x: f32) -> f32 {
  return x
}

fn pair(x: tile<f32>[C, C], y: tile<f32>[C, C]) -> tile<f32>[C, C] {
  return x + y
}

kernel k(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let x = X[0 :+ 16, 0 :+ 32]
  Y[0 :+ 16, 0 :+ 32] = outer(x)
  Y[0 :+ 16, 0 :+ 32] = rec(x)
  Y[0 :+ 16, 0 :+ 32] = gelu(X[0 :+ 16, 0 :+ 32] > 0.0)
  Y[0 :+ 16, 0 :+ 32] = outer(X[0 :+ 16, 0])
  Y[0 :+ 16, 0 :+ 32] = outer(x, x)
  Y[0 :+ 16, 0 :+ 16] = pair(X[0 :+ 16, 0 :+ 16], x)
}
