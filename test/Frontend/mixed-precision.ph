// Mixed precision: operands of different types meet (f16 with bf16 at f32, an
// integer with a float at the float, a narrower integer at the wider), stores
// and declared variables convert to their type, and dot converts mixed operands
// before the tile.dot, which keeps one operand type. The conversions are arith
// ops in the tile IR, so tile-verify accepts it.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s
// RUN: phobos run %s --kernel hgemm --interpret --args 'f16[40,24] f16[24,36] f16[40,36] 1.5' | FileCheck %s --check-prefix=INTERP

// CHECK-LABEL: func.func @meet(
kernel meet(H: tensor<f16>[N], B: tensor<bf16>[N], F: tensor<f32>[N], I: tensor<i32>[N], n: i32) {
  let s = ctx.block.x * 64
  // CHECK: %[[H:.*]] = "tile.load_slice"({{.*}} -> tensor<64xf16>
  // CHECK: %[[HW:.*]] = arith.extf %[[H]] : tensor<64xf16> to tensor<64xf32>
  // CHECK: %[[B:.*]] = "tile.load_slice"({{.*}} -> tensor<64xbf16>
  // CHECK: %[[BW:.*]] = arith.extf %[[B]] : tensor<64xbf16> to tensor<64xf32>
  // CHECK: %[[SUM:.*]] = arith.addf %[[HW]], %[[BW]] : tensor<64xf32>
  // CHECK: "tile.store_slice"(%[[SUM]], {{.*}} : (tensor<64xf32>, memref<?xf32>
  F[s :+ 64] = H[s :+ 64] + B[s :+ 64]
  // An i32 with an index meets at index (64 bits); the store into i32 truncates it back.
  // CHECK: %[[N:.*]] = arith.index_cast %arg4 : i32 to index
  // CHECK: %[[ROW:.*]] = arith.addi %[[N]], %{{.*}} : index
  // CHECK: %[[NARROW:.*]] = arith.index_cast %[[ROW]] : index to i32
  // CHECK: tensor.splat %[[NARROW]] : tensor<64xi32>
  I[s :+ 64] = n + ctx.block.x
  // A float tile stored into an integer tensor truncates toward zero (fptosi).
  // CHECK: %[[X:.*]] = "tile.load_slice"({{.*}} -> tensor<64xf32>
  // CHECK: arith.fptosi %[[X]] : tensor<64xf32> to tensor<64xi32>
  I[s :+ 64] = F[s :+ 64]
  // An integer tile with an f16 tile: the integers convert to f16 (sitofp); the
  // product is an f16 tile.
  // CHECK: %[[IV:.*]] = "tile.load_slice"({{.*}} -> tensor<64xi32>
  // CHECK: %[[IF:.*]] = arith.sitofp %[[IV]] : tensor<64xi32> to tensor<64xf16>
  // CHECK: arith.mulf %{{.*}}, %[[IF]] : tensor<64xf16>
  H[s :+ 64] = H[s :+ 64] * I[s :+ 64]
}

// CHECK-LABEL: func.func @mixed_dot(
kernel mixed_dot(A: tensor<f16>[M, K], B: tensor<bf16>[K, N], C: tensor<f32>[M, N]) {
  // CHECK: scf.for
  // CHECK: %[[A:.*]] = "tile.load_slice"({{.*}} -> tensor<32x16xf16>
  // CHECK: %[[AW:.*]] = arith.extf %[[A]] : tensor<32x16xf16> to tensor<32x16xf32>
  // CHECK: %[[B:.*]] = "tile.load_slice"({{.*}} -> tensor<16x32xbf16>
  // CHECK: %[[BW:.*]] = arith.extf %[[B]] : tensor<16x32xbf16> to tensor<16x32xf32>
  // CHECK: "tile.dot"(%[[AW]], %[[BW]], %{{.*}}) : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  var acc: tile<f32>[32, 32] = 0.0
  for k in range(0, K, 16) {
    acc += dot(A[ctx.block.x * 32 :+ 32, k :+ 16], B[k :+ 16, ctx.block.y * 32 :+ 32])
  }
  C[ctx.block.x * 32 :+ 32, ctx.block.y * 32 :+ 32] = acc
}

// The original Phobos style: f16 inputs, an f32 accumulator, an f16 output.
// CHECK-LABEL: func.func @hgemm(
// CHECK: "tile.dot"({{.*}}) : (tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}} : tensor<16x16xf32>
// CHECK: %[[O:.*]] = arith.truncf %[[SCALED]] : tensor<16x16xf32> to tensor<16x16xf16>
// CHECK: "tile.store_slice"(%[[O]],
// INTERP: ran hgemm in the interpreter
// INTERP: O: float16[40, 36]
@autotune(TM in [16], TN in [16], TK in [8])
@launch(128)
kernel hgemm(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f16>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TM, TN] = 0.0
  for k in range(0, K, TK) {
    acc += dot(A[pm * TM :+ TM, k :+ TK], B[k :+ TK, pn * TN :+ TN])
  }
  O[pm * TM :+ TM, pn * TN :+ TN] = alpha * acc
}

// An f16 accumulator: `acc += dot(a, b)` accumulates in the tile.dot, in f16.
// CHECK-LABEL: func.func @half_acc(
// CHECK: "tile.dot"({{.*}}) : (tensor<16x8xf16>, tensor<8x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
kernel half_acc(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f16>[M, N]) {
  var acc: tile<f16>[16, 16] = 0.0
  for k in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 16 :+ 16, k :+ 8], B[k :+ 8, ctx.block.y * 16 :+ 16])
  }
  O[ctx.block.x * 16 :+ 16, ctx.block.y * 16 :+ 16] = acc
}
