// A local-tile atomic whose index tile is itself an error reports that error only (it also said
// the atomic needs "one tile of indices", which it has).
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: local-atomic-bad-index.ph:[[@LINE+5]]:23: error: a tile of [6]: GPU tile extents must be powers of two, and 6 is not
// CHECK-NOT: error:
@launch(128)
kernel k(X: tensor<i32>[N], Y: tensor<i32>[64]) {
  var h: tile<i32>[64] = 0
  atomic_add(h[X[0 :+ 6]], 1)
  Y[0 :+ 64] = h
}
