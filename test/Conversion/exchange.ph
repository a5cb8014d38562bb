// Reductions, scans and transposes move values between threads
// (lowering/ops/exchange.py). A [4, 256] tile on 128 threads: each row spans the 32
// lanes of every warp and the 4 warps, two elements per thread.
// RUN: phobos compile %s --emit=gpu | FileCheck %s
// RUN: phobos compile %s --emit=contract | FileCheck %s --check-prefix=PLAN
// RUN: phobos compile %s --emit=ptx | FileCheck %s --check-prefix=PTX

@launch(128)
kernel rows(X: tensor<f32>[M, 256], S: tensor<f32>[M], P: tensor<f32>[M, 256], T: tensor<f32>[256, M]) {
  let r = ctx.block.x * 4
  let x = X[r :+ 4, :]
  // sum: each thread adds its two elements per row, a butterfly over the 32
  // lanes (offsets 1 to 16) gives every lane its warp's sum, one lane per warp
  // writes it, and after one barrier every thread adds the 4 warps' sums.
  // CHECK-LABEL: gpu.func @rows
  // CHECK-COUNT-4: arith.addf
  // CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
  // CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
  // CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
  // CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
  // CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
  // CHECK: scf.if
  // CHECK: memref.store {{.*}} : memref<16xf32, #gpu.address_space<workgroup>>
  // CHECK: gpu.barrier
  // CHECK-COUNT-16: memref.load {{.*}} : memref<16xf32, #gpu.address_space<workgroup>>
  S[r :+ 4] = sum(x, 1)
  // cumsum: inclusive Hillis-Steele over the lanes (shfl.up 1 to 16, kept
  // only by lanes far enough along), the exclusive value one lane up, the warps'
  // totals through shared memory, and each wrap of the layout carried into the next.
  // CHECK: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32 : f32
  // CHECK: arith.select
  // CHECK: gpu.shuffle  up %{{.*}}, %c16_i32, %c32_i32 : f32
  // CHECK: gpu.barrier
  // CHECK: memref.load {{.*}} : memref<32xf32, #gpu.address_space<workgroup>>
  P[r :+ 4, :] = cumsum(x, 1)
  // transpose: written row by row with rows padded to 257 elements, one barrier, read back down the columns.
  // CHECK: memref.store {{.*}} : memref<1028xf32, #gpu.address_space<workgroup>>
  // CHECK: gpu.barrier
  // CHECK: memref.load {{.*}} : memref<1028xf32, #gpu.address_space<workgroup>>
  // CHECK-NOT: gpu.barrier
  // CHECK: gpu.return
  T[:, r :+ 4] = transpose(x)
}

// Three small buffers with bytes of their own (no barrier between their uses),
// one barrier each, every one a read after a write.
// PLAN: "shared_bytes": 4304
// PLAN: "at": "the reads of the reduction at {{.*}}exchange.ph:26:15",
// PLAN-NEXT: "kept": true,
// PLAN-NEXT: "reason": "read after write: after the writes of the reduction at {{.*}}exchange.ph:26:15"
// PLAN: "at": "the reads of the scan at {{.*}}exchange.ph:35:18",
// PLAN-NEXT: "kept": true,
// PLAN: "at": "the reads of the transpose at {{.*}}exchange.ph:42:18",
// PLAN-NEXT: "kept": true,
// PLAN-NOT: "kept"
// PLAN: "ld": 4,
// PLAN-NEXT: "name": "the reduction at {{.*}}exchange.ph:26:15",
// PLAN-NEXT: "offset": 4240,
// PLAN: "ld": 257,
// PLAN-NEXT: "name": "the transpose at {{.*}}exchange.ph:42:18",
// PLAN-NEXT: "offset": 0,
// PTX: .extern .shared .align 16 .b8 __phobos_smem[];
// PTX-LABEL: .visible .entry rows(
// PTX-COUNT-20: shfl.sync.bfly.b32
// PTX-COUNT-3: bar.sync{{[[:space:]]+}}0;
// PTX-NOT: bar.sync
// PTX-NOT: .local
// PTX: ret;
