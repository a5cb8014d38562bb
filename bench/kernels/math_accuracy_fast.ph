// Test kernel: math_accuracy.ph under @fastmath (fastmath<afn> on every math
// op and division), for the looser bounds of the fast forms that
// test_math_gpu.py holds it to (docs/language.md, "Math accuracy").
@fastmath
@autotune(B in [1024])
@launch(256)
kernel math_accuracy_fast(
  X: tensor<f32>[N], Z: tensor<f32>[N], Y: tensor<f32>[6, N],
  X16: tensor<f16>[N], Z16: tensor<f16>[N], Y16: tensor<f16>[6, N],
  X64: tensor<f64>[N], Z64: tensor<f64>[N], Y64: tensor<f64>[6, N]
) {
  let s = ctx.block.x * B
  let x = X[s :+ B]
  Y[0, s :+ B] = exp(x)
  Y[1, s :+ B] = log(x)
  Y[2, s :+ B] = sqrt(x)
  Y[3, s :+ B] = tanh(x)
  Y[4, s :+ B] = abs(x)
  Y[5, s :+ B] = x / Z[s :+ B]
  let h = X16[s :+ B]
  Y16[0, s :+ B] = exp(h)
  Y16[1, s :+ B] = log(h)
  Y16[2, s :+ B] = sqrt(h)
  Y16[3, s :+ B] = tanh(h)
  Y16[4, s :+ B] = abs(h)
  Y16[5, s :+ B] = h / Z16[s :+ B]
  let d = X64[s :+ B]
  Y64[0, s :+ B] = exp(d)
  Y64[1, s :+ B] = log(d)
  Y64[2, s :+ B] = sqrt(d)
  Y64[3, s :+ B] = tanh(d)
  Y64[4, s :+ B] = abs(d)
  Y64[5, s :+ B] = d / Z64[s :+ B]
}
