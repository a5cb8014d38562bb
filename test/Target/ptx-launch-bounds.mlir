// tile.launch occupancy hints reach the PTX entry: threads -> .maxntid,
// min_blocks -> .minnctapersm, max_regs -> .maxnreg.
// RUN: phobos compile %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry bounded(
// CHECK: .maxntid 128, 1, 1
// CHECK-NEXT: .minnctapersm 4
// CHECK-NEXT: .maxnreg 64

func.func @bounded(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]})
    attributes {tile.kernel, tile.launch = {threads = 128 : i64, min_blocks = 4 : i64, max_regs = 64 : i64}} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c512 = arith.constant 512 : index
  %s = arith.muli %pid, %c512 : index
  %x = "tile.load_slice"(%X, %s) : (memref<?xf32>, index) -> tensor<512xf32>
  %y = arith.addf %x, %x : tensor<512xf32>
  "tile.store_slice"(%y, %X, %s) : (tensor<512xf32>, memref<?xf32>, index) -> ()
  return
}
