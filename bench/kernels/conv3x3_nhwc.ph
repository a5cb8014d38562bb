// 3x3 convolution (stride 1, padding 1) over NHWC as an implicit GEMM: the output
// Y[P, K] (P = N * H * W pixels, NHWC flattened) is a GEMM of gathered input rows
// X[n, h + r - 1, w + s - 1, :] (zero outside the image: a masked gather) with the
// weights Wt[(r * 3 + s) * C + c, k], over r, s and the channels. One [BP, BK] output
// tile per CTA. test_gathers_gpu.py checks it against numpy; bench_conv.py times it
// beside torch.nn.functional.conv2d in channels-last.
@autotune(BP in [64], BK in [64], BC in [16])
@launch(256)
kernel conv3x3_nhwc(X: tensor<f32>[P, C], Wt: tensor<f32>[R9, K], Y: tensor<f32>[P, K], height: i32, width: i32) {
  let p0 = ctx.block.x * BP
  let k0 = ctx.block.y * BK
  let p = arange(BP) + p0
  let hw = height * width
  let n = p / hw
  let h = (p % hw) / width
  let w = p % width
  var acc: tile<f32>[BP, BK] = 0.0
  for rs in range(0, 9) {
    let hh = h + rs / 3 - 1
    let ww = w + rs % 3 - 1
    let inside = hh >= 0 && hh < height && ww >= 0 && ww < width && p < P
    let rows = n * hw + hh * width + ww
    for c in range(0, C, BC) {
      let a = masked(X[rows, c :+ BC], inside)
      acc += dot(a, Wt[rs * C + c :+ BC, k0 :+ BK])
    }
  }
  Y[p0 :+ BP, k0 :+ BK] = acc
}
