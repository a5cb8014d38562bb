// The `phobos` driver: user errors are one located line (or a `phobos: error:`
// line for the command line itself), exit status 1, never a traceback.
// RUN: phobos --help | FileCheck %s --check-prefix=HELP
// RUN: phobos compile --help | FileCheck %s --check-prefix=COMPILE-HELP
// RUN: not phobos check %S/does-not-exist.ph 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not phobos compile -D TM %s 2>&1 | FileCheck %s --check-prefix=BADDEF
// RUN: not phobos compile -D TM=64 %s 2>&1 | FileCheck %s --check-prefix=OUT-OF-SPACE
// RUN: not phobos compile --emit=sass %s 2>&1 | FileCheck %s --check-prefix=BAD-EMIT
// RUN: not phobos frobnicate 2>&1 | FileCheck %s --check-prefix=BAD-COMMAND
// RUN: not phobos compile --emit=ptx --chip sm_99 %s 2>&1 | FileCheck %s --check-prefix=BAD-CHIP
// RUN: phobos compile %s -o %t.mlir && FileCheck %s --check-prefix=OUTPUT < %t.mlir
// RUN: phobos compile --mlir-print-debuginfo - < %s | phobos-opt --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=STDIN
// RUN: phobos check %s
// RUN: printf 'module {\xff}' > %t.bin
// RUN: not env LC_ALL=C phobos compile --emit=gpu - < %t.bin 2>&1 | FileCheck %s --check-prefix=NOT-UTF8
// RUN: not phobos compile %t.bin 2>&1 | FileCheck %s --check-prefix=NOT-UTF8

// HELP: usage: phobos
// HELP: compile
// HELP: check

// COMPILE-HELP: --emit {tile,gpu,llvm,ptx,cubin,contract}
// COMPILE-HELP: --chip CHIP
// COMPILE-HELP: -D NAME=VALUE

// MISSING: phobos: error: cannot read '{{.*}}does-not-exist.ph': No such file or directory
// MISSING-NOT: Traceback

// BADDEF: phobos: error: -D expects NAME=INTEGER, got 'TM'
// BADDEF-NOT: Traceback

// NOT-UTF8: phobos: error: cannot read {{.*}}: it is not UTF-8 text
// NOT-UTF8-NOT: Traceback

// BAD-EMIT: phobos: error: argument --emit: invalid choice: 'sass'

// BAD-COMMAND: phobos: error: argument COMMAND: invalid choice: 'frobnicate'

// BAD-CHIP: phobos: error:
// BAD-CHIP-NOT: Traceback

// OUTPUT: func.func @tiny(
// STDIN: loc("<stdin>":[[@LINE+5]]:8)

// OUT-OF-SPACE: cli.ph:[[@LINE+2]]:11: error: -D TM=64 is not in the @autotune space of 'TM': [16, 32]
// OUT-OF-SPACE-NOT: Traceback
@autotune(TM in [16, 32])
kernel tiny(X: tensor<f32>[N]) {
  X[ctx.block.x * TM :+ TM] = 0.0
}
