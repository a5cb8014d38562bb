// The scale kernel without the promise, on extents of unknown divisibility and
// bases of unknown alignment (row pitches of 4k elements: odd ones would be
// realigned, ptx-realign-rows.mlir): every access is a 4-byte access under its
// own bounds check and no 16-byte vector appears. Loads select a safe address
// and zero instead of branching (so they all issue before the first use);
// stores branch around.
// RUN: phobos compile %s --emit=ptx --key 'X=a1.e1x1.s4;Y=a1.e1x1.s4' | FileCheck %s

// CHECK-LABEL: .visible .entry scale(
// CHECK-NEXT: .param .u64 .ptr .align 1 scale_param_0,
// CHECK-NOT: .v4.
// CHECK-NOT: .v2.
// CHECK-NOT: trap;
// CHECK: setp.lt.u64
// CHECK: selp.b64
// CHECK: ld.global.nc.b32
// CHECK: selp.f32
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK-NOT: .v4.
// CHECK: ret;

func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]},
                 %alpha: f32 {tile.name = "alpha"}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %pm, %c32 : index
  %col = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %row, %col) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %row, %col) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
