// Elementwise math on tiles: sqrt is correctly rounded (sqrt.rn.f32, not the
// sqrt.approx.f32 that libdevice's __nv_sqrtf becomes in this build) unless
// fastmath<afn> allows the approximation; exp is CUDA's expf (libdevice,
// embedded in this MLIR build); f32 division is IEEE div.rn.
// RUN: phobos compile %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry math(
// CHECK-NOT: sqrt.approx
// CHECK-COUNT-4: sqrt.rn.f32
// CHECK-COUNT-4: ex2.approx
// CHECK-COUNT-4: div.rn.f32
// CHECK: sqrt.approx.f32
// CHECK: ret;

func.func @math(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]})
    attributes {tile.kernel, tile.launch = {threads = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0) {in_bounds = array<i1: true>} : (memref<?xf32>, index) -> tensor<128xf32>
  %s = math.sqrt %x : tensor<128xf32>
  %e = math.exp %s : tensor<128xf32>
  %d = arith.divf %e, %x : tensor<128xf32>
  %a = math.sqrt %d fastmath<afn> : tensor<128xf32>
  "tile.store_slice"(%a, %Y, %c0) {in_bounds = array<i1: true>} : (tensor<128xf32>, memref<?xf32>, index) -> ()
  return
}
