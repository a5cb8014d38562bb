// The `scale` kernel of the @aligned reference page, unchanged: M and N are
// runtime extents checked at entry against the autotuned tile; the slices
// stay masked (tile.load_slice/store_slice without in_bounds).
// RUN: phobos check %s
// RUN: phobos compile --emit=tile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x?xf32> {tile.dims = ["M", "N"], tile.name = "X"}
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<?x?xf32> {tile.dims = ["M", "N"], tile.name = "Y"}
// CHECK-SAME: %[[ALPHA:[a-z0-9]+]]: f32 {tile.name = "alpha"}
// CHECK-SAME: attributes {tile.aligned = {M = 32 : i64, N = 128 : i64}, tile.autotune = {TM = array<i64: 32>, TN = array<i64: 128>}, tile.bindings = {TM = 32 : i64, TN = 128 : i64}, tile.kernel}
// CHECK: "tile.check_multiple"(%{{.*}}) {divisor = 32 : i64, symbol = "M"}
// CHECK: "tile.check_multiple"(%{{.*}}) {divisor = 128 : i64, symbol = "N"}
// CHECK: %[[PM:.*]] = "tile.block_id"() {dim = 0 : i64} : () -> index
// CHECK: %[[PN:.*]] = "tile.block_id"() {dim = 1 : i64} : () -> index
// CHECK: %[[R:.*]] = arith.muli %[[PM]], %{{.*}} : index
// CHECK: %[[C:.*]] = arith.muli %[[PN]], %{{.*}} : index
// CHECK: %[[TILE:.*]] = "tile.load_slice"(%[[X]], %[[R]], %[[C]]) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
// CHECK: %[[S:.*]] = tensor.splat %[[ALPHA]] : tensor<32x128xf32>
// CHECK: %[[V:.*]] = arith.mulf %[[S]], %[[TILE]] : tensor<32x128xf32>
// CHECK: "tile.store_slice"(%[[V]], %[[Y]], %{{.*}}, %{{.*}}) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
// CHECK-NEXT: return

@autotune(TM in [32], TN in [128])
@aligned(M = TM, N = TN)
kernel scale(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var x = X[pm * TM :+ TM, pn * TN :+ TN]
  Y[pm * TM :+ TM, pn * TN :+ TN] = alpha * x
}
