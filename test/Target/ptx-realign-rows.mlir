// Rows whose pitch is odd (the key's s1: a 16381 x 16381 f32 tensor) still get 16-byte
// accesses on their aligned middle: tile-realign-rows rotates each tile row by its run-time
// misalignment, so each thread's chunks are 16-byte vectors (ld.global.nc.v4 / st.global.v4),
// except the chunk where a rotated row splits and the threads at the tensor's edge, which use
// 4-byte accesses. Without the pass (the same kernel with its pitch known aligned is
// ptx-scale-aligned.mlir) there is no vector at all.
// RUN: phobos compile %s --emit=ptx --key 'X=a16.e1x1.s1;Y=a16.e1x1.s1' | FileCheck %s
// RUN: phobos compile %s --emit=ptx | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: .visible .entry scale(
// CHECK: ld.global.nc.v4.b32
// CHECK: ld.global.nc.b32
// CHECK: st.global.v4.b32
// CHECK: st.global.b32
// CHECK-NOT: trap;
// CHECK: ret;

// The generic variant (nothing known about bases, pitches or extents) realigns too.
// GENERIC-LABEL: .visible .entry scale(
// GENERIC: ld.global.nc.v4.b32
// GENERIC: st.global.v4.b32

func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]},
                 %alpha: f32 {tile.name = "alpha"}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c8 = arith.constant 8 : index
  %c512 = arith.constant 512 : index
  %row = arith.muli %pm, %c8 : index
  %col = arith.muli %pn, %c512 : index
  %x = "tile.load_slice"(%X, %row, %col) : (memref<?x?xf32>, index, index) -> tensor<8x512xf32>
  %a = tensor.splat %alpha : tensor<8x512xf32>
  %y = arith.mulf %a, %x : tensor<8x512xf32>
  "tile.store_slice"(%y, %Y, %row, %col) : (tensor<8x512xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
