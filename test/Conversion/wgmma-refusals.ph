// On sm_90a a @tensorcore dot runs on wgmma only where TMA can feed it;
// elsewhere it runs on mma.sync and the contract says why, naming the dot.
// RUN: phobos compile %s --kernel unpipelined --chip sm_90a --emit=contract --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=RING
// RUN: phobos compile %s --kernel narrow --chip sm_90a --emit=contract --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=NARROW
// RUN: phobos compile %s --kernel narrow --chip sm_90 --emit=contract --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=SM90
// RUN: phobos compile %S/../../examples/attention_f16.ph -D W=256 --chip sm_90a --emit=contract --key='Q=a16.e16x16x16.s16x16;K=a16.e16x16x16.s16x16;V=a16.e16x16x16.s16x16;O=a16.e16x16x16.s16x16' | FileCheck %s --check-prefix=SLICE

// RING: "instruction": "mma.sync",
// RING-NEXT: "why not wgmma": "the dot at {{.*}}wgmma-refusals.ph:[[@LINE+7]]:12: its lhs is not loaded in a pipelined loop (@pipeline)"
@launch(256)
@tensorcore
kernel unpipelined(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  var acc: tile<f32>[128, 128] = 0.0
  for k in range(0, K, 64) {
    acc += dot(A[pm * 128 :+ 128, k :+ 64], B[k :+ 64, 0 :+ 128])
  }
  C[pm * 128 :+ 128, 0 :+ 128] = acc
}

// NARROW: "instruction": "mma.sync",
// NARROW-NEXT: "why not wgmma": "the dot at {{.*}}wgmma-refusals.ph:[[@LINE+11]]:12: its lhs tile is [128, 32]; the 128-byte swizzled rows hold k = 64"
// On sm_90 there is no wgmma: nothing to explain.
// SM90: "instruction": "mma.sync"
// SM90-NOT: why not wgmma
@launch(256)
@tensorcore
@pipeline
kernel narrow(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  var acc: tile<f32>[128, 128] = 0.0
  for k in range(0, K, 32) {
    acc += dot(A[pm * 128 :+ 128, k :+ 32], B[k :+ 32, 0 :+ 128])
  }
  C[pm * 128 :+ 128, 0 :+ 128] = acc
}

// Flash attention with 64-row tiles on 8 warps (each warpgroup needs m64 of its own;
// test/Target/sass-attention.ph has the 4-warp form, which runs on wgmma).
// SLICE: "instruction": "mma.sync",
// SLICE-NEXT: "why not wgmma": "the dot at {{.*}}attention_f16.ph:{{[0-9]+}}:{{[0-9]+}}: the [64, 64] accumulator does not split into m64 x n tiles for 2 warpgroups"
