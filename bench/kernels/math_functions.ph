// Test kernel: the math builtins of issue 29 on every element of X (and Z, W
// as second and third operands), in f32, f16 and f64, one B-element slice per
// CTA (ragged N: the tail is masked). Row k of each Y holds, for k = 0..15:
// erf, exp2, log2, rsqrt, sigmoid, floor, ceil, round, sin, cos, pow(x, z),
// fma(x, z, w), clamp(x, z, w), isnan(x) + 2 isinf(x), log1p(x) and expm1(x).
// test_math_functions_gpu.py measures each result's error in ulps against
// numpy/mpmath and holds it to the bounds in docs/language.md.
@autotune(B in [1024])
@launch(256)
kernel math_functions(
  X: tensor<f32>[N], Z: tensor<f32>[N], W: tensor<f32>[N], Y: tensor<f32>[16, N],
  X16: tensor<f16>[N], Z16: tensor<f16>[N], W16: tensor<f16>[N], Y16: tensor<f16>[16, N],
  X64: tensor<f64>[N], Z64: tensor<f64>[N], W64: tensor<f64>[N], Y64: tensor<f64>[16, N]
) {
  let s = ctx.block.x * B
  let x = X[s :+ B]
  let z = Z[s :+ B]
  let w = W[s :+ B]
  Y[0, s :+ B] = erf(x)
  Y[1, s :+ B] = exp2(x)
  Y[2, s :+ B] = log2(x)
  Y[3, s :+ B] = rsqrt(x)
  Y[4, s :+ B] = sigmoid(x)
  Y[5, s :+ B] = floor(x)
  Y[6, s :+ B] = ceil(x)
  Y[7, s :+ B] = round(x)
  Y[8, s :+ B] = sin(x)
  Y[9, s :+ B] = cos(x)
  Y[10, s :+ B] = pow(x, z)
  Y[11, s :+ B] = fma(x, z, w)
  Y[12, s :+ B] = clamp(x, z, w)
  Y[13, s :+ B] = where(isnan(x), 1.0, 0.0) + where(isinf(x), 2.0, 0.0)
  Y[14, s :+ B] = log1p(x)
  Y[15, s :+ B] = expm1(x)
  let h = X16[s :+ B]
  let hz = Z16[s :+ B]
  let hw = W16[s :+ B]
  Y16[0, s :+ B] = erf(h)
  Y16[1, s :+ B] = exp2(h)
  Y16[2, s :+ B] = log2(h)
  Y16[3, s :+ B] = rsqrt(h)
  Y16[4, s :+ B] = sigmoid(h)
  Y16[5, s :+ B] = floor(h)
  Y16[6, s :+ B] = ceil(h)
  Y16[7, s :+ B] = round(h)
  Y16[8, s :+ B] = sin(h)
  Y16[9, s :+ B] = cos(h)
  Y16[10, s :+ B] = pow(h, hz)
  Y16[11, s :+ B] = fma(h, hz, hw)
  Y16[12, s :+ B] = clamp(h, hz, hw)
  Y16[13, s :+ B] = where(isnan(h), 1.0, 0.0) + where(isinf(h), 2.0, 0.0)
  Y16[14, s :+ B] = log1p(h)
  Y16[15, s :+ B] = expm1(h)
  let d = X64[s :+ B]
  let dz = Z64[s :+ B]
  let dw = W64[s :+ B]
  Y64[0, s :+ B] = erf(d)
  Y64[1, s :+ B] = exp2(d)
  Y64[2, s :+ B] = log2(d)
  Y64[3, s :+ B] = rsqrt(d)
  Y64[4, s :+ B] = sigmoid(d)
  Y64[5, s :+ B] = floor(d)
  Y64[6, s :+ B] = ceil(d)
  Y64[7, s :+ B] = round(d)
  Y64[8, s :+ B] = sin(d)
  Y64[9, s :+ B] = cos(d)
  Y64[10, s :+ B] = pow(d, dz)
  Y64[11, s :+ B] = fma(d, dz, dw)
  Y64[12, s :+ B] = clamp(d, dz, dw)
  Y64[13, s :+ B] = where(isnan(d), 1.0, 0.0) + where(isinf(d), 2.0, 0.0)
  Y64[14, s :+ B] = log1p(d)
  Y64[15, s :+ B] = expm1(d)
}
