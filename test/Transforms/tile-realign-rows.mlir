// tile-realign-rows marks the slice accesses of elementwise 2-D kernels whose row pitch is not
// known to be a multiple of 16 bytes, and gives the kernel a layout with 16-byte runs along the
// rows; kernels whose tiles may depend on their columns, or whose pitch is aligned, are left alone.
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-elide-masks,tile-realign-rows)' | FileCheck %s

// CHECK-LABEL: func.func @odd_pitch
// CHECK-SAME: tile.layout = #tile.blocked<array<i64: 1, 4>, array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 0>>
// CHECK: "tile.load_slice"(%arg0, {{.*}}tile.realign_reference = 0 : i64, tile.realign_width = 4 : i64, vector_width = 1
// CHECK: "tile.load_slice"(%arg1, {{.*}}tile.realign_reference = 0 : i64, tile.realign_width = 4 : i64
// CHECK: "tile.store_slice"({{.*}}tile.realign_reference = 0 : i64, tile.realign_width = 4 : i64
func.func @odd_pitch(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                     %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]},
                     %Z: memref<?x?xf32> {tile.name = "Z", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %pm, %c32 : index
  %col = arith.muli %pn, %c128 : index
  // The same starts spelled twice, as the front end does.
  %c32b = arith.constant 32 : index
  %row2 = arith.muli %pm, %c32b : index
  %x = "tile.load_slice"(%X, %row, %col) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %y = "tile.load_slice"(%Y, %row2, %col) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %one = arith.constant dense<1.0> : tensor<32x128xf32>
  %s = arith.addf %x, %y : tensor<32x128xf32>
  %t = math.exp %s : tensor<32x128xf32>
  %z = arith.addf %t, %one : tensor<32x128xf32>
  "tile.store_slice"(%z, %Z, %row, %col) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// f16 rows rotate by up to 7 elements: W = 8, and a pitch known to be a multiple of 4 is not enough.
// CHECK-LABEL: func.func @half
// CHECK-SAME: array<i64: 1, 8>
// CHECK: tile.realign_width = 8 : i64
func.func @half(%X: memref<?x?xf16> {tile.name = "X", tile.dims = ["M", "N"], tile.stride_divisibility = array<i64: 4>},
                %Y: memref<?x?xf16> {tile.name = "Y", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c16 = arith.constant 16 : index
  %row = arith.muli %pm, %c16 : index
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %row, %c0) : (memref<?x?xf16>, index, index) -> tensor<16x64xf16>
  "tile.store_slice"(%x, %Y, %row, %c0) : (tensor<16x64xf16>, memref<?x?xf16>, index, index) -> ()
  return
}

// -----

// Pitches known to be multiples of 4 elements: nothing to realign.
// CHECK-LABEL: func.func @aligned_pitch
// CHECK-NOT: tile.realign
// CHECK-NOT: tile.layout
func.func @aligned_pitch(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.stride_divisibility = array<i64: 4>},
                         %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"], tile.stride_divisibility = array<i64: 16>}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %row = arith.muli %pm, %c32 : index
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %row, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  "tile.store_slice"(%x, %Y, %row, %c0) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// The store starts one tile further right than the load: one rotation cannot fit both.
// CHECK-LABEL: func.func @shifted_store
// CHECK-NOT: tile.realign
func.func @shifted_store(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                         %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %row = arith.muli %pm, %c32 : index
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %x = "tile.load_slice"(%X, %row, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  "tile.store_slice"(%x, %Y, %row, %c128) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// A reduction along the rows asks which column each register holds.
// CHECK-LABEL: func.func @row_sums
// CHECK-NOT: tile.realign
func.func @row_sums(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                    %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %row = arith.muli %pm, %c32 : index
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %row, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %r = "tile.reduce"(%x) {axis = 1 : i64, kind = "sum"} : (tensor<32x128xf32>) -> tensor<32xf32>
  %e = tensor.expand_shape %r [[0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
  "tile.store_slice"(%e, %Y, %row, %c0) : (tensor<32x1xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// Check mode keeps the checked lowering.
// CHECK-LABEL: func.func @checked
// CHECK-NOT: tile.realign
func.func @checked(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                   %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}) attributes {tile.kernel, tile.check_mode} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %row = arith.muli %pm, %c32 : index
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %row, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  "tile.store_slice"(%x, %Y, %row, %c0) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// A dense constant tile that is not a splat names its columns; the same kernel with a splat
// constant (@odd_pitch above) is realigned.
// CHECK-LABEL: func.func @column_constants
// CHECK-NOT: tile.realign
func.func @column_constants(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                            %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %pm, %c0) : (memref<?x?xf32>, index, index) -> tensor<1x4xf32>
  %k = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %y = arith.mulf %x, %k : tensor<1x4xf32>
  "tile.store_slice"(%y, %Y, %pm, %c0) : (tensor<1x4xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
