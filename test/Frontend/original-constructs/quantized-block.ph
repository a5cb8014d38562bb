// Constructs of the original Phobos's inference examples (q8_matvec,
// quant_types), in a kernel of our own: i8 weights and a bf16 tensor converted
// to f32 (f32(w), f32(s)), f16 + bf16 meeting at f32, a per-block scale read as
// a one-row slice `S[b :+ 1, ...]` at a block index `k / BLK`, a [1, BLK] x
// [BLK, N] dot on CUDA cores, and bf16(...) narrowing. No new types: these
// compile today (i8, bf16).
// RUN: phobos check %s 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: phobos compile %s --chip=sm_80 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %s --chip=sm_90a --emit=ptx | FileCheck %s --check-prefix=PTX

// QUIET-NOT: {{error|warning}}
// i8 to f32 through the exponent bits (lowering/byte_to_float.py): the sign bits of four
// bytes flipped at once, each byte under 2^23 (0x4B000000), then 2^23 + 128 subtracted.
// PTX-DAG: xor.b32 {{.*}}, -2139062144;
// PTX-DAG: or.b32 {{.*}}, 1258291200;
// PTX-DAG: add.rn.f32 {{.*}}, 0fCB000080;
// PTX-DAG: cvt.f32.bf16
// PTX-DAG: cvt.rn.bf16.f32
// PTX-DAG: cvt.f32.f16
// PTX-DAG: fma.rn.f32
@autotune(TN in [64], BLK in [32])
@launch(256)
kernel block_scaled(A: tensor<f32>[1, K], W: tensor<i8>[K, N], S: tensor<bf16>[KB, N], H: tensor<f16>[1, N], C: tensor<f32>[1, N]) {
  let pn = program_id(0)
  var acc: tile<f32>[1, TN] = 0.0
  for k in range(0, K, BLK) {
    let b = k / BLK
    let a = A[0 :+ 1, k :+ BLK]
    let w = W[k :+ BLK, pn * TN :+ TN]
    var wf: tile<f32>[BLK, TN] = f32(w)
    var part: tile<f32>[1, TN] = dot(a, wf)
    acc += part * f32(S[b :+ 1, pn * TN :+ TN])
  }
  var mixed: tile<f32>[1, TN] = H[0 :+ 1, pn * TN :+ TN] + bf16(acc)
  C[0 :+ 1, pn * TN :+ TN] = mixed
}
