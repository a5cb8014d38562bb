// A value of the wrong type for a local tile's atomic says "a local tile", not "a tensor".
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: local-tile-store-type.ph:[[@LINE+5]]:29: error: cannot store bool values into 'h', a local tile of i32 (convert with i32(...))
// CHECK-NOT: error:
@launch(128)
kernel k(X: tensor<f32>[N], I: tensor<i32>[N], Y: tensor<i32>[64]) {
  var h: tile<i32>[64] = 0
  atomic_add(h[I[0 :+ 64]], X[0 :+ 64] > 0.0)
  Y[0 :+ 64] = h
}
