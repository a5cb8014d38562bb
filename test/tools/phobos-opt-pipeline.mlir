// Phobos Python passes and upstream passes mix in one pipeline, given as
// --pass-pipeline or as individual flags, and IR printing covers both.
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-verify,canonicalize,tile-verify)' | FileCheck %s
// RUN: phobos-opt %s --tile-verify --canonicalize | FileCheck %s
// RUN: phobos-opt %s -tile-verify -canonicalize -o %t && FileCheck %s < %t
// RUN: phobos-opt < %s --pass-pipeline='builtin.module(tile-verify,cse)' | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-verify,canonicalize)' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-verify)' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: phobos-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// The tile-to-gpu alias expands to the passes of its stages, so IR printing shows each step.
// RUN: phobos-opt %S/../../examples/scale.mlir --tile-to-gpu --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=STEPS
// RUN: phobos-opt %S/../../examples/scale.mlir -p 'builtin.module(tile-to-gpu{chip=sm_90})' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=STEPS
// Flags the in-process driver supports besides the common ones: an IR dump tree and bytecode output.
// RUN: rm -rf %t.tree
// RUN: phobos-opt %s --tile-verify --canonicalize --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t.tree -o /dev/null
// RUN: test -f %t.tree/builtin_module_no-symbol-name/0_tile-verify.mlir
// RUN: test -f %t.tree/builtin_module_no-symbol-name/1_canonicalize.mlir
// RUN: phobos-opt %s --tile-verify --emit-bytecode -o %t.mlirbc
// RUN: phobos-opt %t.mlirbc | FileCheck %s
// RUN: phobos-opt %t.mlirbc --tile-verify | FileCheck %s

// CHECK-LABEL: func.func @scale
// CHECK: "tile.load_slice"
// CHECK-NOT: arith.addi
// CHECK: "tile.store_slice"

// DUMP: // -----// IR Dump After TileVerify (tile-verify) //----- //
// DUMP: // -----// IR Dump After Canonicalizer (canonicalize) //----- //

// STEPS: // -----// IR Dump After TileVerify (tile-verify) //----- //
// STEPS-NEXT: module {
// STEPS: // -----// IR Dump After TileSpecialize (tile-specialize) //----- //
// STEPS: // -----// IR Dump After TileElideMasks (tile-elide-masks) //----- //
// STEPS: // -----// IR Dump After TileAssignLayout (tile-assign-layout) //----- //
// STEPS: // -----// IR Dump After TilePlanDots (tile-plan-dots) //----- //
// STEPS: // -----// IR Dump After TilePipeline (tile-pipeline) //----- //
// STEPS: // -----// IR Dump After TileAllocateShared (tile-allocate-shared) //----- //
// STEPS: // -----// IR Dump After TileInsertBarriers (tile-insert-barriers) //----- //
// STEPS: // -----// IR Dump After TileLowerToGpu (tile-lower-to-gpu) //----- //
// STEPS: gpu.module
// STEPS: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// STEPS: // -----// IR Dump After CSE (cse) //----- //
// STEPS-NOT: IR Dump

// LOC: "tile.block_id"() {dim = 0 : i64} : () -> index loc(#[[L:loc[0-9]*]])

// GENERIC: "func.func"()
// GENERIC: "arith.addi"

func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}, %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  // LOC: #[[L]] = loc("{{.*}}phobos-opt-pipeline.mlir":[[@LINE+1]]:9)
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %i = arith.muli %pm, %c32 : index
  %j = arith.addi %c0, %c0 : index
  %x = "tile.load_slice"(%X, %i, %j) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %i, %j) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
