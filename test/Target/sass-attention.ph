// PTX, SASS and contract of examples/attention_f16.ph (64 queries x 64 keys,
// D = 64, 4 warps, 16-byte pitched rows). Every warp lies along the rows, so
// rowmax and rowsum are in-warp shuffles (8 SHFL.BFLY, no shared memory), and
// Q and P never visit shared memory: their registers are the A fragments.
//   sm_90: K and V come by cp.async into a 3-stage ring (the only buffers, one
//   barrier); each warp reads them with ldmatrix (16 x4, 16 x4.trans) for
//   32 + 32 mma.sync m16n8k16.
//   sm_90a: K and V come by 3-D TMA boxes ([1, 64, 64] of [H, S, D]) behind
//   mbarriers; each dot is 4 wgmma m64n64k16 with A in registers (the PTX
//   instruction as inline assembly), B from a descriptor (V's transposed).
// Both: @fastmath exp is ex2.approx.ftz (34 MUFU.EX2: 32 scores, 2 rescales),
// the key mask compares in 32 bits (tile-narrow-compares), no local memory.
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %S/../../examples/attention_f16.ph --emit=contract --key='Q=a16.e16x16x16.s16x16;K=a16.e16x16x16.s16x16;V=a16.e16x16x16.s16x16;O=a16.e16x16x16.s16x16' | FileCheck %s --check-prefix=PLAN
// RUN: phobos compile %S/../../examples/attention_f16.ph --emit=cubin --key='Q=a16.e16x16x16.s16x16;K=a16.e16x16x16.s16x16;V=a16.e16x16x16.s16x16;O=a16.e16x16x16.s16x16' -o %t.cubin
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | FileCheck %s --check-prefix=SASS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'HMMA.16816.F32' | FileCheck %s --check-prefix=MMAS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'LDSM.16.M88.4' | FileCheck %s --check-prefix=SIXTEEN
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'LDSM.16.MT88.4' | FileCheck %s --check-prefix=SIXTEEN
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'SHFL.BFLY' | FileCheck %s --check-prefix=SHUFFLES
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'MUFU.EX2' | FileCheck %s --check-prefix=EXPS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'BAR.SYNC' | FileCheck %s --check-prefix=ONE
// RUN: phobos compile %S/../../examples/attention_f16.ph --chip sm_90a --emit=contract --key='Q=a16.e16x16x16.s16x16;K=a16.e16x16x16.s16x16;V=a16.e16x16x16.s16x16;O=a16.e16x16x16.s16x16' | FileCheck %s --check-prefix=WGMMA-PLAN
// RUN: phobos compile %S/../../examples/attention_f16.ph --chip sm_90a --emit=ptx --key='Q=a16.e16x16x16.s16x16;K=a16.e16x16x16.s16x16;V=a16.e16x16x16.s16x16;O=a16.e16x16x16.s16x16' | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %S/../../examples/attention_f16.ph --chip sm_90a --emit=cubin --key='Q=a16.e16x16x16.s16x16;K=a16.e16x16x16.s16x16;V=a16.e16x16x16.s16x16;O=a16.e16x16x16.s16x16' -o %t.a.cubin
// RUN: %nvdisasm -c %t.a.cubin 2>/dev/null | FileCheck %s --check-prefix=WGMMA
// RUN: %nvdisasm -c %t.a.cubin 2>/dev/null | grep -c 'HGMMA.64x64x16.F32' | FileCheck %s --check-prefix=EIGHT
// RUN: %nvdisasm -c %t.a.cubin 2>/dev/null | grep -c 'HGMMA.64x64x16.F32 .*tnspB' | FileCheck %s --check-prefix=FOUR
// RUN: %nvdisasm -c %t.a.cubin 2>/dev/null | grep -c 'MUFU.EX2' | FileCheck %s --check-prefix=EXPS
// MMAS: {{^}}64{{$}}
// SIXTEEN: {{^}}16{{$}}
// SHUFFLES: {{^}}8{{$}}
// EXPS: {{^}}34{{$}}
// ONE: {{^}}1{{$}}
// EIGHT: {{^}}8{{$}}
// FOUR: {{^}}4{{$}}

// The ring of K and V is all the shared memory: no buffer for Q, P or the reductions.
// PLAN: "buffers": [
// PLAN: "name": "rhs of the dot at {{.*}}attention_f16.ph:[[#]]:[[#]]",
// PLAN: "stages": 3,
// PLAN: "name": "rhs of the dot at {{.*}}attention_f16.ph:[[#]]:[[#]]",
// PLAN: "stages": 3,
// PLAN-NEXT: "where":
// PLAN-NEXT: "write_wavefronts": 0
// PLAN-NEXT: }
// PLAN-NEXT: ],
// PLAN: "instruction": "mma.sync"

// SASS-NOT: LDL
// SASS-NOT: STL
// SASS: LDGSTS.E.BYPASS.128
// SASS: HMMA.16816.F32
// SASS: MUFU.EX2
// SASS-NOT: ISETP.GE.AND.EX {{.*}}, !P{{[0-9]}} ;

// WGMMA-PLAN: "instruction": "wgmma",
// WGMMA-PLAN: "box": [
// WGMMA-PLAN-NEXT: 64,
// WGMMA-PLAN-NEXT: 64,
// WGMMA-PLAN-NEXT: 1
// WGMMA-PLAN-NEXT: ],
// WGMMA-PLAN-NEXT: "kind": "tensormap",
// WGMMA-PLAN-NEXT: "param": 1,

// PTX-NOT: .local
// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// (LLVM lays the loop's blocks out in either order: the dots and the exps in any order)
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{\{(%r[0-9]+, ){31}%r[0-9]+\}, \{(%r[0-9]+, ){3}%r[0-9]+\}, %rd[0-9]+, p, 1, 1, 0;}}
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{\{(%r[0-9]+, ){31}%r[0-9]+\}, \{(%r[0-9]+, ){3}%r[0-9]+\}, %rd[0-9]+, p, 1, 1, 1;}}

// WGMMA-NOT: LDL
// WGMMA-NOT: STL
// WGMMA: UTMALDG.3D
// WGMMA: SYNCS.PHASECHK.TRANS64.TRYWAIT
// WGMMA: HGMMA.64x64x16.F32 R{{[0-9]+}}, R{{[0-9]+}}, gdesc
