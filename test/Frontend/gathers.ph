// Gathers and scatters with index tiles become the offset form of tile IR:
// per dimension a coordinate tile in the result's shape (the index tile cast to
// index, or start + range for a span), row-major offsets from the extents, and
// an unsigned compare per dimension (a negative index is out of bounds too),
// and-ed with the mask of masked(...).
// RUN: phobos compile %s --kernel embed --emit=tile | FileCheck %s --check-prefix=EMBED
// RUN: phobos compile %s --kernel scatter --emit=tile | FileCheck %s --check-prefix=SCATTER
// RUN: phobos compile %s --kernel pairs --emit=tile | FileCheck %s --check-prefix=PAIRS

kernel embed(W: tensor<f16>[V, D], I: tensor<i32>[B], Y: tensor<f16>[B, D]) {
  let rows = I[ctx.block.x * 16 :+ 16]
  Y[ctx.block.x * 16 :+ 16, 0 :+ 64] = W[rows, 0 :+ 64]
}

// EMBED-LABEL: func.func @embed
// EMBED:      %[[ROWS:.*]] = "tile.load_slice"(%arg1
// EMBED:      %[[IDX:.*]] = arith.index_cast %[[ROWS]] : tensor<16xi32> to tensor<16xindex>
// EMBED:      %[[R:.*]] = "tile.broadcast"(%{{.*}}) : (tensor<16x1xindex>) -> tensor<16x64xindex>
// EMBED:      arith.cmpi ult, %[[R]], %{{.*}} : tensor<16x64xindex>
// EMBED:      %[[C:.*]] = "tile.broadcast"(%{{.*}}) : (tensor<1x64xindex>) -> tensor<16x64xindex>
// EMBED:      arith.cmpi ult, %[[C]]
// EMBED:      %[[MASK:.*]] = arith.andi
// EMBED:      %[[SCALED:.*]] = arith.muli %[[R]], %{{.*}} : tensor<16x64xindex>
// EMBED:      %[[OFF:.*]] = arith.addi %[[SCALED]], %[[C]] : tensor<16x64xindex>
// EMBED:      "tile.load"(%arg0, %[[OFF]], %[[MASK]]) : (memref<?x?xf16>, tensor<16x64xindex>, tensor<16x64xi1>) -> tensor<16x64xf16>

kernel scatter(X: tensor<f32>[N], I: tensor<i32>[M], V: tensor<f32>[M]) {
  let idx = I[ctx.block.x * 64 :+ 64]
  let v = V[ctx.block.x * 64 :+ 64]
  masked(X[idx], v > 0.0) = v
}

// SCATTER-LABEL: func.func @scatter
// SCATTER:      %[[IDX:.*]] = arith.index_cast %{{.*}} : tensor<64xi32> to tensor<64xindex>
// SCATTER:      %[[IN:.*]] = arith.cmpi ult, %[[IDX]]
// SCATTER:      %[[USER:.*]] = arith.cmpf ogt
// SCATTER:      %[[MASK:.*]] = arith.andi %[[IN]], %[[USER]] : tensor<64xi1>
// SCATTER:      "tile.store"(%{{.*}}, %arg0, %[[IDX]], %[[MASK]]) : (tensor<64xf32>, memref<?xf32>, tensor<64xindex>, tensor<64xi1>) -> ()

kernel pairs(X: tensor<f32>[M, 8], R: tensor<i64>[B], C: tensor<i32>[B], Y: tensor<f32>[B]) {
  Y[0 :+ 32] = X[R[0 :+ 32], C[0 :+ 32]]
}

// PAIRS-LABEL: func.func @pairs
// PAIRS:      %[[R:.*]] = arith.index_cast %{{.*}} : tensor<32xi64> to tensor<32xindex>
// PAIRS:      %[[C:.*]] = arith.index_cast %{{.*}} : tensor<32xi32> to tensor<32xindex>
// PAIRS:      %[[SCALED:.*]] = arith.muli %[[R]], %{{.*}} : tensor<32xindex>
// PAIRS:      %[[OFF:.*]] = arith.addi %[[SCALED]], %[[C]] : tensor<32xindex>
// PAIRS:      "tile.load"(%arg0, %[[OFF]], %{{.*}}) : (memref<?x8xf32>, tensor<32xindex>, tensor<32xi1>) -> tensor<32xf32>
