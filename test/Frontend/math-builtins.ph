// The math builtins of issue 29 in tile IR: upstream math ops (the NVVM pipeline picks
// the PTX), sigmoid as exp(-|x|) and two quotients, clamp as maximumf/minimumf,
// isnan/isinf as compares, min/max of two values elementwise (with an integer axis
// they reduce), argmax as max, compare, positions and a min reduction, iota as arange.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @mb(
kernel mb(A: tensor<f32>[M, 64], H: tensor<f16>[M, 64], I: tensor<i32>[M, 64], R: tensor<i32>[M], S: tensor<f32>[4]) {
  // CHECK: %[[T:.*]] = "tile.load_slice"({{.*}} -> tensor<16x64xf32>
  let t = A[0 :+ 16, 0 :+ 64]
  // CHECK: math.erf %[[T]] : tensor<16x64xf32>
  // CHECK: math.exp2 %[[T]] : tensor<16x64xf32>
  // CHECK: math.log2 %[[T]] : tensor<16x64xf32>
  // CHECK: math.log1p %[[T]] : tensor<16x64xf32>
  // CHECK: math.expm1 %[[T]] : tensor<16x64xf32>
  // CHECK: math.rsqrt %[[T]] : tensor<16x64xf32>
  // CHECK: math.floor %[[T]] : tensor<16x64xf32>
  // CHECK: math.ceil %[[T]] : tensor<16x64xf32>
  // CHECK: math.roundeven %[[T]] : tensor<16x64xf32>
  // CHECK: math.sin %[[T]] : tensor<16x64xf32>
  // CHECK: math.cos %[[T]] : tensor<16x64xf32>
  let u = erf(t) + exp2(t) + log2(t) + log1p(t) + expm1(t) + rsqrt(t) + floor(t) + ceil(t) + round(t) + sin(t) + cos(t)
  // CHECK: %[[AB:.*]] = math.absf %[[T]]
  // CHECK: %[[NEG:.*]] = arith.negf %[[AB]]
  // CHECK: %[[E:.*]] = math.exp %[[NEG]]
  // CHECK: %[[D:.*]] = arith.addf %{{.*}}, %[[E]]
  // CHECK: %[[POS:.*]] = arith.cmpf oge, %[[T]]
  // CHECK: %[[HI:.*]] = arith.divf %{{.*}}, %[[D]]
  // CHECK: %[[LO:.*]] = arith.divf %[[E]], %[[D]]
  // CHECK: arith.select %[[POS]], %[[HI]], %[[LO]] : tensor<16x64xi1>, tensor<16x64xf32>
  let sg = sigmoid(t)
  // CHECK: %[[P:.*]] = arith.constant dense<2.000000e+00> : tensor<16x64xf32>
  // CHECK: math.powf %[[T]], %[[P]] : tensor<16x64xf32>
  let p = pow(t, 2.0)
  // The f16 tile meets the f32 scalar at f32 (both converted), as in arithmetic.
  // CHECK: %[[H:.*]] = "tile.load_slice"({{.*}} -> tensor<16x64xf16>
  // CHECK: %[[HX:.*]] = arith.extf %[[H]] : tensor<16x64xf16> to tensor<16x64xf32>
  // CHECK: math.fma %[[HX]], %[[T]], %{{.*}} : tensor<16x64xf32>
  let f = fma(H[0 :+ 16, 0 :+ 64], t, S[0])
  // CHECK: %[[C1:.*]] = arith.maximumf %[[T]], %{{.*}} : tensor<16x64xf32>
  // CHECK: arith.minimumf %[[C1]], %{{.*}} : tensor<16x64xf32>
  let c = clamp(t, -1.0, 1.0)
  // CHECK: arith.cmpf uno, %[[T]], %[[T]] : tensor<16x64xf32>
  // CHECK: %[[MAG:.*]] = math.absf %[[T]]
  // CHECK: arith.cmpf oeq, %[[MAG]], %{{.*}} : tensor<16x64xf32>
  let bad = isnan(t) || isinf(t)
  // CHECK: arith.maximumf %[[T]], %{{.*}} : tensor<16x64xf32>
  let relu = max(t, 0.0)
  // CHECK: arith.minimumf %[[T]], %[[T]] : tensor<16x64xf32>
  let same = min(t, t)
  // CHECK: "tile.reduce"(%[[T]]) {axis = 1 : i64, kind = "max"} : (tensor<16x64xf32>) -> tensor<16xf32>
  let rows = max(t, 1)
  // argmax along axis 1: the row maxima broadcast back, matched (or NaN), the first position.
  // CHECK: %[[M:.*]] = "tile.reduce"(%[[T]]) {axis = 1 : i64, kind = "max"}
  // CHECK: %[[MX:.*]] = tensor.expand_shape %[[M]]
  // CHECK: %[[MB:.*]] = "tile.broadcast"(%[[MX]]) : (tensor<16x1xf32>) -> tensor<16x64xf32>
  // CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[T]], %[[MB]]
  // CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[T]], %[[T]]
  // CHECK: %[[HIT:.*]] = arith.ori %[[EQ]], %[[NAN]]
  // CHECK: "tile.range"() {end = 64 : i64, start = 0 : i64} : () -> tensor<64xi32>
  // CHECK: %[[CAND:.*]] = arith.select %[[HIT]], %{{.*}}, %{{.*}} : tensor<16x64xi1>, tensor<16x64xi32>
  // CHECK: "tile.reduce"(%[[CAND]]) {axis = 1 : i64, kind = "min"} : (tensor<16x64xi32>) -> tensor<16xi32>
  R[0 :+ 16] = argmax(t, 1)
  // CHECK: %[[I:.*]] = "tile.load_slice"({{.*}} -> tensor<16x64xi32>
  // CHECK: math.ctpop %[[I]] : tensor<16x64xi32>
  I[0 :+ 16, 0 :+ 64] = popcount(I[0 :+ 16, 0 :+ 64])
  // CHECK: "tile.range"() {end = 64 : i64, start = 0 : i64} : () -> tensor<64xi32>
  let k = iota(64)
}
