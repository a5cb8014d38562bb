// An atomic on a CTA-local tile lowers through a shared-memory buffer: the tile stored,
// a barrier, one red.shared per update under its mask, a barrier, the tile read back; the
// flush is one red.global per bin this thread holds (here 128 bins over 128 threads: one).
// max/min are signed; f32 adds are red.shared.add.f32. ptxas accepts each kernel.
// REQUIRES: ptxas
// RUN: phobos compile %s --kernel hist --emit=ptx | FileCheck %s --check-prefix=HIST
// RUN: phobos compile %s --kernel kinds --emit=ptx | FileCheck %s --check-prefix=KINDS
// RUN: phobos compile %s --kernel hist --emit=cubin -o %t.hist.cubin
// RUN: phobos compile %s --kernel kinds --emit=cubin -o %t.kinds.cubin

// HIST: .extern .shared .align 16 .b8 __phobos_smem[];
// HIST: st.shared.b32
// HIST: bar.sync 0;
// HIST-COUNT-4: red.shared.add.u32 [%r{{[0-9]+}}], %r{{[0-9]+}};
// HIST: bar.sync 0;
// HIST: ld.shared.b32
// HIST-NOT: red.shared
// HIST: red.relaxed.gpu.global.add.u32
// HIST-NOT: red.
@launch(128)
kernel hist(X: tensor<i32>[N], H: tensor<i32>[B]) {
  let s = ctx.block.x * 512
  var h: tile<i32>[128] = 0
  atomic_add(masked(h[X[s :+ 512]], arange(512) + s < N), 1)
  atomic_add(masked(H[0 :+ 128], arange(128) < B && h != 0), h)
}

// KINDS-DAG: red.shared.max.s32
// KINDS-DAG: red.shared.min.s64
// KINDS-DAG: red.shared.add.f32
@launch(64)
kernel kinds(I: tensor<i32>[64], V: tensor<i32>[64], W: tensor<f32>[64], Y: tensor<i32>[64], Z: tensor<i64>[64], F: tensor<f32>[64]) {
  var m: tile<i32>[64] = 0
  atomic_max(m[I[0 :+ 64]], V[0 :+ 64])
  var n: tile<i64>[64] = 0
  atomic_min(n[I[0 :+ 64]], i64(V[0 :+ 64]))
  var f: tile<f32>[64] = 0.0
  atomic_add(f[I[0 :+ 64]], W[0 :+ 64])
  Y[0 :+ 64] = m
  Z[0 :+ 64] = n
  F[0 :+ 64] = f
}
