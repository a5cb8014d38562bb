// The offset form: offsets = start + block * 1024 + range(1024) with a
// runtime `start`. Nothing is known about `start`, so without hints every
// access is a predicated 4-byte access; with multiple_of(16) and
// max_contiguous(1024) on the offsets (tile.hint) the accesses become 16-byte
// vectors, still under the bounds mask (one predicate per vector).
// RUN: phobos compile %s --kernel=hinted --emit=ptx | FileCheck %s --check-prefix=HINTS
// RUN: phobos compile %s --kernel=plain --emit=ptx | FileCheck %s --check-prefix=PLAIN

// HINTS-LABEL: .visible .entry hinted(
// HINTS: @%p{{[0-9]+}} bra
// HINTS: ld.global.nc.v4.b32
// HINTS: st.global.v4.b32
// HINTS-NOT: ld.global.nc.b32
// HINTS-NOT: st.global.b32
// HINTS: ret;

// PLAIN-LABEL: .visible .entry plain(
// PLAIN-NOT: .v4.
// PLAIN-NOT: .v2.
// PLAIN: @%p{{[0-9]+}} bra
// PLAIN: ld.global.nc.b32
// PLAIN: st.global.b32
// PLAIN-NOT: .v4.
// PLAIN: ret;

func.func @hinted(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 16 : i64, tile.divisibility = array<i64: 16>},
                  %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"], tile.ptr_align = 16 : i64, tile.divisibility = array<i64: 16>},
                  %start: i32 {tile.name = "start"}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pid32 = arith.index_cast %pid : index to i32
  %c1024 = arith.constant 1024 : i32
  %base = arith.muli %pid32, %c1024 : i32
  %first = arith.addi %start, %base : i32
  %r = "tile.range"() {start = 0 : i64, end = 1024 : i64} : () -> tensor<1024xi32>
  %s = tensor.splat %first : tensor<1024xi32>
  %raw = arith.addi %s, %r : tensor<1024xi32>
  %offs = "tile.hint"(%raw) {divisibility = array<i64: 16>, contiguity = array<i64: 1024>} : (tensor<1024xi32>) -> tensor<1024xi32>
  %n32 = arith.index_cast %n : index to i32
  %ns = tensor.splat %n32 : tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // vector_width: what tile-elide-masks derives from the hints and the key.
  %x = "tile.load"(%X, %offs, %mask) {vector_width = 4 : i64} : (memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> tensor<1024xf32>
  %two = arith.constant dense<2.0> : tensor<1024xf32>
  %y = arith.mulf %x, %two : tensor<1024xf32>
  "tile.store"(%y, %Y, %offs, %mask) {vector_width = 4 : i64} : (tensor<1024xf32>, memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> ()
  return
}

func.func @plain(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 16 : i64, tile.divisibility = array<i64: 16>},
                 %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"], tile.ptr_align = 16 : i64, tile.divisibility = array<i64: 16>},
                 %start: i32 {tile.name = "start"}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pid32 = arith.index_cast %pid : index to i32
  %c1024 = arith.constant 1024 : i32
  %base = arith.muli %pid32, %c1024 : i32
  %first = arith.addi %start, %base : i32
  %r = "tile.range"() {start = 0 : i64, end = 1024 : i64} : () -> tensor<1024xi32>
  %s = tensor.splat %first : tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %n32 = arith.index_cast %n : index to i32
  %ns = tensor.splat %n32 : tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %x = "tile.load"(%X, %offs, %mask) : (memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> tensor<1024xf32>
  %two = arith.constant dense<2.0> : tensor<1024xf32>
  %y = arith.mulf %x, %two : tensor<1024xf32>
  "tile.store"(%y, %Y, %offs, %mask) : (tensor<1024xf32>, memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> ()
  return
}
