// Functions: one private func.func per instance (element type and extents bound at the call),
// a func.call per call in the front end's IR (phobos-opt reads .ph), and no call left after the
// tile stage (tile-inline), where the body's ops sit in the kernel with the function's lines.
// RUN: phobos-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=FRONT
// RUN: phobos compile %s | FileCheck %s --check-prefix=TILE
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-inline)' --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-inline)' --mlir-print-ir-before-all 2>&1 | FileCheck %s --check-prefix=BOTH

// FRONT-DAG: func.func private @axpy.16x32xf32_f32(%{{.*}}: tensor<16x32xf32> {{.*}}, %{{.*}}: f32 {{.*}}) -> tensor<16x32xf32>
// FRONT-DAG: func.func private @axpy.16x32xf16_f32(%{{.*}}: tensor<16x32xf16> {{.*}}, %{{.*}}: f32 {{.*}}) -> tensor<16x32xf16>
// FRONT-DAG: func.func private @twice.16x32xf32(
// FRONT-LABEL: func.func @k(
// FRONT: call @axpy.16x32xf32_f32(%{{.*}}, %{{.*}}) : (tensor<16x32xf32>, f32) -> tensor<16x32xf32>
// FRONT: call @axpy.16x32xf16_f32(
// FRONT: call @twice.16x32xf32(

// TILE-NOT: func.call
// TILE-NOT: func.func private
// TILE-LABEL: func.func @k(
// TILE-COUNT-3: arith.mulf
// TILE-NOT: call

// LOC-COUNT-3: arith.mulf {{.*}} loc("{{.*}}functions.ph":[[@LINE+8]]:18)

// BOTH: IR Dump Before TileInline
// BOTH: call @twice
// BOTH: module {
// BOTH-NOT: call @

fn axpy<T>(x: tile<T>[R, C], a: f32) -> tile<T>[R, C] {
  let y = f32(x) * a
  return y + 1.0
}

fn twice(x: tile<f32>[R, C]) -> tile<f32>[R, C] {
  return axpy(x, 2.0)
}

kernel k(X: tensor<f32>[M, N], H: tensor<f16>[M, N], Y: tensor<f32>[M, N]) {
  let x = X[0 :+ 16, 0 :+ 32]
  let h = H[0 :+ 16, 0 :+ 32]
  Y[0 :+ 16, 0 :+ 32] = axpy(x, 3) + f32(axpy(h, 0.5)) + twice(x)
}
