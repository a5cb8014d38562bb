// std.nn: activations, row softmax and norms, cross-entropy, rotary embeddings, a counter-based
// random number generator and Q8_0 helpers, written in Phobos. A row is the last dimension of a
// 2-D tile [R, C]. T is the element type of the input tile; the arithmetic runs in f32 and the
// result converts back to T. Each function is inlined where it is called.

// The exact GELU, x * (1 + erf(x / sqrt(2))) / 2 (torch's gelu, approximate='none').
fn gelu<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(x)
  return 0.5 * v * (1.0 + erf(v * 0.7071067811865476))
}

// The tanh approximation of GELU, x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2
// (torch's gelu, approximate='tanh').
fn gelu_tanh<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(x)
  return 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))
}

// SiLU (swish), x * sigmoid(x).
fn silu<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(x)
  return v * sigmoid(v)
}

// SwiGLU, silu(a) * b: the gated activation of LLaMA-style MLPs (a the gate, b the up projection).
fn swiglu<T>(a: tile<T>[R, C], b: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(a)
  return v * sigmoid(v) * f32(b)
}

// softplus, log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) so that it never overflows
// and keeps its relative precision far below zero (softplus(-17) is 4.1e-8, not 0).
fn softplus<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(x)
  return max(v, 0.0) + log1p(exp(-abs(v)))
}

// The softmax of each row, exp(x - max) / sum(exp(x - max)). The whole tile is the row: read a
// ragged row with padded(X[...], -inf) so that the columns past its end weigh nothing.
fn softmax_rows<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(x)
  let e = exp(v - rowmax(v))
  return e / rowsum(e)
}

// The log-softmax of each row, x - max - log(sum(exp(x - max))); ragged rows as for softmax_rows.
fn log_softmax_rows<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(x)
  let s = v - rowmax(v)
  return s - log(rowsum(exp(s)))
}

// Layer norm of each row over its first n columns (n <= C; the others give b):
// (x - mean) / sqrt(variance + eps) * w + b, the variance biased (divided by n), as torch's.
fn layer_norm_rows<T, W>(x: tile<T>[R, C], w: tile<W>[C], b: tile<W>[C], n: i32, eps: f32) -> tile<T>[R, C] {
  let v = f32(x)
  let valid = iota(C) < n
  let mean = rowsum(where(valid, v, 0.0)) / f32(n)
  let d = where(valid, v - mean, 0.0)
  let variance = rowsum(d * d) / f32(n)
  return d * rsqrt(variance + eps) * f32(w) + f32(b)
}

// RMSNorm of each row over its first n columns (n <= C): x / sqrt(mean(x^2) + eps) * w.
fn rms_norm_rows<T, W>(x: tile<T>[R, C], w: tile<W>[C], n: i32, eps: f32) -> tile<T>[R, C] {
  let v = where(iota(C) < n, f32(x), 0.0)
  return v * rsqrt(rowsum(v * v) / f32(n) + eps) * f32(w)
}

// The cross-entropy of each row of logits over its first n columns against the class index
// `target` (torch's cross_entropy without reduction): log(sum(exp(x))) - x[target], as [R, 1].
fn cross_entropy_rows<T>(logits: tile<T>[R, C], target: tile<i32>[R, 1], n: i32) -> tile<f32>[R, 1] {
  let cols = iota(C)
  let v = where(cols < n, f32(logits), -inf)
  let m = rowmax(v)
  let lse = m + log(rowsum(exp(v - m)))
  return lse - rowsum(where(cols == target, v, 0.0))
}

// The first half of a rotary embedding (GPT-NeoX's rotate-half form): x1 * cos - x2 * sin, where
// x1 and x2 are the first and second halves of each head's features.
fn rotary_first<T, W>(x1: tile<T>[R, H], x2: tile<T>[R, H], c: tile<W>[R, H], s: tile<W>[R, H]) -> tile<T>[R, H] {
  return f32(x1) * f32(c) - f32(x2) * f32(s)
}

// The second half of a rotary embedding: x2 * cos + x1 * sin.
fn rotary_second<T, W>(x1: tile<T>[R, H], x2: tile<T>[R, H], c: tile<W>[R, H], s: tile<W>[R, H]) -> tile<T>[R, H] {
  return f32(x2) * f32(c) + f32(x1) * f32(s)
}

// Philox4x32-10 (Salmon et al., Random123) on the counters (offset, 0, 0, 0) with the key
// (low, high 32 bits of seed): its words 0 and 1, packed as word0 | word1 << 32. The words are
// Random123's; each offset gives independent numbers, the same on every run.
fn philox<I>(seed: i64, offsets: tile<I>[R, C]) -> tile<i64>[R, C] {
  let mask = 4294967295
  var c0 = i64(offsets) & mask
  var c1: tile<i64>[R, C] = 0
  var c2: tile<i64>[R, C] = 0
  var c3: tile<i64>[R, C] = 0
  var k0 = seed & mask
  var k1 = (seed >> 32) & mask
  for step in range(10) {
    let p0 = 3528531795 * c0
    let p1 = 3449720151 * c2
    let x0 = ((p1 >> 32) & mask) ^ c1 ^ k0
    let x2 = ((p0 >> 32) & mask) ^ c3 ^ k1
    c1 = p1 & mask
    c3 = p0 & mask
    c0 = x0
    c2 = x2
    k0 = (k0 + 2654435769) & mask
    k1 = (k1 + 3144134277) & mask
  }
  return c0 | (c1 << 32)
}

// Uniform random numbers in [0, 1) for each offset: the top 24 bits of Philox word 0 times 2^-24
// (every value a multiple of 2^-24). Triton's tl.rand(seed, offsets) in spirit, not bit for bit.
fn rand<I>(seed: i64, offsets: tile<I>[R, C]) -> tile<f32>[R, C] {
  let w = philox(seed, offsets)
  return f32((w & 4294967295) >> 8) * 0.000000059604644775390625
}

// Standard normal random numbers for each offset: Box-Muller on the top 24 bits of Philox words
// 0 (u1 in (0, 1]) and 1 (u2 in [0, 1)), sqrt(-2 log u1) * cos(2 pi u2).
fn randn<I>(seed: i64, offsets: tile<I>[R, C]) -> tile<f32>[R, C] {
  let w = philox(seed, offsets)
  let u1 = (f32((w & 4294967295) >> 8) + 1.0) * 0.000000059604644775390625
  let u2 = f32((w >> 40) & 16777215) * 0.000000059604644775390625
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2)
}

// Dropout: each element kept with probability 1 - p and scaled by 1 / (1 - p), else 0; kept
// where rand(seed, offsets) >= p, so the same seed and offsets drop the same elements.
fn dropout<T, I>(x: tile<T>[R, C], p: f32, seed: i64, offsets: tile<I>[R, C]) -> tile<T>[R, C] {
  return where(rand(seed, offsets) >= p, f32(x) / (1.0 - p), 0.0)
}

// The Q8_0 scale of each block of 32 values (one block per row of the tile): max |x| / 127.
fn q8_0_scale<T>(x: tile<T>[R, 32]) -> tile<f32>[R, 1] {
  return rowmax(abs(f32(x))) / 127.0
}

// Q8_0 quantisation of each block of 32 values with its scale: round(x / scale) (ties to even),
// 0 where the scale is 0.
fn q8_0_quantize<T>(x: tile<T>[R, 32], scale: tile<f32>[R, 1]) -> tile<i8>[R, 32] {
  let inv = where(scale == 0.0, 0.0, 1.0 / scale)
  return i8(round(f32(x) * inv))
}

// Q8_0 dequantisation of each block of 32 quants with its scale: q * scale.
fn q8_0_dequantize(q: tile<i8>[R, 32], scale: tile<f32>[R, 1]) -> tile<f32>[R, 32] {
  return f32(q) * scale
}
