// Tile accumulators: `acc += dot(a, b)` is one tile.dot that accumulates into
// the loop-carried accumulator; a plain dot starts from zeros. f16/bf16 inputs
// accumulate in f32, i8 in i32. dot_t(a, b) is a @ b.T (a tile.transpose of b).
// A loop bound named by a dimension symbol is that runtime extent (memref.dim).
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @acc(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf16> {tile.dims = ["M", "K"], tile.name = "A"}
kernel acc(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N], D: tensor<f32>[M, N], I: tensor<i8>[64, 64], J: tensor<i32>[64, 64]) {
  // CHECK: %[[C1:.*]] = arith.constant 1 : index
  // CHECK: %[[K:.*]] = memref.dim %[[A]], %[[C1]] : memref<?x?xf16>
  // CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
  var acc: tile<f32>[64, 32] = 0.0
  // CHECK: %[[LOOP:.*]] = scf.for %[[KK:.*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<64x32xf32>) {
  for k in range(0, K, 16) {
    // CHECK: %[[LA:.*]] = "tile.load_slice"(%[[A]], %{{.*}}, %[[KK]]) : (memref<?x?xf16>, index, index) -> tensor<64x16xf16>
    // CHECK: %[[LB:.*]] = "tile.load_slice"(%{{.*}}, %[[KK]], %{{.*}}) : (memref<?x?xf16>, index, index) -> tensor<16x32xf16>
    // CHECK: %[[D1:.*]] = "tile.dot"(%[[LA]], %[[LB]], %[[ACC]]) : (tensor<64x16xf16>, tensor<16x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32>
    acc += dot(A[0 :+ 64, k :+ 16], B[k :+ 16, 0 :+ 32])
    // CHECK: %[[LC:.*]] = "tile.load_slice"(%[[A]], {{.*}} -> tensor<64x16xf16>
    // CHECK: %[[LD:.*]] = "tile.load_slice"(%[[A]], {{.*}} -> tensor<32x16xf16>
    // CHECK: %[[TR:.*]] = "tile.transpose"(%[[LD]]) {permutation = array<i64: 1, 0>} : (tensor<32x16xf16>) -> tensor<16x32xf16>
    // CHECK: %[[D2:.*]] = "tile.dot"(%[[LC]], %[[TR]], %[[D1]])
    acc += dot_t(A[0 :+ 64, k :+ 16], A[0 :+ 32, k :+ 16])
    // CHECK: scf.yield %[[D2]] : tensor<64x32xf32>
  }
  // CHECK: "tile.store_slice"(%[[LOOP]],
  C[0 :+ 64, 0 :+ 32] = acc
  // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
  // CHECK: %[[P:.*]] = "tile.dot"(%{{.*}}, %{{.*}}, %[[Z]])
  // CHECK: arith.addf %[[P]], %[[LOOP]] : tensor<64x32xf32>
  let p = dot(A[0 :+ 64, 0 :+ 16], B[0 :+ 16, 0 :+ 32])
  D[0 :+ 64, 0 :+ 32] = p + acc
  // CHECK: %[[Q:.*]] = "tile.load_slice"({{.*}} -> tensor<64x64xi8>
  // CHECK: %[[ZI:.*]] = arith.constant dense<0> : tensor<64x64xi32>
  // CHECK: "tile.dot"(%[[Q]], %[[Q]], %[[ZI]]) : (tensor<64x64xi8>, tensor<64x64xi8>, tensor<64x64xi32>) -> tensor<64x64xi32>
  let q = I[0 :+ 64, 0 :+ 64]
  J[0 :+ 64, 0 :+ 64] = dot(q, q)
}

// `x + dot(a, b)` and `dot(a, b) + x` with x of the dot's result type are one
// tile.dot that starts from x; an addend of another type (f16 here: the sum
// is f32) stays an addition after a dot from zeros.
// CHECK-LABEL: func.func @plus(
kernel plus(A: tensor<f16>[64, 16], B: tensor<f16>[16, 32], C: tensor<f32>[64, 32], E: tensor<f16>[64, 32]) {
  let a = A[0 :+ 64, 0 :+ 16]
  let b = B[0 :+ 16, 0 :+ 32]
  // CHECK: %[[LC:.*]] = "tile.load_slice"({{.*}} -> tensor<64x32xf32>
  let c = C[0 :+ 64, 0 :+ 32]
  // CHECK: %[[SC:.*]] = arith.mulf %[[LC]], %{{.*}} : tensor<64x32xf32>
  // CHECK-NEXT: %[[F1:.*]] = "tile.dot"(%{{.*}}, %{{.*}}, %[[SC]])
  // CHECK-NEXT: "tile.store_slice"(%[[F1]],
  C[0 :+ 64, 0 :+ 32] = c * 2.0 + dot(a, b)
  // CHECK: %[[F2:.*]] = "tile.dot"(%{{.*}}, %{{.*}}, %[[LC]])
  // CHECK-NEXT: "tile.store_slice"(%[[F2]],
  C[0 :+ 64, 0 :+ 32] = dot(a, b) + c
  // CHECK: %[[LE:.*]] = "tile.load_slice"({{.*}} -> tensor<64x32xf16>
  // CHECK: %[[ZF:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
  // CHECK: %[[D3:.*]] = "tile.dot"(%{{.*}}, %{{.*}}, %[[ZF]])
  // CHECK: arith.addf %{{.*}}, %[[D3]] : tensor<64x32xf32>
  E[0 :+ 64, 0 :+ 32] = E[0 :+ 64, 0 :+ 32] + dot(a, b)
}
