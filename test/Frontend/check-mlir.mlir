// `phobos check` on tile IR verifies it as `phobos compile --emit=tile` does (the
// parser, the IRDL constraints and tile-verify), instead of lexing it as .ph source.
// RUN: phobos check %S/../../examples/scale.mlir
// RUN: phobos check %S/../Target/Inputs/two-kernels.mlir
// RUN: phobos check - < %S/../../examples/scale.mlir
// RUN: not phobos check %s 2>&1 | FileCheck %s --implicit-check-not=Traceback --implicit-check-not=error:
// RUN: not phobos check -D TM=32 %s 2>&1 | FileCheck %s --check-prefix=WITH-D

// CHECK: check-mlir.mlir:[[@LINE+3]]:8: error: 'tile.block_id' op expects dim to be 0, 1 or 2, got 3
// WITH-D: phobos: error: -D fixes @autotune constants of .ph source
func.func @k() attributes {tile.kernel} {
  %0 = "tile.block_id"() {dim = 3 : i64} : () -> index
  return
}
