// Several independent type errors in one kernel (see ../multiple-errors.ph).
kernel k(X: tensor<f32>[M, N], I: tensor<bool>[M, N], n: i32) {
  let t = X[0 :+ 4, 0 :+ 8]
  let bad = nope * 2
  let use = bad + 1
  let mixed = n + (ctx.block.x > 0)
  let more = mixed * 2
  let d = dot(t, t)
  I[0 :+ 4, 0 :+ 8] = t
  X[0 :+ 4, 0 :+ 8] = t + bad
}
