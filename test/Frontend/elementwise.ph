// Elementwise math is arith on tensors. Scalars splat, extent-1 dimensions
// broadcast (tile.broadcast), lower-rank tiles gain leading dimensions, and
// literals take the type of the other operand (dense constants on tiles).
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @ew(
// CHECK-SAME: %[[ALPHA:[a-z0-9]+]]: f32 {tile.name = "alpha"}, %[[N:[a-z0-9]+]]: i32 {tile.name = "n"}
kernel ew(A: tensor<f32>[M, 64], C: tensor<f32>[M, 64], I: tensor<i32>[32, 32], alpha: f32, n: i32) {
  // CHECK: %[[T:.*]] = "tile.load_slice"({{.*}} -> tensor<32x64xf32>
  let t = A[0 :+ 32, 0 :+ 64]
  // CHECK: %[[COL:.*]] = "tile.load_slice"({{.*}} -> tensor<32x1xf32>
  let col = A[0 :+ 32, 0 :+ 1]
  // CHECK: %[[ROW:.*]] = tensor.collapse_shape {{.*}} into tensor<64xf32>
  let row = A[0, 0 :+ 64]

  // CHECK: %[[SA:.*]] = tensor.splat %[[ALPHA]] : tensor<32x64xf32>
  // CHECK: %[[A:.*]] = arith.mulf %[[SA]], %[[T]] : tensor<32x64xf32>
  let a = alpha * t
  // CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<32x64xf32>
  // CHECK: %[[B:.*]] = arith.mulf %[[T]], %[[TWO]] : tensor<32x64xf32>
  let b = t * 2
  // CHECK: %[[BC:.*]] = "tile.broadcast"(%[[COL]]) : (tensor<32x1xf32>) -> tensor<32x64xf32>
  // CHECK: %[[C:.*]] = arith.subf %[[T]], %[[BC]] : tensor<32x64xf32>
  let c = t - col
  // CHECK: %[[R2:.*]] = tensor.expand_shape %[[ROW]] {{\[}}[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  // CHECK: %[[BR:.*]] = "tile.broadcast"(%[[R2]]) : (tensor<1x64xf32>) -> tensor<32x64xf32>
  // CHECK: %[[D:.*]] = arith.divf %[[T]], %[[BR]] : tensor<32x64xf32>
  let d = t / row
  // CHECK: %[[E:.*]] = arith.negf %[[T]] : tensor<32x64xf32>
  let e = -t

  // Integers: remsi/divsi (truncating, as in C), scalar i32 math stays i32.
  // CHECK: %[[K:.*]] = "tile.load_slice"({{.*}} -> tensor<32x32xi32>
  let k = I[0 :+ 32, 0 :+ 32]
  // CHECK: %[[THREE:.*]] = arith.constant dense<3> : tensor<32x32xi32>
  // CHECK: %[[REM:.*]] = arith.remsi %[[K]], %[[THREE]] : tensor<32x32xi32>
  // CHECK: %[[C2:.*]] = arith.constant 2 : i32
  // CHECK: %[[N2:.*]] = arith.muli %[[N]], %[[C2]] : i32
  // CHECK: %[[SN:.*]] = tensor.splat %[[N2]] : tensor<32x32xi32>
  // CHECK: %[[F:.*]] = arith.addi %[[REM]], %[[SN]] : tensor<32x32xi32>
  let f = k % 3 + n * 2

  // Comparisons give i1 tiles; && || ! are andi / ori / xori with true.
  // CHECK: %[[G1:.*]] = arith.cmpf ogt, %[[T]], %{{.*}} : tensor<32x64xf32>
  // CHECK: %[[G2:.*]] = arith.cmpf olt, %[[T]], %{{.*}} : tensor<32x64xf32>
  // CHECK: %[[G3:.*]] = arith.andi %[[G1]], %[[G2]] : tensor<32x64xi1>
  // CHECK: %[[G4:.*]] = arith.cmpf oeq, %[[T]], %{{.*}} : tensor<32x64xf32>
  // CHECK: %[[TRUE:.*]] = arith.constant dense<true> : tensor<32x64xi1>
  // CHECK: %[[G5:.*]] = arith.xori %[[G4]], %[[TRUE]] : tensor<32x64xi1>
  // CHECK: %[[G:.*]] = arith.ori %[[G3]], %[[G5]] : tensor<32x64xi1>
  let g = t > 0.5 && t < alpha || !(t == 1.0)

  // CHECK: %[[AB:.*]] = arith.addf %[[A]], %[[B]]
  // CHECK: %[[CD:.*]] = arith.addf %[[C]], %[[D]]
  // CHECK: %[[CDE:.*]] = arith.addf %[[CD]], %[[E]]
  // CHECK: %[[SEL:.*]] = arith.select %[[G]], %[[AB]], %[[CDE]] : tensor<32x64xi1>, tensor<32x64xf32>
  // CHECK: "tile.store_slice"(%[[SEL]],
  C[0 :+ 32, 0 :+ 64] = where(g, a + b, c + d + e)
  // CHECK: %[[H:.*]] = arith.divsi %[[F]], %{{.*}} : tensor<32x32xi32>
  // CHECK: "tile.store_slice"(%[[H]],
  I[0 :+ 32, 0 :+ 32] = f / 2
}
