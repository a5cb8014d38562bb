// Misuses of an atomic on a CTA-local tile are located errors: reading a local tile by a
// tile of indices, using the old values, a `let` tile, spans, a 2-D tile, xchg/cas, an
// element type without a shared-memory atomic, sem/scope (local-atomics-too-large.ph: a
// local tile larger than the shared memory of a CTA).
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK: local-atomics.ph:17:16: error: only tensor parameters can be sliced; 'h' is tile<i32>[64] (a local tile takes a tile of indices only as the target of atomic_add, max or min)
// CHECK: local-atomics.ph:22:13: error: 'atomic_add' on the local tile 'h' must stand alone as a statement (its old values are not available)
// CHECK: local-atomics.ph:28:14: error: an atomic updates 'h', which must be declared with 'var'
// CHECK: local-atomics.ph:33:15: error: an atomic on the local tile 'h' (tile<i32>[64]) needs a 1-D tile and one tile of indices, such as 'h[v]'
// CHECK: local-atomics.ph:38:15: error: an atomic on the local tile 'h' (tile<i32>[8, 8]) needs a 1-D tile
// CHECK: local-atomics.ph:43:3: error: 'atomic_xchg' on the local tile 'h': only atomic_add, max and min
// CHECK: local-atomics.ph:48:3: error: 'atomic_add' on a local tile of f16: shared-memory atomics take i32, i64, f32
// CHECK: local-atomics.ph:53:32: error: 'atomic_add' on a local tile takes no sem or scope
// CHECK-NOT: error:
kernel reads(X: tensor<i32>[N], Y: tensor<i32>[64]) {
  var h: tile<i32>[64] = 0
  Y[0 :+ 64] = h[X[0 :+ 64]]
}

kernel used(X: tensor<i32>[N], Y: tensor<i32>[64]) {
  var h: tile<i32>[64] = 0
  let old = atomic_add(h[X[0 :+ 64]], 1)
  Y[0 :+ 64] = old
}

kernel constant(X: tensor<i32>[N]) {
  let h = arange(64)
  atomic_add(h[X[0 :+ 64]], 1)
}

kernel spans(X: tensor<i32>[N]) {
  var h: tile<i32>[64] = 0
  atomic_add(h[0 :+ 16], 1)
}

kernel twod(X: tensor<i32>[N]) {
  var h: tile<i32>[8, 8] = 0
  atomic_add(h[X[0 :+ 64]], 1)
}

kernel swaps(X: tensor<i32>[N]) {
  var h: tile<i32>[64] = 0
  atomic_xchg(h[X[0 :+ 64]], 1)
}

kernel halves(X: tensor<i32>[N]) {
  var h: tile<f16>[64] = 0.0
  atomic_add(h[X[0 :+ 64]], 1.0)
}

kernel scoped(X: tensor<i32>[N]) {
  var h: tile<i32>[64] = 0
  atomic_add(h[X[0 :+ 64]], 1, scope = "cta")
}
