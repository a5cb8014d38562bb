// Test kernel (test_stdlib_more_gpu.py): std.nn's silu, swiglu (gate X, up G) and softplus on
// f16 rows of any shape, one BR x BC tile per CTA (ragged edges masked).
import std.nn

@autotune(BR in [2], BC in [512])
@launch(256)
kernel stdnn_act_f16(X: tensor<f16>[M, N], G: tensor<f16>[M, N], S: tensor<f16>[M, N], W: tensor<f16>[M, N], P: tensor<f16>[M, N]) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  let x = X[r :+ BR, c :+ BC]
  S[r :+ BR, c :+ BC] = silu(x)
  W[r :+ BR, c :+ BC] = swiglu(x, G[r :+ BR, c :+ BC])
  P[r :+ BR, c :+ BC] = softplus(x)
}
