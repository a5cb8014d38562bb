// The `gemm` kernel of the @aligned reference page (with @aligned), unchanged.
// The accumulator is the loop's iter_arg and `acc += dot(a, b)` one tile.dot;
// K (the loop bound) is the runtime extent after its entry check.
// RUN: phobos check %s
// RUN: phobos compile --emit=tile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s
// RUN: phobos compile --emit=tile -D TILE_M=128 -D TILE_N=64 -D TILE_K=16 %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s --check-prefix=DEFINES

// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf32> {tile.dims = ["M", "K"], tile.name = "A"}
// CHECK-SAME: %[[B:[a-z0-9]+]]: memref<?x?xf32> {tile.dims = ["K", "N"], tile.name = "B"}
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<?x?xf32> {tile.dims = ["M", "N"], tile.name = "C"}
// CHECK-SAME: %[[ALPHA:[a-z0-9]+]]: f32 {tile.name = "alpha"}
// CHECK-SAME: %[[BETA:[a-z0-9]+]]: f32 {tile.name = "beta"}
// CHECK-SAME: tile.aligned = {K = 4 : i64, M = 32 : i64, N = 32 : i64}
// CHECK-SAME: tile.autotune = {TILE_K = array<i64: 4, 8, 16, 32>, TILE_M = array<i64: 32, 64, 128, 256>, TILE_N = array<i64: 32, 64, 128, 256>}
// CHECK-SAME: tile.bindings = {TILE_K = 4 : i64, TILE_M = 32 : i64, TILE_N = 32 : i64}
// CHECK-SAME: tile.kernel, tile.launch = {threads = 256 : i64}, tile.pipeline
// CHECK: "tile.check_multiple"(%{{.*}}) {divisor = 32 : i64, symbol = "M"}
// CHECK: %[[K:.*]] = "tile.check_multiple"(%{{.*}}) {divisor = 4 : i64, symbol = "K"}
// CHECK: "tile.check_multiple"(%{{.*}}) {divisor = 32 : i64, symbol = "N"}
// CHECK: %[[PM:.*]] = "tile.block_id"() {dim = 0 : i64}
// CHECK: %[[PN:.*]] = "tile.block_id"() {dim = 1 : i64}
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
// CHECK: %[[STEP:.*]] = arith.constant 4 : index
// CHECK: %[[ACC:.*]] = scf.for %[[KT:.*]] = %{{.*}} to %[[K]] step %[[STEP]] iter_args(%[[IT:.*]] = %[[ZERO]]) -> (tensor<32x32xf32>) {
// CHECK:   %[[AT:.*]] = "tile.load_slice"(%[[A]], %{{.*}}, %[[KT]]) : (memref<?x?xf32>, index, index) -> tensor<32x4xf32>
// CHECK:   %[[BT:.*]] = "tile.load_slice"(%[[B]], %[[KT]], %{{.*}}) : (memref<?x?xf32>, index, index) -> tensor<4x32xf32>
// CHECK:   %[[DOT:.*]] = "tile.dot"(%[[AT]], %[[BT]], %[[IT]]) : (tensor<32x4xf32>, tensor<4x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
// CHECK:   scf.yield %[[DOT]] : tensor<32x32xf32>
// CHECK: }
// CHECK: %[[OLD:.*]] = "tile.load_slice"(%[[C]], %{{.*}}, %{{.*}}) : (memref<?x?xf32>, index, index) -> tensor<32x32xf32>
// CHECK: %[[SA:.*]] = tensor.splat %[[ALPHA]] : tensor<32x32xf32>
// CHECK: %[[X:.*]] = arith.mulf %[[SA]], %[[ACC]] : tensor<32x32xf32>
// CHECK: %[[SB:.*]] = tensor.splat %[[BETA]] : tensor<32x32xf32>
// CHECK: %[[Y:.*]] = arith.mulf %[[SB]], %[[OLD]] : tensor<32x32xf32>
// CHECK: %[[Z:.*]] = arith.addf %[[X]], %[[Y]] : tensor<32x32xf32>
// CHECK: "tile.store_slice"(%[[Z]], %[[C]], %{{.*}}, %{{.*}}) : (tensor<32x32xf32>, memref<?x?xf32>, index, index) -> ()

// DEFINES: tile.aligned = {K = 16 : i64, M = 128 : i64, N = 64 : i64}
// DEFINES-SAME: tile.bindings = {TILE_K = 16 : i64, TILE_M = 128 : i64, TILE_N = 64 : i64}
// DEFINES: "tile.dot"({{.*}}) : (tensor<128x16xf32>, tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<128x64xf32>

@autotune(TILE_M in [32, 256], TILE_N in [32, 256], TILE_K in [4, 32])
@launch(256)
@pipeline
@aligned(M = TILE_M, N = TILE_N, K = TILE_K)
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
