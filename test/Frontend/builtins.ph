// The builtins of the language (docs/language.md): math (math dialect), tmax/tmin, where
// (arith.select), reductions (tile.reduce; rowsum/rowmax/rowmin keep an extent-1
// last dimension), transpose, cumsum (tile.scan), tril (ranges, compare,
// select), conversions, program_id, ctx.grid, barrier, grid_barrier.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @bi(
// CHECK-SAME: attributes {tile.kernel, tile.persistent}
@persistent
kernel bi(A: tensor<f32>[M, 64], S: tensor<f32>[4]) {
  // CHECK: %[[T:.*]] = "tile.load_slice"({{.*}} -> tensor<16x64xf32>
  let t = A[0 :+ 16, 0 :+ 64]
  // CHECK: math.exp %[[T]] : tensor<16x64xf32>
  // CHECK: math.log %[[T]] : tensor<16x64xf32>
  // CHECK: math.sqrt %[[T]] : tensor<16x64xf32>
  // CHECK: math.tanh %[[T]] : tensor<16x64xf32>
  // CHECK: %[[ABS:.*]] = math.absf %[[T]] : tensor<16x64xf32>
  // CHECK: %[[E:.*]] = arith.addf %{{.*}}, %[[ABS]]
  let e = exp(t) + log(t) + sqrt(t) + tanh(t) + abs(t)
  // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
  // CHECK: arith.maximumf %[[T]], %[[Z]] : tensor<16x64xf32>
  // CHECK: arith.minimumf %[[T]], %[[E]] : tensor<16x64xf32>
  let m = tmax(t, 0.0) + tmin(t, e)
  // CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[T]], %{{.*}} : tensor<16x64xf32>
  // CHECK: arith.select %[[POS]], %[[T]], %{{.*}} : tensor<16x64xi1>, tensor<16x64xf32>
  let w = where(t > 0.0, t, 0.0)
  // sum(t): every element (one reduction per dimension).
  // CHECK: %[[S1:.*]] = "tile.reduce"(%[[T]]) {axis = 1 : i64, kind = "sum"} : (tensor<16x64xf32>) -> tensor<16xf32>
  // CHECK: %[[S:.*]] = "tile.reduce"(%[[S1]]) {axis = 0 : i64, kind = "sum"} : (tensor<16xf32>) -> f32
  let s = sum(t)
  // CHECK: "tile.reduce"(%[[T]]) {axis = 0 : i64, kind = "sum"} : (tensor<16x64xf32>) -> tensor<64xf32>
  let s0 = sum(t, 0)
  // CHECK: %[[RS:.*]] = "tile.reduce"(%[[T]]) {axis = 1 : i64, kind = "sum"} : (tensor<16x64xf32>) -> tensor<16xf32>
  // CHECK: tensor.expand_shape %[[RS]] {{\[}}[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  let rs = rowsum(t)
  // CHECK: %[[RM:.*]] = "tile.reduce"(%[[T]]) {axis = 1 : i64, kind = "max"} : (tensor<16x64xf32>) -> tensor<16xf32>
  // CHECK: tensor.expand_shape %[[RM]] {{\[}}[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  let rm = rowmax(t)
  // max/min take the forms of sum; rowmin keeps an extent-1 dimension as rowmax does.
  // CHECK: "tile.reduce"(%[[T]]) {axis = 0 : i64, kind = "max"} : (tensor<16x64xf32>) -> tensor<64xf32>
  let cx = max(t, 0)
  // CHECK: %[[N1:.*]] = "tile.reduce"(%[[T]]) {axis = 1 : i64, kind = "min"} : (tensor<16x64xf32>) -> tensor<16xf32>
  // CHECK: "tile.reduce"(%[[N1]]) {axis = 0 : i64, kind = "min"} : (tensor<16xf32>) -> f32
  let tn = min(t)
  // CHECK: %[[RN:.*]] = "tile.reduce"(%[[T]]) {axis = 1 : i64, kind = "min"} : (tensor<16x64xf32>) -> tensor<16xf32>
  // CHECK: tensor.expand_shape %[[RN]] {{\[}}[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  let rn = rowmin(t)
  // CHECK: "tile.transpose"(%[[T]]) {permutation = array<i64: 1, 0>} : (tensor<16x64xf32>) -> tensor<64x16xf32>
  let tr = transpose(t)
  // cumsum(x) scans down the rows (axis 0), as the original Phobos and Triton; cumsum(x, 1) along them.
  // CHECK: "tile.scan"(%[[T]]) {axis = 0 : i64, kind = "sum"} : (tensor<16x64xf32>) -> tensor<16x64xf32>
  let cs = cumsum(t)
  // CHECK: "tile.scan"(%[[T]]) {axis = 1 : i64, kind = "sum"} : (tensor<16x64xf32>) -> tensor<16x64xf32>
  let cs1 = cumsum(t, 1)
  // tril: keep x[i, j] where i >= j.
  // CHECK: %[[SQ:.*]] = "tile.load_slice"({{.*}} -> tensor<16x16xf32>
  // CHECK: %[[RR:.*]] = "tile.range"() {end = 16 : i64, start = 0 : i64} : () -> tensor<16xi32>
  // CHECK: %[[RX:.*]] = tensor.expand_shape %[[RR]] {{\[}}[0, 1]] output_shape [16, 1]
  // CHECK: %[[ROWS:.*]] = "tile.broadcast"(%[[RX]]) : (tensor<16x1xi32>) -> tensor<16x16xi32>
  // CHECK: %[[CR:.*]] = "tile.range"() {end = 16 : i64, start = 0 : i64} : () -> tensor<16xi32>
  // CHECK: %[[CX:.*]] = tensor.expand_shape %[[CR]] {{\[}}[0, 1]] output_shape [1, 16]
  // CHECK: %[[COLS:.*]] = "tile.broadcast"(%[[CX]]) : (tensor<1x16xi32>) -> tensor<16x16xi32>
  // CHECK: %[[KEEP:.*]] = arith.cmpi sge, %[[ROWS]], %[[COLS]] : tensor<16x16xi32>
  // CHECK: %[[ZT:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  // CHECK: arith.select %[[KEEP]], %[[SQ]], %[[ZT]] : tensor<16x16xi1>, tensor<16x16xf32>
  let lo = tril(A[0 :+ 16, 0 :+ 16])
  // Conversions (f16 <-> bf16 goes through f32; bool converts unsigned).
  // CHECK: %[[H:.*]] = arith.truncf %[[T]] : tensor<16x64xf32> to tensor<16x64xf16>
  // CHECK: %[[HX:.*]] = arith.extf %[[H]] : tensor<16x64xf16> to tensor<16x64xf32>
  // CHECK: arith.truncf %[[HX]] : tensor<16x64xf32> to tensor<16x64xbf16>
  // CHECK: arith.fptosi %[[T]] : tensor<16x64xf32> to tensor<16x64xi32>
  // CHECK: %[[B:.*]] = arith.cmpf ogt
  // CHECK: %[[BI:.*]] = arith.extui %[[B]] : tensor<16x64xi1> to tensor<16x64xi32>
  // CHECK: arith.sitofp %[[BI]] : tensor<16x64xi32> to tensor<16x64xf32>
  let h = f16(t)
  let b = bf16(h)
  let i = i32(t)
  let f = f32(i32(t > 0.0))
  // CHECK: "tile.block_id"() {dim = 1 : i64} : () -> index
  let pid = program_id(1)
  // CHECK: %[[GZ:.*]] = "tile.grid_dim"() {dim = 2 : i64} : () -> index
  // CHECK: %[[GI:.*]] = arith.index_cast %[[GZ]] : index to i64
  // CHECK: %[[G:.*]] = arith.sitofp %[[GI]] : i64 to f32
  let g = f32(ctx.grid.z)
  // CHECK: "tile.barrier"() : () -> ()
  barrier()
  // CHECK: "tile.grid_barrier"() : () -> ()
  grid_barrier()
  // CHECK: %[[OUT:.*]] = arith.addf %[[S]], %[[G]] : f32
  // CHECK: %[[SP:.*]] = tensor.splat %[[OUT]] : tensor<1xf32>
  // CHECK: "tile.store_slice"(%[[SP]],
  S[0] = s + g
}
