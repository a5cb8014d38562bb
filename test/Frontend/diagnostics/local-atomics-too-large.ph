// A local tile an atomic targets lives in shared memory for the op: one larger than a CTA
// may use is a located error at the atomic.
// RUN: not phobos compile %s --emit=ptx 2>&1 | FileCheck %s
// CHECK: local-atomics-too-large.ph:8:3: error: the kernel needs 262144 bytes of shared memory (the local tile at {{.*}}local-atomics-too-large.ph:8:3 262144 B), more than the 232448 bytes a CTA may use on sm_90
// CHECK-NOT: error:
kernel big(X: tensor<i32>[N], H: tensor<i32>[B]) {
  var h: tile<i64>[32768] = 0
  atomic_add(h[X[0 :+ 256]], 1)
  atomic_add(masked(H[0 :+ 32768], arange(32768) < B), i32(h))
}
