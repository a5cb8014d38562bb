// Bad command lines and pipelines: a diagnostic on stderr, exit code 1, no traceback and
// no dead process, on both paths (mlir-opt for upstream-only command lines, in-process
// for those that name a Phobos pass).
// In-process (a Phobos pass is named):
// RUN: not phobos-opt %s --tile-verify --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: phobos-opt: Unknown command line argument '--no-such-flag'.  Try: 'phobos-opt --help'
// RUN: not phobos-opt %s --tile-verify --mlir-timing 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: phobos-opt: error: the flag '--mlir-timing' is not supported together with Phobos passes
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify)' -no-implicit-module 2>&1 | FileCheck %s --check-prefix=REFUSED2
// REFUSED2: phobos-opt: error: the flag '--no-implicit-module' is not supported together with Phobos passes
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(func.func(tile-verify))' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: <unknown>:0: error: Phobos pass 'tile-verify' runs on the top-level module only; it cannot be nested in 'func.func(...)'
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify{bogus=1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: <unknown>:0: error: 'tile-verify' has no option 'bogus' (options: none)
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: MLIR Textual PassPipeline Parser:1:1: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not phobos-opt %s --tile-verify --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: phobos-opt: --pass-pipeline cannot be combined with individual pass flags
// The process-killing pairing of sm_90 with the default PTX 6.0 is refused up front.
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify,gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90})' 2>&1 | FileCheck %s --check-prefix=PTX
// PTX: <unknown>:0: error: 'gpu-lower-to-nvvm-pipeline': PTX 6.0 does not support sm_90; use features '+ptx80' or newer
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-verify,nvvm-attach-target{chip=sm_99})' 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: 'nvvm-attach-target': unknown or unsupported chip 'sm_99'
// RUN: printf '\xff\xfe' > %t.bin
// RUN: not phobos-opt %t.bin --tile-verify 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: error: the input is neither UTF-8 text nor MLIR bytecode
// RUN: not phobos-opt %S/Inputs/does-not-exist.mlir --tile-verify 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// The same binary input through mlir-opt.
// RUN: not phobos-opt %t.bin 2>&1 | FileCheck %s --check-prefix=UP-BINARY
// UP-BINARY: error
// RUN: not phobos-opt %s --tile-verify --allow-unregistered-dialect=maybe 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: invalid choice: 'maybe'
//
// Through mlir-opt (no Phobos pass):
// RUN: not phobos-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=UP-FLAG
// UP-FLAG: phobos-opt: Unknown command line argument '--no-such-flag'.  Try: 'phobos-opt --help'
// RUN: not phobos-opt %s --tile-no-such-pass 2>&1 | FileCheck %s --check-prefix=UP-TILE
// UP-TILE: phobos-opt: Unknown command line argument '--tile-no-such-pass'.  Try: 'phobos-opt --help'
// RUN: not phobos-opt %s --allow-unregistered-dialect=maybe 2>&1 | FileCheck %s --check-prefix=UP-BOOL
// UP-BOOL: phobos-opt: for the --allow-unregistered-dialect option: 'maybe' is invalid value for boolean argument! Try 0 or 1
// RUN: not phobos-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=UP-MISSING
// UP-MISSING: cannot open input file {{.*}}does-not-exist.mlir{{.*}}: No such file or directory
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UP-PIPELINE
// UP-PIPELINE: 'no-such-pass' does not refer to a registered pass or pass pipeline
// A tile op that fails its IRDL verifier: a located error.
// RUN: not phobos-opt %S/Inputs/bad-tile-op.mlir --canonicalize 2>&1 | FileCheck %s --check-prefix=UP-TILEOP
// UP-TILEOP: bad-tile-op.mlir:3:8: error: 'tile.block_id' op attribute "dim" is expected but not provided
// An abort inside MLIR (an IRDL file that MLIR 22 cannot load) is reported, with exit code 1.
// RUN: not phobos-opt %s --irdl-file=%S/Inputs/aborts.irdl.mlir > %t.abort 2>&1
// RUN: FileCheck %s --check-prefix=UP-ABORT < %t.abort
// UP-ABORT: UNREACHABLE executed
// UP-ABORT: phobos-opt: error: MLIR aborted (signal 6)
// CHECK-NOT: Traceback
// RUN: not phobos-opt %s --tile-verify --mlir-timing 2>&1 | FileCheck %s --check-prefix=NOTRACE --implicit-check-not=Traceback
// RUN: not phobos-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOTRACE --implicit-check-not=Traceback
// NOTRACE: {{.+}}

func.func @f() {
  return
}
