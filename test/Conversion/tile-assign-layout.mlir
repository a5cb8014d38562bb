// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-assign-layout)' | FileCheck %s

// A 32x128 f32 tile whose accesses are 16-byte vectors: each thread holds
// 1x4 elements, a warp spans one 128-element row, 8 warps cover 8 rows, so
// each of the 256 threads holds 16 elements (four float4).
// CHECK-LABEL: func.func @scale
// CHECK-SAME: tile.layout = #tile.blocked<array<i64: 1, 4>, array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 0>>
func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) {vector_width = 4 : i64} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  "tile.store_slice"(%x, %Y, %c0, %c0) {vector_width = 4 : i64} : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// Without a proven vector width, one element per thread along the row: a
// warp still reads 32 consecutive elements; the extra warps go to columns
// first, then rows.
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: tile.layout = #tile.blocked<array<i64: 1, 1>, array<i64: 1, 32>, array<i64: 2, 4>, array<i64: 1, 0>>
func.func @scalar(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  "tile.store_slice"(%x, %X, %c0, %c0) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// 1-D, 128 threads from tile.launch, 8-byte f64 vectors of 2.
// CHECK-LABEL: func.func @saxpy
// CHECK-SAME: tile.layout = #tile.blocked<array<i64: 2>, array<i64: 32>, array<i64: 4>, array<i64: 0>>
func.func @saxpy(%X: memref<?xf64> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0) {vector_width = 2 : i64} : (memref<?xf64>, index) -> tensor<1024xf64>
  "tile.store_slice"(%x, %X, %c0) {vector_width = 2 : i64} : (tensor<1024xf64>, memref<?xf64>, index) -> ()
  return
}

// -----

// The layout follows the largest tile of the highest rank (here the 2-D
// one); the 1-D tile is held as a slice of it.
// CHECK-LABEL: func.func @bias
// CHECK-SAME: tile.layout = #tile.blocked<array<i64: 1, 4>, array<i64: 2, 16>, array<i64: 8, 1>, array<i64: 1, 0>>
func.func @bias(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                %B: memref<?xf32> {tile.name = "B", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) {vector_width = 4 : i64} : (memref<?x?xf32>, index, index) -> tensor<16x64xf32>
  %b = "tile.load_slice"(%B, %c0) : (memref<?xf32>, index) -> tensor<64xf32>
  %e = tensor.expand_shape %b [[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  %bb = "tile.broadcast"(%e) : (tensor<1x64xf32>) -> tensor<16x64xf32>
  %y = arith.addf %x, %bb : tensor<16x64xf32>
  "tile.store_slice"(%y, %X, %c0, %c0) {vector_width = 4 : i64} : (tensor<16x64xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// A layout already chosen (by hand or by an earlier run) is kept; a kernel
// without tiles gets none.
// CHECK-LABEL: func.func @given
// CHECK-SAME: tile.layout = #tile.blocked<array<i64: 1>, array<i64: 32>, array<i64: 8>, array<i64: 0>>
// CHECK-LABEL: func.func @no_tiles
// CHECK-NOT: tile.layout
func.func @given(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]})
    attributes {tile.kernel, tile.layout = #tile.blocked<array<i64: 1>, array<i64: 32>, array<i64: 8>, array<i64: 0>>} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0) {vector_width = 4 : i64} : (memref<?xf32>, index) -> tensor<1024xf32>
  "tile.store_slice"(%x, %X, %c0) : (tensor<1024xf32>, memref<?xf32>, index) -> ()
  return
}
func.func @no_tiles(%n: i32 {tile.name = "n"}) attributes {tile.kernel} {
  return
}
