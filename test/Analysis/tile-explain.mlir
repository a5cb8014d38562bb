// tile-explain prints phobos explain's report as remarks (stderr), one per
// kernel and one per global load and store; the IR is unchanged.
// RUN: phobos-opt %s --split-input-file --tile-explain -o /dev/null 2>&1 | FileCheck %s
// RUN: phobos-opt %s --split-input-file --tile-explain 2>/dev/null | FileCheck %s --check-prefix=IR
// After tile-elide-masks and tile-assign-layout the report reads their decisions in place.
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-elide-masks,tile-assign-layout,tile-explain)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER

// IR-LABEL: func.func @scale_aligned
// IR: "tile.load_slice"(%{{.*}}) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
// IR-NOT: vector_width
// IR-NOT: tile.layout

// CHECK: tile-explain.mlir:[[@LINE+4]]:1: remark: kernel 'scale_aligned': 256 threads, layout #tile.blocked<array<i64: 1, 4>, array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 0>>; shared memory: none planned; barriers: none
// CHECK: tile-explain.mlir:[[@LINE+19]]:8: remark: tile.load_slice of 'X': 4 elements (16 bytes) per access; mask: dim 0 dropped by @aligned(M = 32); dim 1 dropped by @aligned(N = 128); lanes coalesced: dimension 1, stride 1; 128-byte lines per warp request: 4 (ideal 4)
// CHECK: tile-explain.mlir:[[@LINE+21]]:3: remark: tile.store_slice of 'Y': 4 elements (16 bytes) per access; mask: dim 0 dropped by @aligned(M = 32)
// AFTER: remark: tile.load_slice of 'X': 4 elements (16 bytes) per access; mask: dim 0 dropped by in_bounds already on the op (tile-elide-masks ran); dim 1 dropped by in_bounds already on the op (tile-elide-masks ran); lanes coalesced: dimension 1, stride 1; 128-byte lines per warp request: 4 (ideal 4)
func.func @scale_aligned(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                         %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                         %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel, tile.aligned = {M = 32 : i64, N = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %mc = "tile.check_multiple"(%m) {divisor = 32 : i64, symbol = "M"} : (index) -> index
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %nc = "tile.check_multiple"(%n) {divisor = 128 : i64, symbol = "N"} : (index) -> index
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %r = arith.muli %pm, %c32 : index
  %c = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %r, %c) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %r, %c) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// Offset form, masked, generic arguments: the missing facts, the kept mask and the term the lanes walk.
// CHECK: remark: kernel 'saxpy_offsets'
// CHECK: tile-explain.mlir:[[@LINE+16]]:8: remark: tile.load of 'X': 1 element (4 bytes) per access; narrower than 16 bytes, missing alignment of the base: the base of 'X' is not known to be 16-byte aligned {{.*}}; narrower than 16 bytes, missing the mask's constancy: the mask is constant only over runs of 1 along the last dimension; mask: kept: it is not proven all-true (it is arith.cmpi at {{.*}}tile-explain.mlir:[[@LINE+15]]:8); lanes coalesced: dimension 0, stride 1; 128-byte lines per warp request: 1 (ideal 1)
// CHECK: remark: tile.store of 'X': 1 element (4 bytes) per access;
func.func @saxpy_offsets(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]})
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %b = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c1024 = arith.constant 1024 : index
  %s = arith.muli %b, %c1024 : index
  %si = arith.index_cast %s : index to i32
  %ss = tensor.splat %si : tensor<1024xi32>
  %r = "tile.range"() {start = 0 : i64, end = 1024 : i64} : () -> tensor<1024xi32>
  %o = arith.addi %ss, %r : tensor<1024xi32>
  %ni = arith.index_cast %n : index to i32
  %ns = tensor.splat %ni : tensor<1024xi32>
  %m = arith.cmpi slt, %o, %ns : tensor<1024xi32>
  %x = "tile.load"(%X, %o, %m) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> tensor<1024xf32>
  "tile.store"(%x, %X, %o, %m) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<1024xf32>, memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> ()
  return
}
