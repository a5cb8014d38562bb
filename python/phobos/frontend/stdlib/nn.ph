// std.nn: activations, row softmax and norms, losses, rotary embeddings, random numbers and
// Q8_0 helpers, written in Phobos. Rows are the last dimension of a 2-D tile. Each function is
// inlined where it is called; T is the tile's element type.

// The exact GELU: x * (1 + erf(x / sqrt(2))) / 2, computed in f32.
fn gelu<T>(x: tile<T>[R, C]) -> tile<T>[R, C] {
  let v = f32(x)
  return 0.5 * v * (1.0 + erf(v * 0.7071067811865476))
}
