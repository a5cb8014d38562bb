// SASS of the 2-D scale kernel (nvdisasm): with @aligned and 16-byte aligned,
// row-aligned data the main path is four 128-bit loads through the read-only
// path and four 128-bit stores, none of them predicated; without the promise,
// on odd extents, every access is a 32-bit one: the 16 loads issue back to
// back (a masked-off element reads the tensor's first one, then selects 0)
// and the stores are predicated.
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

// RAGGED-NOT: LDG.E.128
// RAGGED-NOT: STG
// RAGGED-COUNT-16: {{^ +/\*[0-9a-f]+\*/ +}}LDG.E.CONSTANT R{{[0-9]+}}, desc
// RAGGED-NOT: LDG
// RAGGED-NOT: STG.E.128
// RAGGED: @{{!?}}P{{[0-9]}} STG.E desc

@aligned(M = 32, N = 128)
kernel scale_aligned(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  Y[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128] = alpha * X[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128]
}

kernel scale_ragged(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  Y[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128] = alpha * X[ctx.block.x * 32 :+ 32, ctx.block.y * 128 :+ 128]
}
