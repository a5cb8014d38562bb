// Tile IR through upstream-only pipelines: phobos-opt (which runs mlir-opt with the tile
// dialect) against mlir-opt --irdl-file=<tile.irdl.mlir>, for the same stdout, stderr and exit code.
// REQUIRES: mlir-opt
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-mlir-opt-arg=--irdl-file=%irdl %mlir-opt %S/../../../examples/scale.mlir | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-mlir-opt-arg=--irdl-file=%irdl %mlir-opt %S/../../../examples/scale.mlir --canonicalize --cse | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-mlir-opt-arg=--irdl-file=%irdl %mlir-opt %S/../../../examples/scale.mlir --pass-pipeline='builtin.module(func.func(cse,canonicalize))' --mlir-print-ir-after-all --mlir-print-debuginfo | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-mlir-opt-arg=--irdl-file=%irdl %mlir-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-mlir-opt-arg=--irdl-file=%irdl %mlir-opt %s --split-input-file | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-mlir-opt-arg=--irdl-file=%irdl %mlir-opt %s --split-input-file --mlir-print-op-generic --emit-bytecode | FileCheck %s
// CHECK: identical

func.func @ok(%X: memref<?x?xf32>) {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %x = "tile.load_slice"(%X, %pm, %pm) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  return
}

// -----

func.func @missing_attribute() {
  // expected-error @+1 {{'tile.block_id' op attribute "dim" is expected but not provided}}
  %pm = "tile.block_id"() : () -> index
  return
}

// -----

func.func @unknown_op() {
  // expected-error @+1 {{unregistered operation 'tile.no_such_op' found in dialect ('tile')}}
  "tile.no_such_op"() : () -> ()
  return
}
