// Vector reductions: on sm_90 a red (old values unused, relaxed or release) of f32 or f16/bf16 add
// whose neighbours the access facts prove contiguous, 16-byte aligned and equally masked is one
// red.global.add.v4.f32 / .noftz.v4.f16x2 / .noftz.v4.bf16x2 per 16 bytes, and the module's PTX
// ISA version is raised to 8.1 for it. Scalar red where the alignment is not proven (the generic
// variant, an unaligned base, rows of an odd length), on sm_80, for atom (old values used, or an
// acquire order) and for other operations. ptxas accepts each kernel; SASS has one REDG.E.ADD.F32x4.
// REQUIRES: ptxas
// RUN: phobos compile %s --chip sm_90 --kernel rows --emit=ptx --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a16.e16x16.s16" | FileCheck %s --check-prefix=V4
// RUN: phobos compile %s --chip sm_90a --kernel rows --emit=ptx --key "I=a16.e16.s;V=a16.e16x4.s4;Y=a16.e16x4.s4" | FileCheck %s --check-prefix=V4
// RUN: phobos compile %s --chip sm_90 --kernel rows --emit=cubin --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a16.e16x16.s16" -o %t.rows.cubin
// RUN: %if nvdisasm %{ %nvdisasm -c %t.rows.cubin 2>/dev/null | FileCheck %s --check-prefix=SASS %}
// RUN: phobos compile %s --chip sm_80 --kernel rows --emit=ptx --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a16.e16x16.s16" | FileCheck %s --check-prefix=SCALAR
// RUN: phobos compile %s --chip sm_90 --kernel rows --emit=ptx | FileCheck %s --check-prefix=SCALAR
// RUN: phobos compile %s --chip sm_90 --kernel rows --emit=ptx --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a1.e16x16.s16" | FileCheck %s --check-prefix=SCALAR
// RUN: phobos compile %s --chip sm_90 --kernel rows --emit=ptx --key "I=a16.e16.s;V=a16.e16x1.s1;Y=a16.e16x1.s1" | FileCheck %s --check-prefix=SCALAR

@launch(256)
kernel rows(I: tensor<i32>[M], V: tensor<f32>[M, D], Y: tensor<f32>[R, D]) {
  let s = ctx.block.x * 16
  let c = ctx.block.y * 256
  atomic_add(masked(Y[I[s :+ 16], c :+ 256], arange(16) + s < M), V[s :+ 16, c :+ 256])
}

// V4: .version 8.1
// V4-COUNT-4: red.relaxed.gpu.global.add.v4.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// V4-NOT: red.
// SASS-COUNT-4: REDG.E.ADD.F32x4.FTZ.RN.STRONG.GPU
// SASS-NOT: REDG
// SCALAR: .version 8.0
// SCALAR-COUNT-16: red.relaxed.gpu.global.add.f32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// SCALAR-NOT: .v4
// SCALAR-NOT: .v2

// Two elements per thread along the rows (a 2-wide tile): v2.f32. The other orders and scopes
// of red keep their qualifiers.
// RUN: phobos compile %s --chip sm_90 --kernel pairs --emit=ptx --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a16.e16x16.s16" | FileCheck %s --check-prefix=V2
// RUN: phobos compile %s --chip sm_90 --kernel pairs --emit=cubin --key "I=a16.e16.s;V=a16.e16x16.s16;Y=a16.e16x16.s16" -o %t.pairs.cubin

@launch(128)
kernel pairs(I: tensor<i32>[M], V: tensor<f32>[M, D], Y: tensor<f32>[R, D]) {
  let s = ctx.block.x * 128
  atomic_add(Y[I[s :+ 128], 0 :+ 2], V[s :+ 128, 0 :+ 2], sem = "release", scope = "sys")
}

// V2: .version 8.1
// V2: red.release.sys.global.add.v2.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// V2-NOT: red.release.sys.global.add.f32

// f16 and bf16: 16 bytes are eight elements, four packed pairs (.v4.f16x2, .v4.bf16x2); on sm_80
// the f16 pairs stay f16x2 reds, four per thread. Old values used: f16x2 atom (pairs only); f32
// atom and an acquire add stay scalar.
// RUN: phobos compile %s --chip sm_90 --kernel halves --emit=ptx --key "V=a16.e16.s;X=a16.e16.s;B=a16.e16.s;Y=a16.e16.s" | FileCheck %s --check-prefix=HALVES
// RUN: phobos compile %s --chip sm_90 --kernel halves --emit=cubin --key "V=a16.e16.s;X=a16.e16.s;B=a16.e16.s;Y=a16.e16.s" -o %t.halves.cubin
// RUN: phobos compile %s --chip sm_80 --kernel halves80 --emit=ptx --key "V=a16.e16.s;X=a16.e16.s" | FileCheck %s --check-prefix=HALVES80

kernel halves(V: tensor<f16>[N], X: tensor<f16>[N], B: tensor<bf16>[N], Y: tensor<f32>[N]) {
  let s = ctx.block.x * 2048
  atomic_add(X[s :+ 2048], V[s :+ 2048])
  atomic_add(B[s :+ 2048], bf16(V[s :+ 2048]))
  let old = atomic_add(X[s :+ 2048], V[s :+ 2048])
  Y[s :+ 2048] = f32(old) + f32(atomic_add(Y[s :+ 2048], 1.0))
  atomic_add(Y[s :+ 2048], 2.0, sem = "acquire")
}

kernel halves80(V: tensor<f16>[N], X: tensor<f16>[N]) {
  let s = ctx.block.x * 2048
  atomic_add(X[s :+ 2048], V[s :+ 2048])
}

// HALVES: .version 8.1
// HALVES: red.relaxed.gpu.global.add.noftz.v4.f16x2 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// HALVES: red.relaxed.gpu.global.add.noftz.v4.bf16x2 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// HALVES: atom.relaxed.gpu.global.add.noftz.f16x2 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// HALVES: atom.relaxed.gpu.global.add.f32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// HALVES: atom.acquire.gpu.global.add.f32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
// HALVES-NOT: .v4.f32
// HALVES80: .version 8.0
// HALVES80-COUNT-4: red.relaxed.gpu.global.add.noftz.f16x2 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// HALVES80-NOT: .v4
