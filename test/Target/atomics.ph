// Atomics become inline PTX with the op's order and scope: `red` where the old
// values are unused and the order is relaxed or release, `atom` otherwise; f16
// and bf16 adds are add.noftz; integer max/min are signed; float max/min work on
// the bits (signed max where the value is >= 0, unsigned min where negative);
// exchange and compare-and-swap on the bit width. ptxas accepts each kernel.
// REQUIRES: ptxas
// RUN: phobos compile %s --kernel adds --emit=ptx | FileCheck %s --check-prefix=ADDS
// RUN: phobos compile %s --kernel used --emit=ptx | FileCheck %s --check-prefix=USED
// RUN: phobos compile %s --kernel floats --emit=ptx | FileCheck %s --check-prefix=FLOATS
// RUN: phobos compile %s --kernel swaps --emit=ptx | FileCheck %s --check-prefix=SWAPS
// RUN: phobos compile %s --kernel adds --emit=cubin -o %t.adds.cubin
// RUN: phobos compile %s --kernel used --emit=cubin -o %t.used.cubin
// RUN: phobos compile %s --kernel floats --emit=cubin -o %t.floats.cubin
// RUN: phobos compile %s --kernel swaps --emit=cubin -o %t.swaps.cubin
// RUN: not phobos compile %s --kernel adds --chip sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=SM80

kernel adds(A: tensor<f32>[N], B: tensor<f16>[N], C: tensor<bf16>[N], D: tensor<i32>[N], E: tensor<i64>[N], F: tensor<f64>[N]) {
  atomic_add(A[ctx.block.x * 256 :+ 256], 1.0)
  atomic_add(B[ctx.block.x * 256 :+ 256], 1.0)
  atomic_add(C[ctx.block.x * 256 :+ 256], 1.0)
  atomic_add(D[ctx.block.x * 256 :+ 256], 1, sem = "release", scope = "cta")
  atomic_add(E[ctx.block.x * 256 :+ 256], 1, scope = "sys")
  atomic_add(F[ctx.block.x * 256 :+ 256], 1.0, sem = "acquire")
}

// ADDS: red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// ADDS: red.relaxed.gpu.global.add.noftz.f16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// ADDS: red.relaxed.gpu.global.add.noftz.bf16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// ADDS: red.release.cta.global.add.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// ADDS: red.relaxed.sys.global.add.u64 [%rd{{[0-9]+}}], %rd{{[0-9]+}};
// ADDS: atom.acquire.gpu.global.add.f64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], %rd{{[0-9]+}};
// SM80: error: 'atomic_add' on bf16 needs sm_90 or later (atom/red .add.noftz.bf16); the target is sm_80

kernel used(X: tensor<i32>[N], Y: tensor<i32>[N]) {
  Y[ctx.block.x * 256 :+ 256] = atomic_add(X[ctx.block.x * 256 :+ 256], 3)
}

// USED: atom.relaxed.gpu.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// USED-NOT: red.

kernel floats(X: tensor<f32>[N], V: tensor<f32>[N], Y: tensor<i64>[N]) {
  atomic_max(X[ctx.block.x * 256 :+ 256], V[ctx.block.x * 256 :+ 256])
  atomic_min(Y[ctx.block.x * 256 :+ 256], i64(V[ctx.block.x * 256 :+ 256]), sem = "acquire")
}

// FLOATS-DAG: red.relaxed.gpu.global.min.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// FLOATS-DAG: red.relaxed.gpu.global.max.s32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// FLOATS-DAG: atom.acquire.gpu.global.min.s64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], %rd{{[0-9]+}};

kernel swaps(X: tensor<f32>[N], Y: tensor<f16>[N], Z: tensor<i64>[N]) {
  let x = atomic_xchg(X[ctx.block.x * 256 :+ 256], 2.0, sem = "acq_rel")
  let y = atomic_cas(Y[ctx.block.x * 256 :+ 256], 0.0, 1.0)
  let z = atomic_cas(Z[ctx.block.x * 256 :+ 256], 0, 1)
  X[ctx.block.x * 256 :+ 256] = x + f32(y) + f32(z)
}

// SWAPS-DAG: atom.acq_rel.gpu.global.exch.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// SWAPS-DAG: atom.relaxed.gpu.global.cas.b16 %rs{{[0-9]+}}, [%rd{{[0-9]+}}], %rs{{[0-9]+}}, %rs{{[0-9]+}};
// SWAPS-DAG: atom.relaxed.gpu.global.cas.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}};

// With rows known 16-byte aligned (the specialisation key of aligned arguments), neighbouring
// f16 elements of a thread go as one f16x2 add (sm_80; sm_90 takes the whole run as one vector
// red: atomics-vector.ph); without it, one f16 add each.
// RUN: phobos compile %s --chip sm_80 --kernel pairs --emit=ptx --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a16.e16x16.s16" | FileCheck %s --check-prefix=PAIRED
// RUN: phobos compile %s --kernel pairs --emit=ptx | FileCheck %s --check-prefix=SINGLE
// RUN: phobos compile %s --chip sm_80 --kernel pairs --emit=cubin --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a16.e16x16.s16" -o %t.pairs.cubin

@launch(128)
kernel pairs(I: tensor<i32>[M], V: tensor<f16>[M, D], Y: tensor<f16>[R, D]) {
  let s = ctx.block.x * 4
  atomic_add(Y[I[s :+ 4], 0 :+ 256], V[s :+ 4, 0 :+ 256])
}

// PAIRED-COUNT-4: red.relaxed.gpu.global.add.noftz.f16x2 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// PAIRED-NOT: add.noftz.f16 [
// SINGLE-COUNT-8: red.relaxed.gpu.global.add.noftz.f16 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// SINGLE-NOT: f16x2

// An integer add of one value for the tile at gathered offsets (a histogram) is aggregated per
// warp: the lanes at one address elect their lowest lane, which adds the value times their count.
// A value that differs per element (a scatter of data), a float add, and an add at slice offsets
// (`adds` above: distinct addresses) keep one red per element.
// RUN: phobos compile %s --kernel counts --emit=ptx | FileCheck %s --check-prefix=COUNTS
// RUN: phobos compile %s --kernel counts --emit=cubin -o %t.counts.cubin
// RUN: phobos compile %s --kernel adds --emit=ptx | FileCheck %s --check-prefix=ADDS-NOT-AGG

@launch(128)
kernel counts(X: tensor<i32>[N], H: tensor<i32>[B], G: tensor<i64>[B], F: tensor<f32>[B]) {
  let x = X[ctx.block.x * 128 :+ 128]
  atomic_add(masked(H[x], x < i32(B)), 1)
  atomic_add(masked(G[x], x < i32(B)), 3)
  atomic_add(masked(H[x], x < i32(B)), x)
  atomic_add(masked(F[x], x < i32(B)), 1.0)
}

// COUNTS: activemask.b32 agg_act;
// COUNTS-NEXT: match.any.sync.b64 agg_grp, %rd{{[0-9]+}}, agg_act;
// COUNTS: popc.b32 agg_n, agg_grp;
// COUNTS-NEXT: mul.lo.u32 agg_n, agg_n, %r{{[0-9]+}};
// COUNTS-NEXT: @agg_lead red.relaxed.gpu.global.add.u32 [%rd{{[0-9]+}}], agg_n;
// COUNTS: match.any.sync.b64
// COUNTS: cvt.u64.u32 agg_nw, agg_n;
// COUNTS-NEXT: mul.lo.u64 agg_nw, agg_nw, %rd{{[0-9]+}};
// COUNTS-NEXT: @agg_lead red.relaxed.gpu.global.add.u64 [%rd{{[0-9]+}}], agg_nw;
// COUNTS-NOT: match.any
// COUNTS: {{^}}	red.relaxed.gpu.global.add.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// COUNTS: {{^}}	red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// ADDS-NOT-AGG-NOT: match.any
