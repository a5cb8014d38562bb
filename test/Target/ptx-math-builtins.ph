// The PTX the math builtins of issue 29 become where the instruction is the
// point (docs/language.md, "Math accuracy"): round is ties-to-even cvt.rni (never
// the round-half-away sequence of CUDA's roundf), floor cvt.rmi, ceil cvt.rpi,
// fma one fma.rn, popcount popc; f32 rsqrt is libdevice's rsqrt.approx.f32 and f64
// rsqrt is 1 / sqrt, correctly rounded steps (sqrt.rn.f64, rcp.rn.f64), not the
// bare rsqrt.approx.f64 of libdevice's __nv_rsqrt; exp2 is ex2.approx.f32 (non-ftz).
// RUN: phobos compile %s --kernel rounding --emit=ptx | FileCheck %s --check-prefix=ROUND
// RUN: phobos compile %s --kernel fused --emit=ptx | FileCheck %s --check-prefix=FMA
// RUN: phobos compile %s --kernel bits --emit=ptx | FileCheck %s --check-prefix=POPC
// RUN: phobos compile %s --kernel roots --emit=ptx | FileCheck %s --check-prefix=RSQRT \
// RUN:   --implicit-check-not=rsqrt.approx.f64 --implicit-check-not=rsqrt.approx.ftz

// ROUND-LABEL: .visible .entry rounding(
// ROUND-DAG: cvt.rni.f32.f32
// ROUND-DAG: cvt.rni.f64.f64
// ROUND-DAG: cvt.rmi.f32.f32
// ROUND-DAG: cvt.rpi.f32.f32
// ROUND-DAG: cvt.rmi.f16.f16
// ROUND: ret;
kernel rounding(X: tensor<f32>[N], D: tensor<f64>[N], H: tensor<f16>[N], Y: tensor<f32>[3, N], E: tensor<f64>[N], G: tensor<f16>[N]) {
  let s = ctx.block.x * 32
  let x = X[s :+ 32]
  Y[0, s :+ 32] = round(x)
  Y[1, s :+ 32] = floor(x)
  Y[2, s :+ 32] = ceil(x)
  E[s :+ 32] = round(D[s :+ 32])
  G[s :+ 32] = floor(H[s :+ 32])
}

// FMA-LABEL: .visible .entry fused(
// FMA: fma.rn.f32
// FMA: fma.rn.f64
// FMA: ret;
kernel fused(X: tensor<f32>[N], Y: tensor<f32>[N], D: tensor<f64>[N], E: tensor<f64>[N]) {
  let s = ctx.block.x * 32
  let x = X[s :+ 32]
  Y[s :+ 32] = fma(x, x, 1.0)
  let d = D[s :+ 32]
  E[s :+ 32] = fma(d, d, 1.0)
}

// POPC-LABEL: .visible .entry bits(
// POPC: popc.b32
// POPC: popc.b64
// POPC: ret;
kernel bits(I: tensor<i32>[N], J: tensor<i32>[N], L: tensor<i64>[N], K: tensor<i64>[N]) {
  let s = ctx.block.x * 32
  J[s :+ 32] = popcount(I[s :+ 32])
  K[s :+ 32] = popcount(L[s :+ 32])
}

// RSQRT-LABEL: .visible .entry roots(
// RSQRT: rsqrt.approx.f32
// RSQRT: sqrt.rn.f64
// RSQRT: rcp.rn.f64
// RSQRT: ex2.approx.f32
// RSQRT: ret;
kernel roots(X: tensor<f32>[N], Y: tensor<f32>[N], D: tensor<f64>[N], E: tensor<f64>[N], Z: tensor<f32>[N]) {
  let s = ctx.block.x * 32
  Y[s :+ 32] = rsqrt(X[s :+ 32])
  E[s :+ 32] = rsqrt(D[s :+ 32])
  Z[s :+ 32] = exp2(X[s :+ 32])
}
