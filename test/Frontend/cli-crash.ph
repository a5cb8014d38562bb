// The `phobos` driver and the compile API run MLIR in a child process: an abort
// or a signal in MLIR's native code is one line naming the file, exit status 1,
// never a traceback or a raw LLVM dump (PHOBOS_TEST_CRASH crashes the child on
// purpose; `unreachable` is a real upstream abort).
// RUN: phobos compile %s --emit=gpu | FileCheck %s --check-prefix=OK
// OK: gpu.func @scale
// RUN: env PHOBOS_TEST_CRASH=unreachable not phobos compile %s --emit=gpu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNREACHABLE --implicit-check-not=Traceback --implicit-check-not=gpu.func
// UNREACHABLE: {{^}}{{.*}}cli-crash.ph: error: MLIR aborted: unknown IRDL constraint (UNREACHABLE executed at {{.*}}IRDLLoading.cpp:{{[0-9]+}}!)
// UNREACHABLE-NOT: {{.}}
// RUN: env PHOBOS_TEST_CRASH=segv not phobos compile %s --emit=contract 2>&1 | FileCheck %s --check-prefix=SEGV
// SEGV: {{^}}{{.*}}cli-crash.ph: error: MLIR aborted: signal 11 (SIGSEGV)
// RUN: env PHOBOS_TEST_CRASH=abort not phobos compile - < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: {{^}}<stdin>: error: MLIR aborted: signal 6 (SIGABRT)
// RUN: env PHOBOS_TEST_CRASH=abort not phobos run %s --interpret --args 'f32[64,256] f32[64,256] 2.0' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INTERP --implicit-check-not=Traceback
// INTERP: cli-crash.ph: error: MLIR aborted: signal 6 (SIGABRT)
// Deep MLIR input is refused before MLIR parses it, at the bracket past the limit.
// RUN: %python -c "print('module {\n' + 'module {\n' * 1100 + '}\n' * 1101)" > %t.deep.mlir
// RUN: not phobos compile %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP --implicit-check-not=Traceback
// DEEP: deep.mlir:1001:8: error: the input nests brackets and regions more than 1000 levels deep; MLIR's parser would overflow its stack

@aligned(M = 32, N = 128)
kernel scale(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  Y[pm * 32 :+ 32, pn * 128 :+ 128] = alpha * X[pm * 32 :+ 32, pn * 128 :+ 128]
}
