// Test kernel (test_stdlib_more_gpu.py): std.nn's Philox generator on i32 offsets O (words into
// W, rand into U, randn into Z) and on i64 offsets O64 (words into W64), one BR x BC tile per CTA.
import std.nn

@autotune(BR in [2], BC in [256])
@launch(256)
kernel stdnn_rng(O: tensor<i32>[M, N], O64: tensor<i64>[M, N], W: tensor<i64>[M, N], W64: tensor<i64>[M, N],
                 U: tensor<f32>[M, N], Z: tensor<f32>[M, N], seed: i64) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  let o = O[r :+ BR, c :+ BC]
  W[r :+ BR, c :+ BC] = philox(seed, o)
  W64[r :+ BR, c :+ BC] = philox(seed, O64[r :+ BR, c :+ BC])
  U[r :+ BR, c :+ BC] = rand(seed, o)
  Z[r :+ BR, c :+ BC] = randn(seed, o)
}
