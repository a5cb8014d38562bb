// Constructs the GPU lowering does not handle yet are located errors in the
// language's words, and the kernel still runs in the interpreter.
// RUN: not phobos compile %s --emit=gpu 2>&1 | FileCheck %s --implicit-check-not=Traceback
// RUN: phobos run %s --interpret --args 'f32[16]' | FileCheck %s --check-prefix=INTERP

// CHECK: unsupported-on-gpu.ph:[[@LINE+5]]:3: error: {{.*}}while loops cannot run on the GPU yet (`phobos run --interpret` runs the kernel on the CPU)
// INTERP: ran w in the interpreter
// INTERP-NEXT: X: float32[16]
kernel w(X: tensor<f32>[N]) {
  var i = 0
  while i < 3 {
    i = i + 1
  }
  X[0 :+ 16] = X[0 :+ 16] * 2.0
}
