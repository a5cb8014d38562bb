// padded(X[...], value) reads a slice whose elements outside the tensor are
// `value`: the load_slice carries `padding`, a scalar of the tensor's element
// type (the constant converted to it); a plain slice has none (zero). `inf`
// is a float literal (`-inf` by unary minus) that a declaration can hide.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @fills(
@autotune(BR in [4], BIG in [200])
kernel fills(X: tensor<f32>[M, N], H: tensor<f16>[M], G: tensor<bf16>[M], I: tensor<i32>[M],
             J: tensor<i8>[M], B: tensor<bool>[M], Y: tensor<f32>[M, 1]) {
  let r = ctx.block.x * BR
  // CHECK: %[[X:.*]] = "tile.load_slice"(%arg0, %{{.*}}, %{{.*}}) {padding = 0xFF800000 : f32} : (memref<?x?xf32>, index, index) -> tensor<4x64xf32>
  // CHECK: "tile.reduce"(%[[X]]) {axis = 1 : i64, kind = "max"}
  Y[r :+ BR, 0 :+ 1] = rowmax(padded(X[r :+ BR, 0 :+ 64], -inf))
  // A point subscript: the load is of the full slice, then collapsed.
  // CHECK: "tile.load_slice"(%arg0, %{{.*}}, %{{.*}}) {padding = 0x7F800000 : f32} : (memref<?x?xf32>, index, index) -> tensor<1x64xf32>
  // CHECK-NEXT: tensor.collapse_shape
  let row = padded(X[r, 0 :+ 64], inf)
  // CHECK: "tile.load_slice"(%arg1, %{{.*}}) {padding = 0xFC00 : f16} : (memref<?xf16>, index) -> tensor<16xf16>
  let h = padded(H[r :+ 16], -inf)
  // 0.1 rounded to f16:
  // CHECK: "tile.load_slice"(%arg1, %{{.*}}) {padding = 9.997550e-02 : f16}
  let h2 = padded(H[r :+ 16], 0.1)
  // CHECK: "tile.load_slice"(%arg2, %{{.*}}) {padding = -1.000000e+00 : bf16}
  let g = padded(G[r :+ 16], -1)
  // CHECK: "tile.load_slice"(%arg3, %{{.*}}) {padding = -2147483648 : i32}
  let i = padded(I[r :+ 16], -2147483648)
  // A typed constant converts as a store would: the index 200 wraps to i8.
  // CHECK: "tile.load_slice"(%arg4, %{{.*}}) {padding = -56 : i8}
  let j = padded(J[r :+ 16], BIG)
  // A float constant truncates toward zero and saturates.
  // CHECK: "tile.load_slice"(%arg3, %{{.*}}) {padding = -2 : i32}
  // CHECK: "tile.load_slice"(%arg3, %{{.*}}) {padding = 2147483647 : i32}
  let q: f32 = -2.7
  let big: f32 = 1e20
  let i2 = padded(I[r :+ 16], q) + padded(I[r :+ 16], big)
  // CHECK: "tile.load_slice"(%arg5, %{{.*}}) {padding = true}
  let b = padded(B[r :+ 16], true)
  // The default: no padding, the elements read as zero.
  // CHECK: "tile.load_slice"(%arg0, %{{.*}}, %{{.*}}) : (memref<?x?xf32>, index, index) -> tensor<4x64xf32>
  let plain = X[r :+ BR, 0 :+ 64]
  // -inf anywhere else is a float constant.
  // CHECK: arith.constant 0xFF800000 : f32
  let lo: f32 = -inf
  Y[r :+ BR, 0 :+ 1] = rowmax(tmax(plain, lo))
}

// CHECK-LABEL: func.func @hidden(
kernel hidden(X: tensor<f32>[M]) {
  // CHECK: "tile.load_slice"(%arg0, %{{.*}}) {padding = 2.000000e+00 : f32}
  let inf = 2.0
  X[0 :+ 16] = padded(X[0 :+ 16], inf)
}
