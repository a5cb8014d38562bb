// Warp roles on the sm_90a GEMM ring (lowering/warp_roles.py): bench/kernels/hgemm.ph with
// 128 x 256 x 64 tiles, whose 3-stage ring (144 KB) keeps a second CTA off the SM anyway. The
// CTA gets a producer warpgroup (384 threads): it gives registers back (setmaxnreg.dec 40,
// USETMAXREG.DEALLOC) and its first thread waits for a free stage, arms the stage's full
// mbarrier with the bytes (SYNCS.ARRIVE.TRANS64) and issues the TMA copies; the 8 consumer
// warps take the registers (setmaxnreg.inc 232, USETMAXREG.TRY_ALLOC), wait for each stage,
// issue the four wgmmas of a k step, wait for the previous group and free its stage from each
// warp (mbarrier.arrive, SYNCS.ARRIVE.TRANS64.A1T0). The one CTA barrier left is the one after
// the mbarriers are armed. The contract launches 384 threads and the plan says so.
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 -D TN=256 --chip sm_90a --emit=ptx --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 -D TN=256 --chip sm_90a --emit=contract --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=PLAN
// RUN: phobos explain %S/../../bench/kernels/hgemm.ph -D TK=64 -D TN=256 --chip sm_90a --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=EXPLAIN
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 -D TN=256 --chip sm_90a --emit=cubin --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' -o %t.cubin
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'HGMMA.64x256x16.F32' | FileCheck %s --check-prefix=FOUR
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'SYNCS.ARRIVE.TRANS64 ' | FileCheck %s --check-prefix=ONE
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'SYNCS.ARRIVE.TRANS64.A1T0' | FileCheck %s --check-prefix=ONE
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'BAR.SYNC' | FileCheck %s --check-prefix=ONE
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | grep -c 'WARPGROUP.ARRIVE' | FileCheck %s --check-prefix=ONE
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | FileCheck %s --check-prefix=SASS
// ONE: {{^}}1{{$}}
// FOUR: {{^}}4{{$}}

// PTX-LABEL: .entry hgemm(
// PTX: .maxntid 384, 1, 1
// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init.release.cluster;
// PTX: bar.sync 0;
// PTX-NEXT: fence.proxy.async.shared::cta;
// PTX-NOT: bar.sync
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX: mbarrier.arrive.shared.b64
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: mov.b32 [[TX:%r[0-9]+]], 49152;
// PTX-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[TX]];
// PTX: cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-NOT: bar.sync
// PTX: ret;

// SASS: BAR.SYNC.DEFER_BLOCKING 0x0
// SASS: USETMAXREG.TRY_ALLOC.CTAPOOL {{.*}}, 0xe8
// SASS: WARPGROUP.DEPBAR.LE gsb0, 0x1
// SASS: USETMAXREG.DEALLOC.CTAPOOL 0x28
// SASS-NOT: LDL
// SASS-NOT: STL

// PLAN: "warp roles": "a producer warpgroup (40 registers) issues the TMA copies; 8 consumer warps (232 registers)",
// PLAN-NEXT: "wgmma groups in flight": 1
// PLAN: "threads": 384

// EXPLAIN: schedule of the loop at {{.*}}hgemm.ph:12:3: a 3-stage TMA ring, 1 wgmma group in flight across iterations, each warp frees the stage on its empty mbarrier after its wait; one CTA per output tile (no persistent grid), a producer warpgroup (40 registers) issues the TMA copies; 8 consumer warps (232 registers)
