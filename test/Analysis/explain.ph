// phobos explain: per global load and store, the vector width and the missing
// fact, the mask and what dropped it, the lanes and the 128-byte lines of one
// warp request; the same kernel without and with a 16-byte specialisation key.
// RUN: phobos explain %s --kernel scale | FileCheck %s --check-prefix=GENERIC
// RUN: phobos explain %s --kernel scale --key 'X=a16.e16x16.s16;Y=a16.e16x16.s16' | FileCheck %s --check-prefix=KEY16
// RUN: phobos explain %s --kernel colwalk | FileCheck %s --check-prefix=COL
// RUN: phobos explain %s --kernel saxpy -D BLOCK=256 | FileCheck %s --check-prefix=SAXPY
// RUN: phobos explain %s --json | FileCheck %s --check-prefix=JSON
// RUN: not phobos explain %s --kernel nope 2>&1 | FileCheck %s --check-prefix=NOPE

// GENERIC: explain.ph:[[@LINE+3]]:8: kernel 'scale': 256 threads, layout (1x4 per thread, 1x32 lanes per warp, 8x1 warps, neighbouring threads along the last dimension), key (generic)
@autotune(TM in [32], TN in [128])
@aligned(M = TM, N = TN)
kernel scale(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  // GENERIC: explain.ph:[[@LINE+16]]:11: load of 'X' (tile.load_slice, tile 32x128 x f32)
  // GENERIC-NEXT: vector: 4 elements (16 bytes) per access
  // GENERIC-NEXT: missing (the row stride): the stride of dimension 0 of 'X' is not known to be a multiple of 4
  // GENERIC-NEXT: missing (alignment of the base): the base of 'X' is not known to be 16-byte aligned
  // GENERIC-NEXT: realigned rows (tile-realign-rows): 16-byte vectors on the aligned middle of each row
  // GENERIC-NEXT: mask: dim 0 dropped by @aligned(M = 32); dim 1 dropped by @aligned(N = 128)
  // GENERIC-NEXT: lanes: coalesced: neighbouring lanes walk dimension 1 of 'X', the contiguous one (stride 1); lanes start 4 elements apart along it
  // GENERIC-NEXT: lines: one warp request touches 4 128-byte lines (ideal 4) for 512 bytes
  // GENERIC-NEXT: explain.ph:[[@LINE+9]]:3: store of 'Y'
  // KEY16: kernel 'scale': {{.*}} layout (1x4 per thread, 1x32 lanes per warp, 8x1 warps, neighbouring threads along the last dimension), key X=a16.e16x16.s16;Y=a16.e16x16.s16
  // KEY16: explain.ph:[[@LINE+6]]:11: load of 'X'
  // KEY16-NEXT: vector: 4 elements (16 bytes) per access
  // KEY16-NEXT: mask: dim 0 dropped by @aligned(M = 32); dim 1 dropped by @aligned(N = 128)
  // KEY16-NEXT: lanes: coalesced: {{.*}} lanes start 4 elements apart along it
  // KEY16-NEXT: lines: one warp request touches 4 128-byte lines (ideal 4) for 512 bytes
  // KEY16-NOT: missing
  var x = X[pm * TM :+ TM, pn * TN :+ TN]
  Y[pm * TM :+ TM, pn * TN :+ TN] = alpha * x
}

// One column per CTA: neighbouring lanes are a row stride apart.
// COL: kernel 'colwalk'
// COL: explain.ph:[[@LINE+10]]:33: load of 'X' (tile.load_slice, tile 256x1 x f32)
// COL-NEXT: vector: 1 element (4 bytes) per access, narrower than 16 bytes
// COL-NEXT: 16-byte vectors are out of reach: the tile's last extent 1 and 4-byte elements allow at most 1 per access
// COL-NEXT: mask: dim 0 dropped by @aligned(M = 256); dim 1 dropped by a tile extent of 1 whose start stays inside the tensor
// COL-NEXT: lanes: strided: neighbouring lanes walk dimension 0 of 'X', whose index is multiplied by the stride of dimension 0 of 'X' (N elements when rows are packed): strided
// COL-NEXT: lines: one warp request touches 32 128-byte lines (ideal 1) for 128 bytes
@aligned(M = 256)
kernel colwalk(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let col = ctx.block.x
  let r = ctx.block.y * 256
  Y[r :+ 256, col :+ 1] = 2.0 * X[r :+ 256, col :+ 1]
}

// Without @aligned the masks stay; -D picks the tile.
// SAXPY: explain.ph:[[@LINE+6]]:28: load of 'X' (tile.load_slice, tile 256 x f32)
// SAXPY: missing (the extent divisibility): the extent 'N' is not known to be a multiple of 4 (add @aligned(N = ...) or pass aligned data)
// SAXPY-NEXT: mask: dim 0 kept: the extent 'N' is not known to be a multiple of 256 (add @aligned(N = ...) or pass aligned data)
@autotune(BLOCK in [1024, 256])
kernel saxpy(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}

// JSON: "name": "scale"
// JSON: "vector_width": 4
// JSON: "shared_buffers": []
// JSON: "barriers": []
// JSON: "name": "colwalk"
// JSON: "strided": true
// NOPE: phobos: error: --kernel: {{.*}} has no kernel 'nope' (it has scale, colwalk, saxpy)
