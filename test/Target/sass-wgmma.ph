// PTX, SASS and contract of the @tensorcore f16 GEMM compiled for sm_90a
// (bench/kernels/hgemm.ph, 128 x 128 x 64 tiles on 8 warps, 16-byte pitched
// rows): per K step each of the two warpgroups issues 4 wgmma m64n128k16
// (HGMMA.64x128x16.F32) from shared-memory descriptors; the operands come by
// TMA into a 3-stage ring of 128-byte swizzled stages, each stage behind an
// mbarrier armed with its byte count (SYNCS.ARRIVE.TRANS64) and waited on by
// phase (SYNCS.PHASECHK). A whole tile of A comes in one 5-D copy, an edge
// tile in sixteen 8-row boxes; B in two 64-column boxes. No local memory.
// The main loop keeps one wgmma group in flight (wgmma_overlap.py): each
// iteration waits only for the previous group (wait_group 1, DEPBAR.LE 0x1),
// then the CTA barrier, then refills the stage that group read; the first
// wgmma starts the sum by a run-time scale-d, so no move zeroes the
// accumulators, and ptxas keeps the four HGMMAs of a step together (one
// WARPGROUP.ARRIVE; no C7515 "serialized" diagnostic).
// The generic variant (rows not proven 16-byte aligned) runs mma.sync and
// says why.
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --emit=ptx --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --emit=contract --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=PLAN
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --emit=contract | FileCheck %s --check-prefix=GENERIC
// RUN: phobos explain %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=EXPLAIN
// RUN: phobos explain %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a | FileCheck %s --check-prefix=EXPLAIN-GENERIC
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --emit=cubin --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' -o %t.cubin
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'HGMMA.64x128x16.F32' | FileCheck %s --check-prefix=FOUR
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'UTMALDG.5D' | FileCheck %s --check-prefix=THREE
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'UTMALDG.2D' | FileCheck %s --check-prefix=BOXES
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'SYNCS.ARRIVE.TRANS64' | FileCheck %s --check-prefix=THREE
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | FileCheck %s --check-prefix=SASS
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'WARPGROUP.ARRIVE' | FileCheck %s --check-prefix=ONE
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --chip sm_90a --emit=ptx --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// ONE: {{^}}1{{$}}
// PTXAS-NOT: C7515
// PTXAS: Used {{[0-9]+}} registers
// PTXAS-NOT: C7515
// FOUR: {{^}}4{{$}}
// THREE: {{^}}3{{$}}
// BOXES: {{^}}54{{$}}

// The extern region is 1024-aligned (the swizzle's period); the maps are the
// last parameters (.u64 pointers to the runtime's CUtensorMaps).
// PTX: .extern .shared .align 1024 .b8 __phobos_smem[];
// PTX-LABEL: .entry hgemm(
// PTX-NOT: .local
// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init.release.cluster;
// PTX: prefetch.tensormap
// PTX: fence.proxy.async.shared::cta;
// PTX: mov.b32 [[TX:%r[0-9]+]], 32768;
// PTX: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[TX]];
// PTX: cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.fence.sync.aligned;
// PTX: setp.ne.b32 p, %r{{[0-9]+}}, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: setp.ne.b32 p, 1, 0;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX-NEXT: bar.sync 0;
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: ret;

// SASS: HGMMA.64x128x16.F32
// SASS: WARPGROUP.DEPBAR.LE gsb0, 0x1
// SASS: WARPGROUP.DEPBAR.LE gsb0, 0x0
// SASS-NOT: LDL
// SASS-NOT: STL

// PLAN: "abi": [
// PLAN: "box": [
// PLAN-NEXT: 64,
// PLAN-NEXT: 8
// PLAN-NEXT: ],
// PLAN-NEXT: "kind": "tensormap",
// PLAN-NEXT: "param": 0,
// PLAN: "kind": "tensormap",
// PLAN-NEXT: "param": 0,
// PLAN-NEXT: "split": [
// PLAN: "kind": "tensormap",
// PLAN-NEXT: "param": 1,
// PLAN: "shared_bytes": 98304
// PLAN: "align": 1024,
// PLAN: "swizzle": 128,
// PLAN: "wgmma groups in flight": 1
// PLAN: "tensor_cores": {
// PLAN-NEXT: "instruction": "wgmma",

// GENERIC: "tensor_cores": {
// GENERIC-NEXT: "instruction": "mma.sync",
// GENERIC-NEXT: "why not wgmma": "the dot at {{.*}}hgemm.ph:13:12: the rows of its lhs at {{.*}}hgemm.ph:13:16 are not proven 16-byte aligned (TMA needs 16-byte aligned rows and base)"

// EXPLAIN: kernel 'hgemm': 256 threads, layout (1x2 per thread, 8x4 lanes per warp, 8x1 warps, neighbouring threads along the last dimension)
// EXPLAIN: load of 'A'
// EXPLAIN: staged: TMA copies this tile into 128-byte swizzled shared memory
// EXPLAIN: note: tensor cores: wgmma, its operands copied by TMA
// EXPLAIN: note: schedule of the loop at {{.*}}hgemm.ph:12:3: a 3-stage TMA ring, 1 wgmma group in flight across iterations
// EXPLAIN-GENERIC: note: tensor cores: ldmatrix + mma.sync; not wgmma: the dot at {{.*}}hgemm.ph:13:12: the rows of its lhs
