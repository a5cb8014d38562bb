// PTX and SASS of the seed GEMM (128 x 128 x 8 tiles, 256 threads, @pipeline,
// @aligned, 16-byte aligned rows): one extern shared region; 16-byte cp.async
// copies (LDGSTS.BYPASS.128) in a 3-stage ring with one barrier per K step;
// 512 FFMA per step (8 x 8 per thread x 8 k), fed by 128-bit shared loads;
// no local memory (no spills).
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %S/../../bench/kernels/gemm_aligned.ph --emit=ptx --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %S/../../bench/kernels/gemm_aligned.ph --emit=cubin --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' -o %t.cubin
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | FileCheck %s --check-prefix=SASS
// RUN: phobos compile %S/../../bench/kernels/gemm.ph --emit=ptx | FileCheck %s --check-prefix=RAGGED
// RUN: phobos compile %S/../../bench/kernels/gemm_aligned.ph --emit=ptx --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | grep -c 'fma.rn.f32' | FileCheck %s --check-prefix=FMAS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'FFMA' | FileCheck %s --check-prefix=FMAS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'BAR.SYNC' | FileCheck %s --check-prefix=BARRIERS
// FMAS: {{^}}512{{$}}
// BARRIERS: {{^}}1{{$}}

// PTX: .extern .shared .align 16 .b8 __phobos_smem[];
// PTX: .maxntid 256, 1, 1
// PTX-NOT: .local
// PTX-COUNT-2: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 1;
// PTX-NEXT: bar.sync 0;
// PTX-NOT: bar.sync
// PTX: cp.async.wait_group 0;

// SASS-NOT: {{LDL|STL}}
// SASS-COUNT-6: LDGSTS.E.BYPASS.128
// SASS-NOT: LDGSTS
// SASS-COUNT-32: LDS.128
// SASS-NOT: {{LDL|STL}}
// SASS: EXIT

// Ragged extents and rows (no key): 4-byte copies whose source size is 0 on
// masked-off elements (zero fill), still one barrier per K step.
// RAGGED: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4, %r{{[0-9]+}};
// RAGGED: cp.async.wait_group 1;
// RAGGED-NEXT: bar.sync 0;
// RAGGED-NOT: bar.sync
// RAGGED: cp.async.wait_group 0;
