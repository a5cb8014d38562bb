// Test kernel (test_stdlib_more_gpu.py): std.nn's dropout of f16 rows with the i32 offsets O,
// one BR x BC tile per CTA (ragged edges masked).
import std.nn

@autotune(BR in [2], BC in [512])
@launch(256)
kernel stdnn_dropout_f16(X: tensor<f16>[M, N], O: tensor<i32>[M, N], Y: tensor<f16>[M, N], p: f32, seed: i64) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  Y[r :+ BR, c :+ BC] = dropout(X[r :+ BR, c :+ BC], p, seed, O[r :+ BR, c :+ BC])
}
