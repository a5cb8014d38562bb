// Bad command lines and pipelines: a diagnostic on stderr, exit code 1, no traceback.
// RUN: not phobos-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: phobos-opt: Unknown command line argument '--no-such-flag'.  Try: 'phobos-opt --help'
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(func.func(tile-verify))' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: <unknown>:0: error: Phobos pass 'tile-verify' runs on the top-level module only; it cannot be nested in 'func.func(...)'
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify{bogus=1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: <unknown>:0: error: 'tile-verify' has no option 'bogus' (options: none)
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not phobos-opt %s --tile-verify --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: phobos-opt: --pass-pipeline cannot be combined with individual pass flags
// The process-killing pairing of sm_90 with the default PTX 6.0 is refused up front.
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90})' 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: <unknown>:0: error: 'gpu-lower-to-nvvm-pipeline': PTX 6.0 does not support sm_90; use features '+ptx80' or newer
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_99})' 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: 'nvvm-attach-target': unknown or unsupported chip 'sm_99'
// RUN: printf '\xff\xfe' > %t.bin
// RUN: not phobos-opt %t.bin 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: error: the input is not UTF-8 text
// RUN: not phobos-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// RUN: not phobos-opt %s --allow-unregistered-dialect=maybe 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: invalid choice: 'maybe'
// CHECK-NOT: Traceback

func.func @f() {
  return
}
