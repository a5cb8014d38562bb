// @assert_coalesced is a kernel flag (tile.assert_coalesced); in the gpu stage
// a strided global access is an error at its source position.
// RUN: phobos compile %s | FileCheck %s --check-prefix=TILE
// RUN: not phobos compile %s --emit=gpu 2>&1 | FileCheck %s
// RUN: not phobos check %S/Inputs/assert-coalesced-args.ph 2>&1 | FileCheck %s --check-prefix=ARGS

// TILE: func.func @colwalk({{.*}}) attributes {tile.aligned = {M = 256 : i64}, tile.assert_coalesced, tile.kernel, tile.launch = {threads = 256 : i64}}
// CHECK: assert-coalesced.ph:[[@LINE+8]]:33: error: @assert_coalesced: the lanes of this load of 'X' are strided: the lane-varying term (the index along dimension 0 of 'X') is multiplied by the stride of dimension 0 of 'X' (N elements when rows are packed); one warp request touches 32 128-byte lines (ideal 1)
// CHECK: assert-coalesced.ph:[[@LINE+7]]:3: error: @assert_coalesced: the lanes of this store of 'Y' are strided
@assert_coalesced
@aligned(M = 256)
@launch(256)
kernel colwalk(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
  let col = ctx.block.x
  let r = ctx.block.y * 256
  Y[r :+ 256, col :+ 1] = 2.0 * X[r :+ 256, col :+ 1]
}
// ARGS: assert-coalesced-args.ph:1:19: error: @assert_coalesced takes no arguments
