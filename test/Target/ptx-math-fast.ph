// @fastmath puts fastmath<afn> on every float math op and division of the
// kernel (and tile.fastmath on the kernel), and the PTX has the fast forms:
// sqrt.approx.f32 for sqrt.rn.f32, ex2.approx.ftz.f32 of x * log2(e) (the
// lowering's: __nv_fast_expf would be the non-ftz ex2.approx.f32) and
// __nv_fast_logf (lg2.approx.f32, without .ftz) for libdevice's expf and
// logf, div.approx.f32 for div.rn.f32. tanh stays libdevice's tanhf (MLIR 22
// has no fast form for it), abs is abs.f32 either way, and f64 is untouched
// (sqrt.rn.f64, div.rn.f64). The same body without @fastmath gives the
// precise forms (docs/language.md, "Math accuracy").
// RUN: phobos compile %s --kernel fast --emit=tile | FileCheck %s --check-prefix=TILE
// RUN: phobos compile %s --kernel fast --emit=ptx | FileCheck %s --check-prefix=FAST \
// RUN:   --implicit-check-not=sqrt.rn.f32 --implicit-check-not=div.rn.f32 --implicit-check-not=ex2.approx.f32
// RUN: phobos compile %s --kernel precise --emit=ptx | FileCheck %s --check-prefix=PRECISE \
// RUN:   --implicit-check-not=sqrt.approx --implicit-check-not=div.approx \
// RUN:   --implicit-check-not=ex2.approx.f32 --implicit-check-not=lg2.approx

// TILE-LABEL: func.func @fast(
// TILE-SAME: tile.fastmath
// TILE: math.exp %{{.*}} fastmath<afn> : tensor<32xf32>
// TILE: math.log %{{.*}} fastmath<afn> : tensor<32xf32>
// TILE: math.sqrt %{{.*}} fastmath<afn> : tensor<32xf32>
// TILE: math.tanh %{{.*}} fastmath<afn> : tensor<32xf32>
// TILE: math.absf %{{.*}} fastmath<afn> : tensor<32xf32>
// TILE: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : tensor<32xf32>
// TILE: arith.mulf %{{.*}}, %{{.*}} : tensor<32xf32>
// TILE: math.sqrt %{{.*}} fastmath<afn> : tensor<32xf64>
// TILE: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : tensor<32xf64>

// FAST-LABEL: .visible .entry fast(
// FAST-DAG: mul.rn.f32 %{{.*}}, %{{.*}}, 0f3FB8AA3B;
// FAST-DAG: ex2.approx.ftz.f32
// FAST-DAG: lg2.approx.f32
// FAST-DAG: sqrt.approx.f32
// FAST-DAG: rcp.approx.ftz.f32
// FAST-DAG: abs.f32
// FAST-DAG: div.approx.f32
// FAST-DAG: sqrt.rn.f64
// FAST-DAG: div.rn.f64
// FAST: ret;
@fastmath
@launch(32)
kernel fast(X: tensor<f32>[N], Z: tensor<f32>[N], Y: tensor<f32>[7, N], D: tensor<f64>[N], E: tensor<f64>[2, N]) {
  let x = X[0 :+ 32]
  Y[0, 0 :+ 32] = exp(x)
  Y[1, 0 :+ 32] = log(x)
  Y[2, 0 :+ 32] = sqrt(x)
  Y[3, 0 :+ 32] = tanh(x)
  Y[4, 0 :+ 32] = abs(x)
  Y[5, 0 :+ 32] = x / Z[0 :+ 32]
  Y[6, 0 :+ 32] = x * Z[0 :+ 32]
  let d = D[0 :+ 32]
  E[0, 0 :+ 32] = sqrt(d)
  E[1, 0 :+ 32] = d / (d + 1.0)
}

// PRECISE-LABEL: .visible .entry precise(
// PRECISE-DAG: ex2.approx.ftz.f32
// PRECISE-DAG: sqrt.rn.f32
// PRECISE-DAG: rcp.approx.ftz.f32
// PRECISE-DAG: abs.f32
// PRECISE-DAG: div.rn.f32
// PRECISE-DAG: sqrt.rn.f64
// PRECISE-DAG: div.rn.f64
// PRECISE: ret;
@launch(32)
kernel precise(X: tensor<f32>[N], Z: tensor<f32>[N], Y: tensor<f32>[7, N], D: tensor<f64>[N], E: tensor<f64>[2, N]) {
  let x = X[0 :+ 32]
  Y[0, 0 :+ 32] = exp(x)
  Y[1, 0 :+ 32] = log(x)
  Y[2, 0 :+ 32] = sqrt(x)
  Y[3, 0 :+ 32] = tanh(x)
  Y[4, 0 :+ 32] = abs(x)
  Y[5, 0 :+ 32] = x / Z[0 :+ 32]
  Y[6, 0 :+ 32] = x * Z[0 :+ 32]
  let d = D[0 :+ 32]
  E[0, 0 :+ 32] = sqrt(d)
  E[1, 0 :+ 32] = d / (d + 1.0)
}
