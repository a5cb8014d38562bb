// phobos-opt's in-process path runs in a child process: an abort or a signal in
// MLIR's native code becomes one located line and exit code 1, never a dead
// process or a raw LLVM dump. PHOBOS_TEST_CRASH makes the child crash on purpose;
// `unreachable` is a real upstream abort (an IRDL dialect MLIR 22 cannot load).
// RUN: phobos-opt %s --tile-verify | FileCheck %s --check-prefix=OK
// OK: func.func @f
// RUN: env PHOBOS_TEST_CRASH=unreachable not phobos-opt %s --tile-verify 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNREACHABLE --implicit-check-not=Traceback --implicit-check-not='Stack dump'
// UNREACHABLE: {{^}}{{.*}}phobos-opt-crash.mlir: error: MLIR aborted: unknown IRDL constraint (UNREACHABLE executed at {{.*}}IRDLLoading.cpp:{{[0-9]+}}!)
// UNREACHABLE-NOT: {{.}}
// RUN: env PHOBOS_TEST_CRASH=abort not phobos-opt %s --tile-to-gpu 2>&1 | FileCheck %s --check-prefix=ABORT
// ABORT: {{^}}{{.*}}phobos-opt-crash.mlir: error: MLIR aborted: signal 6 (SIGABRT)
// RUN: env PHOBOS_TEST_CRASH=segv not phobos-opt --tile-verify < %s 2>&1 | FileCheck %s --check-prefix=SEGV
// SEGV: {{^}}<stdin>: error: MLIR aborted: signal 11 (SIGSEGV)
// PHOBOS_CONTAINMENT=off runs in-process (for debuggers); the crash hook fires only in a child.
// RUN: env PHOBOS_CONTAINMENT=off PHOBOS_TEST_CRASH=abort phobos-opt %s --tile-verify | FileCheck %s --check-prefix=OK
// RUN: env PHOBOS_CONTAINMENT=spawn PHOBOS_TEST_CRASH=abort not phobos-opt %s --tile-verify 2>&1 | FileCheck %s --check-prefix=ABORT

// Input nested deeply enough to overflow MLIR's parser is refused first, at the
// bracket that passes the limit.
// RUN: %python -c "n = 1200; print('func.func @f() {\n' + 'scf.execute_region {\n' * n + 'scf.yield\n}\n' * n + 'return\n}')" > %t.deep.mlir
// RUN: not phobos-opt %t.deep.mlir --tile-verify 2>&1 | FileCheck %s --check-prefix=DEEP --implicit-check-not=Traceback
// DEEP: deep.mlir:1001:20: error: the input nests brackets and regions more than 1000 levels deep; MLIR's parser would overflow its stack
// DEEP-NEXT: scf.execute_region {
// DEEP-NEXT: {{^                   \^}}

// Pass options that reach an upstream assertion are refused by name.
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify,func.func(affine-loop-unroll-jam{unroll-jam-factor=0}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=JAM
// JAM: <unknown>:0: error: 'affine-loop-unroll-jam{unroll-jam-factor=0}' would abort MLIR (an upstream assertion); use a positive factor
// RUN: not phobos-opt %s --tile-verify --gpu-module-to-binary=format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: 'gpu-module-to-binary{format=elf}' would abort MLIR

// Diagnostics printed in the child keep their place before the output.
// RUN: phobos-opt %s --tile-verify --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: IR Dump After TileVerify (tile-verify)
// ORDER-NEXT: module {
// ORDER-NEXT: func.func @f
// ORDER: module {
// ORDER-NEXT: func.func @f

func.func @f() {
  return
}
