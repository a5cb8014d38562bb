// `range(n)`, as Python users write it, is range(0, n).
// RUN: phobos compile %s | FileCheck %s
// RUN: phobos run %s --interpret --args 'f32[128] f32[128]' | FileCheck %s --check-prefix=INTERP

// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: scf.for %{{.*}} = %c0{{(_[0-9]+)?}} to %[[FOUR]] step
// INTERP: ran loop in the interpreter
// INTERP-NEXT: X: float32[128]
// INTERP-NEXT: Y: float32[128] min 3.{{[0-9]+}} max 4.{{[0-9]+}} mean 4.
kernel loop(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  var acc = X[0 :+ 128]
  for k in range(4) {
    acc = acc + 1.0
  }
  Y[0 :+ 128] = acc
}
