// Test kernel (test_stdlib_more_gpu.py): std.nn's log_softmax_rows and cross_entropy_rows (class
// index T, loss L in f32) on f16 rows of N <= BN columns, one row per CTA.
import std.nn

@autotune(BN in [4096])
@launch(256)
kernel stdnn_rows_f16(X: tensor<f16>[M, N], T: tensor<i32>[M, 1], Y: tensor<f16>[M, N], L: tensor<f32>[M, 1]) {
  let r = ctx.block.x
  Y[r :+ 1, 0 :+ BN] = log_softmax_rows(padded(X[r :+ 1, 0 :+ BN], -inf))
  L[r :+ 1, 0 :+ 1] = cross_entropy_rows(X[r :+ 1, 0 :+ BN], T[r :+ 1, 0 :+ 1], i32(N))
}
