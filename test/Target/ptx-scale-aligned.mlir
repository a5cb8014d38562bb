// The @aligned 2-D scale (examples/scale.ph) with the facts of a launch on
// 16-byte aligned, row-padded tensors: 16-byte loads through the read-only
// path and 16-byte stores, with no predicate on the main path. The broken
// promise traps at entry.
// RUN: phobos compile %s --emit=ptx | FileCheck %s
// RUN: phobos compile %s --emit=ptx --chip=sm_80 | FileCheck %s --check-prefix=SM80

// CHECK: .version 8.0
// CHECK: .target sm_90
// CHECK-LABEL: .visible .entry scale(
// CHECK-NEXT: .param .u64 .ptr .align 16 scale_param_0,
// CHECK-NEXT: .param .u64 scale_param_1,
// CHECK-NEXT: .param .u64 scale_param_2,
// CHECK-NEXT: .param .u64 scale_param_3,
// CHECK-NEXT: .param .u64 .ptr .align 16 scale_param_4,
// CHECK-NEXT: .param .u64 scale_param_5,
// CHECK-NEXT: .param .f32 scale_param_6
// CHECK: .maxntid 256, 1, 1
// CHECK-NOT: ld.global.b32
// CHECK-NOT: ld.global.nc.b32
// CHECK: ld.global.nc.v4.b32
// CHECK-NOT: @%p
// CHECK: ld.global.nc.v4.b32
// CHECK-NOT: @%p
// CHECK: ld.global.nc.v4.b32
// CHECK-NOT: @%p
// CHECK: ld.global.nc.v4.b32
// CHECK-NOT: @%p
// CHECK: st.global.v4.b32
// CHECK-NOT: @%p
// CHECK: st.global.v4.b32
// CHECK-NOT: @%p
// CHECK: st.global.v4.b32
// CHECK-NOT: @%p
// CHECK: st.global.v4.b32
// CHECK-NOT: @%p
// CHECK-NOT: st.global.b32
// CHECK: ret;
// CHECK: trap;

// SM80: .target sm_80
// SM80-COUNT-4: ld.global.nc.v4.b32
// SM80-COUNT-4: st.global.v4.b32

func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64,
                                       tile.divisibility = array<i64: 16, 16>, tile.stride_divisibility = array<i64: 16>},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64,
                                       tile.divisibility = array<i64: 16, 16>, tile.stride_divisibility = array<i64: 16>},
                 %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel, tile.launch = {threads = 256 : i64}, tile.aligned = {M = 32 : i64, N = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %M = "tile.check_multiple"(%m) {divisor = 32 : i64, symbol = "M"} : (index) -> index
  %N = "tile.check_multiple"(%n) {divisor = 128 : i64, symbol = "N"} : (index) -> index
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %pm, %c32 : index
  %col = arith.muli %pn, %c128 : index
  // The facts tile-elide-masks derives from the promise and the key.
  %x = "tile.load_slice"(%X, %row, %col) {in_bounds = array<i1: true, true>, vector_width = 4 : i64} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %row, %col) {in_bounds = array<i1: true, true>, vector_width = 4 : i64} : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
