// tile-check-coalesced (@assert_coalesced): a global access whose lanes are
// strided is an error at the access naming the lane-varying term and its
// multiplier; contiguous accesses and kernels without the flag pass.
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-check-coalesced
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-elide-masks,tile-assign-layout,tile-check-coalesced)'

// A column per CTA: lanes walk dimension 0, a row stride apart.
func.func @colwalk(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]})
    attributes {tile.kernel, tile.assert_coalesced} {
  %c0 = arith.constant 0 : index
  %b = "tile.block_id"() {dim = 0 : i64} : () -> index
  // expected-error @below {{@assert_coalesced: the lanes of this load of 'X' are strided: the lane-varying term (the index along dimension 0 of 'X') is multiplied by the stride of dimension 0 of 'X' (N elements when rows are packed); one warp request touches 32 128-byte lines (ideal 1)}}
  %x = "tile.load_slice"(%X, %c0, %b) : (memref<?x?xf32>, index, index) -> tensor<256x1xf32>
  return
}

// -----

// Offsets `range * N`: the term and its multiplier are named.
func.func @offsets(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]})
    attributes {tile.kernel, tile.assert_coalesced} {
  %c1 = arith.constant 1 : index
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %r = "tile.range"() {start = 0 : i64, end = 128 : i64} : () -> tensor<128xi32>
  %ni = arith.index_cast %n : index to i32
  %ns = tensor.splat %ni : tensor<128xi32>
  %o = arith.muli %r, %ns : tensor<128xi32>
  // expected-error @below {{the lane-varying term (tile.range [0, 128) at}}
  %x = "tile.load"(%X, %o) {operandSegmentSizes = array<i32: 1, 1, 0>} : (memref<?x?xf32>, tensor<128xi32>) -> tensor<128xf32>
  return
}

// -----

// The same column walk without the flag, and a row walk with it: no error.
func.func @colwalk_unchecked(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]})
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %b = "tile.block_id"() {dim = 0 : i64} : () -> index
  %x = "tile.load_slice"(%X, %c0, %b) : (memref<?x?xf32>, index, index) -> tensor<256x1xf32>
  return
}
func.func @rowwalk(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]})
    attributes {tile.kernel, tile.assert_coalesced} {
  %c0 = arith.constant 0 : index
  %b = "tile.block_id"() {dim = 0 : i64} : () -> index
  %x = "tile.load_slice"(%X, %b, %c0) : (memref<?x?xf32>, index, index) -> tensor<1x256xf32>
  return
}
