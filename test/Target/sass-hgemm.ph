// PTX and SASS of the @tensorcore f16 GEMM (128 x 128 x 32 tiles on 8 warps
// of 64 x 32, @pipeline, @aligned, 16-byte aligned rows): per K step of 32,
// each warp loads its A fragments with ldmatrix.x4 (4 m16 tiles x 2 k16
// steps) and its B fragments with ldmatrix.x4.trans (two n8 tiles each: 2 x 2), and
// issues 4 x 4 x 2 = 32 mma.sync m16n8k16 (HMMA.16816.F32); the operands come
// by 16-byte cp.async (LDGSTS.BYPASS.128) in a 3-stage ring with one barrier;
// no local memory. bf16 takes the same path through nvvm.mma.sync.
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %S/../../bench/kernels/hgemm_aligned.ph --emit=ptx --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %S/../../bench/kernels/hgemm_aligned.ph --emit=cubin --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' -o %t.cubin
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | FileCheck %s --check-prefix=SASS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'HMMA.16816.F32' | FileCheck %s --check-prefix=MMAS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'LDSM.16.M88.4' | FileCheck %s --check-prefix=EIGHT
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'LDSM.16.MT88.4' | FileCheck %s --check-prefix=FOUR
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'BAR.SYNC' | FileCheck %s --check-prefix=ONE
// RUN: phobos compile %S/../../bench/kernels/bgemm.ph --emit=ptx | FileCheck %s --check-prefix=BF16
// MMAS: {{^}}32{{$}}
// EIGHT: {{^}}8{{$}}
// FOUR: {{^}}4{{$}}
// ONE: {{^}}1{{$}}

// PTX: .extern .shared .align 16 .b8 __phobos_smem[];
// PTX-LABEL: .entry hgemm(
// PTX-NOT: .local
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: ret;

// SASS: LDGSTS.E.BYPASS.128
// SASS: LDSM.16.M88.4
// SASS: HMMA.16816.F32
// SASS-NOT: {{LDL|STL}}

// BF16-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-NOT: mma.sync
