// The `gemm` kernel of the @aligned reference page without @aligned,
// unchanged: no promises, no entry checks, and the loop bound is the raw
// extent K (the remainder iteration's slices are masked).
// RUN: phobos check %s
// RUN: phobos compile --emit=tile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf32> {tile.dims = ["M", "K"], tile.name = "A"}
// CHECK-SAME: attributes {tile.autotune = {TILE_K = array<i64: 4, 8, 16, 32>, TILE_M = array<i64: 32, 64, 128, 256>, TILE_N = array<i64: 32, 64, 128, 256>}, tile.bindings = {TILE_K = 4 : i64, TILE_M = 32 : i64, TILE_N = 32 : i64}, tile.kernel, tile.launch = {threads = 256 : i64}, tile.pipeline}
// CHECK-NOT: tile.check_multiple
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[K:.*]] = memref.dim %[[A]], %[[C1]] : memref<?x?xf32>
// CHECK-NOT: tile.check_multiple
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[K]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<32x32xf32>)
// CHECK: "tile.dot"
// CHECK: "tile.store_slice"

@autotune(TILE_M in [32, 256], TILE_N in [32, 256], TILE_K in [4, 32])
@launch(256)
@pipeline
kernel gemm(A: tensor<f32>[M, K],
              B: tensor<f32>[K, N],
              C: tensor<f32>[M, N],
              alpha: f32,
              beta: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y


  var acc: tile<f32>[TILE_M, TILE_N] = 0.0


  for kt in range(0, K, TILE_K) {
    var a = A[pm * TILE_M :+ TILE_M, kt :+ TILE_K]
    var b = B[kt :+ TILE_K, pn * TILE_N :+ TILE_N]
    acc += dot(a, b)
  }


  let c_old = C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N]
  C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = alpha * acc + beta * c_old
}
