// SASS of the 2-D scale kernel (nvdisasm): with @aligned and 16-byte aligned,
// row-aligned data the main path is four 128-bit loads through the read-only
// path and four 128-bit stores, none of them predicated; without the promise,
// on odd extents and pitches, tile-realign-rows gives each thread's runs
// 128-bit accesses where the thread's rows lie inside the tensor (the run
// where a rotated row splits takes 32-bit ones), and 32-bit predicated
// accesses at the edges (docs/realigned-rows.md).
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %s --emit=cubin --kernel=scale_aligned --key='X=a16.e16x16.s16;Y=a16.e16x16.s16' -o %t.aligned.cubin
// RUN: %nvdisasm -c %t.aligned.cubin 2>/dev/null | FileCheck %s --check-prefix=ALIGNED
// RUN: phobos compile %s --emit=cubin --kernel=scale_ragged --key='X=a16.e1x1.s1;Y=a16.e1x1.s1' -o %t.ragged.cubin
// RUN: %nvdisasm -c %t.ragged.cubin 2>/dev/null | FileCheck %s --check-prefix=RAGGED

// ALIGNED-COUNT-4: {{^ +/\*[0-9a-f]+\*/ +}}LDG.E.128.CONSTANT R{{[0-9]+}}, desc
// ALIGNED-COUNT-4: {{^ +/\*[0-9a-f]+\*/ +}}STG.E.128 desc
// ALIGNED-NOT: LDG.E.CONSTANT
// ALIGNED-NOT: {{STG.E desc.*R[0-9]+ ;}}
// ALIGNED: EXIT

// RAGGED-NOT: STG
// RAGGED-COUNT-4: {{^ +/\*[0-9a-f]+\*/ +}}LDG.E.128.CONSTANT R{{[0-9]+}}, desc
// RAGGED: {{^ +/\*[0-9a-f]+\*/ +}}@!P{{[0-9]}} LDG.E.CONSTANT R{{[0-9]+}}, desc
// RAGGED: FMUL
// RAGGED-COUNT-4: {{^ +/\*[0-9a-f]+\*/ +}}STG.E.128 desc
// RAGGED: EXIT

@aligned(M = 32, N = 128)
kernel scale_aligned(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  Y[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128] = alpha * X[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128]
}

kernel scale_ragged(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  Y[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128] = alpha * X[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128]
}
