// RUN: phobos-opt %s --split-input-file --tile-convert-layouts | FileCheck %s
// RUN: phobos-opt %s --split-input-file -p 'builtin.module(tile-convert-layouts,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers)' | FileCheck %s --check-prefix=PLAN
// RUN: phobos-opt %s --split-input-file -p 'builtin.module(tile-convert-layouts,tile-assign-layout,tile-lower-to-gpu)' | FileCheck %s --check-prefix=GPU

// One 1-D range used both as rows and as columns: the second reshape reads a
// converted copy, so the range keeps one placement and the copy has its own.

// CHECK-LABEL: func.func @rows_and_cols
// CHECK: %[[R:.*]] = "tile.range"
// CHECK: tensor.expand_shape %[[R]] {{.*}} into tensor<32x1xi32>
// CHECK: %[[C:.*]] = "tile.convert_layout"(%[[R]]) : (tensor<32xi32>) -> tensor<32xi32>
// CHECK: tensor.expand_shape %[[C]] {{.*}} into tensor<1x32xi32>
// CHECK-NOT: tile.convert_layout

// The conversion's buffer is planned like a transpose's, with a barrier
// between the writes and the reads.
// PLAN-LABEL: func.func @rows_and_cols
// PLAN-SAME: tile.shared = {buffers = [{bytes = 128 : i64, ld = 32 : i64, name = "the layout conversion at {{.*}}", offset = 0 : i64, shape = array<i64: 1, 32>
// PLAN: "tile.convert_layout"
// PLAN-SAME: tile.sync = {read = {at = "the reads of the layout conversion at {{.*}}", barrier = true, order = 0 : i64, why = "read after write: after the writes of the layout conversion at {{.*}}"}}

// GPU-LABEL: gpu.func @rows_and_cols
// GPU: memref.store {{.*}} : memref<32xi32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: memref.load {{.*}} : memref<32xi32, #gpu.address_space<workgroup>>
func.func @rows_and_cols(%A: memref<?x?xi32> {tile.name = "A", tile.dims = ["N", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %r = "tile.range"() {start = 0 : i64, end = 32 : i64} : () -> tensor<32xi32>
  %rows = tensor.expand_shape %r [[0, 1]] output_shape [32, 1] : tensor<32xi32> into tensor<32x1xi32>
  %cols = tensor.expand_shape %r [[0, 1]] output_shape [1, 32] : tensor<32xi32> into tensor<1x32xi32>
  %a = "tile.broadcast"(%rows) : (tensor<32x1xi32>) -> tensor<32x32xi32>
  %b = "tile.broadcast"(%cols) : (tensor<1x32xi32>) -> tensor<32x32xi32>
  %s = arith.addi %a, %b : tensor<32x32xi32>
  "tile.store_slice"(%s, %A, %c0, %c0) : (tensor<32x32xi32>, memref<?x?xi32>, index, index) -> ()
  return
}

// -----

// Row sums (placed down the rows by the reduction) stored as a row: the
// reduction's result is converted, and its uses read the copy, which takes
// the placement they ask for.

// CHECK-LABEL: func.func @row_sums_as_a_row
// CHECK: %[[S:.*]] = "tile.reduce"
// CHECK-NEXT: %[[C:.*]] = "tile.convert_layout"(%[[S]])
// CHECK: tensor.expand_shape %[[C]] {{.*}} into tensor<1x64xf32>
// CHECK: arith.mulf %[[C]], %[[C]]
func.func @row_sums_as_a_row(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}, %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}, %Z: memref<?xf32> {tile.name = "Z", tile.dims = ["M"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<64x64xf32>
  %s = "tile.reduce"(%x) {axis = 1 : i64, kind = "sum"} : (tensor<64x64xf32>) -> tensor<64xf32>
  %row = tensor.expand_shape %s [[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  "tile.store_slice"(%row, %Y, %c0, %c0) : (tensor<1x64xf32>, memref<?x?xf32>, index, index) -> ()
  %q = arith.mulf %s, %s : tensor<64xf32>
  "tile.store_slice"(%q, %Z, %c0) : (tensor<64xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// A kernel whose tiles all have one placement is unchanged.

// CHECK-LABEL: func.func @one_placement
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @one_placement(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<64x64xf32>
  %y = arith.addf %x, %x : tensor<64x64xf32>
  "tile.store_slice"(%y, %X, %c0, %c0) : (tensor<64x64xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
