// RUN: phobos check %s 2>&1 | FileCheck %s --implicit-check-not=warning: --implicit-check-not=error:
// A dot of two f16 (or bf16) tiles bound without a type is an f32 tile here and a tile of
// the operands' type in the original Phobos: one warning each; a declared type, mixed
// operands or f32 operands say which precision is meant and warn of nothing.
// CHECK: original-half-dot.ph:[[@LINE+9]]:11: warning: 'dot' of f16 tiles makes 's' an f32 tile (summed in f32); in the original Phobos it is an f16 tile (summed in f16 without @tensorcore): declare the type ('let s: tile<f32>[...]' or 'tile<f16>[...]') to say which
// CHECK-NEXT: let s = dot(A[:, :], B[:, :])
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK: original-half-dot.ph:[[@LINE+7]]:11: warning: 'dot_t' of bf16 tiles makes 'u' an f32 tile (summed in f32); in the original Phobos it is a bf16 tile
kernel k(A: tensor<f16>[16, 16], B: tensor<f16>[16, 16], H: tensor<bf16>[16, 16], F: tensor<f32>[16, 16],
         C: tensor<f32>[16, 16]) {
  let h = H[:, :]
  let t: tile<f32>[16, 16] = dot(A[:, :], B[:, :])
  var w: tile<f16>[16, 16] = dot_t(A[:, :], B[:, :])
  let s = dot(A[:, :], B[:, :])
  var u = dot_t(h, h)
  let m = dot(A[:, :], h)
  let f = dot(F[:, :], F[:, :])
  C[:, :] = s + t + w + u + m + f
}
