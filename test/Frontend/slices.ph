// Slices lower to tile.load_slice / tile.store_slice (masked: nothing here
// marks a dimension in bounds). Point subscripts drop their dimension.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @slices(
// CHECK-SAME: %[[A:.*]]: memref<?x64xf32> {tile.dims = ["M", "64"], tile.name = "A"}
// CHECK-SAME: %[[B:.*]]: memref<?x64xf32> {tile.dims = ["M", "64"], tile.name = "B"}
// CHECK-SAME: %[[V:.*]]: memref<?xf16> {tile.dims = ["N"], tile.name = "V"}
// CHECK-SAME: %[[I:.*]]: i32 {tile.name = "i"}
kernel slices(A: tensor<f32>[M, 64], B: tensor<f32>[M, 64], V: tensor<f16>[N], i: i32) {
  // CHECK: %[[R:.*]] = "tile.block_id"() {dim = 0 : i64} : () -> index
  let r = ctx.block.x

  // `s :+ n`: start s, n elements.
  // CHECK: %[[C16:.*]] = arith.constant 16 : index
  // CHECK: %[[S:.*]] = arith.muli %[[R]], %[[C16]] : index
  // CHECK: %[[C0:.*]] = arith.constant 0 : index
  // CHECK: %[[T:.*]] = "tile.load_slice"(%[[A]], %[[S]], %[[C0]]) : (memref<?x64xf32>, index, index) -> tensor<16x64xf32>
  let t = A[r * 16 :+ 16, 0 :+ 64]

  // `a : b` whose length folds to 16; `:` over a static extent starts at 0.
  // CHECK: "tile.load_slice"(%[[A]], %{{.*}}, %{{.*}}) : (memref<?x64xf32>, index, index) -> tensor<16x64xf32>
  let u = A[r * 16 : r * 16 + 16, :]

  // One element: a 1x1 slice and tensor.extract.
  // CHECK: %[[C3:.*]] = arith.constant 3 : index
  // CHECK: %[[ONE:.*]] = "tile.load_slice"(%[[A]], %[[R]], %[[C3]]) : (memref<?x64xf32>, index, index) -> tensor<1x1xf32>
  // CHECK: %[[E:.*]] = tensor.extract %[[ONE]][%{{.*}}, %{{.*}}] : tensor<1x1xf32>
  let e = A[r, 3]

  // A row: the point dimension is collapsed away.
  // CHECK: %[[ROW2:.*]] = "tile.load_slice"(%[[A]], %[[R]], %{{.*}}) : (memref<?x64xf32>, index, index) -> tensor<1x64xf32>
  // CHECK: %[[ROW:.*]] = tensor.collapse_shape %[[ROW2]] {{\[}}[0, 1]] : tensor<1x64xf32> into tensor<64xf32>
  let row = A[r, 0 :+ 64]

  // An i32 start is cast to index.
  // CHECK: %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
  // CHECK: "tile.load_slice"(%[[V]], %[[II]]) : (memref<?xf16>, index) -> tensor<128xf16>
  let v = V[i :+ 128]

  // CHECK: %[[SUM:.*]] = arith.addf %[[T]], %{{.*}} : tensor<16x64xf32>
  // CHECK: "tile.store_slice"(%[[SUM]], %[[B]], %{{.*}}, %{{.*}}) : (tensor<16x64xf32>, memref<?x64xf32>, index, index) -> ()
  B[r * 16 :+ 16, :] = t + u

  // Storing a row expands it back to 1x64.
  // CHECK: %[[X:.*]] = tensor.expand_shape %[[ROW]] {{\[}}[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  // CHECK: "tile.store_slice"(%[[X]], %[[B]], %[[R]], %{{.*}}) : (tensor<1x64xf32>, memref<?x64xf32>, index, index) -> ()
  B[r, 0 :+ 64] = row

  // Storing a scalar into one element splats it to 1x1.
  // CHECK: %[[C5:.*]] = arith.constant 5 : index
  // CHECK: %[[SP:.*]] = tensor.splat %[[E]] : tensor<1x1xf32>
  // CHECK: "tile.store_slice"(%[[SP]], %[[B]], %[[R]], %[[C5]])
  B[r, 5] = e

  // A literal stored into a slice is a dense constant of the slice's type.
  // CHECK: %[[K:.*]] = arith.constant dense<1.000000e+00> : tensor<16x64xf32>
  // CHECK: "tile.store_slice"(%[[K]], %[[B]],
  B[0 :+ 16, 0 :+ 64] = 1.0

  // Compound assignment to a slice: load, combine, store at the same starts.
  // CHECK: %[[OLD:.*]] = "tile.load_slice"(%[[B]], %[[P:.*]], %[[Q:.*]]) : (memref<?x64xf32>, index, index) -> tensor<16x64xf32>
  // CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[T]] : tensor<16x64xf32>
  // CHECK: "tile.store_slice"(%[[NEW]], %[[B]], %[[P]], %[[Q]])
  B[r * 16 :+ 16, 0 :+ 64] += t
  // CHECK: return
}
