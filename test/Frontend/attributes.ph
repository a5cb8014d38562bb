// Kernel attributes become func attributes (dialect/kernel.py): the autotune
// space (a two-value range means the powers of two between its ends) with the
// chosen bindings (the first value, or -D), launch, aligned promises (checked
// at entry by tile.check_multiple on runtime extents), and the unit flags.
// A dimension named by an @autotune constant is static in the memref type.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s
// RUN: phobos compile -D TM=128 -D NT=512 %s | FileCheck %s --check-prefix=DEFINED

// CHECK-LABEL: func.func @tuned(
// CHECK-SAME: %{{.*}}: memref<32x?xf32> {tile.dims = ["TM", "N"], tile.name = "X"}
// CHECK-SAME: tile.aligned = {N = 64 : i64, TM = 32 : i64}
// CHECK-SAME: tile.autotune = {NT = array<i64: 128, 256, 512>, TK = array<i64: 8>, TM = array<i64: 32, 64, 128>, TN = array<i64: 64, 48, 16>}
// CHECK-SAME: tile.bindings = {NT = 128 : i64, TK = 8 : i64, TM = 32 : i64, TN = 64 : i64}
// CHECK-SAME: tile.kernel
// CHECK-SAME: tile.launch = {max_regs = 64 : i64, min_blocks = 2 : i64, threads = 128 : i64}
// CHECK-SAME: tile.pipeline
// CHECK-SAME: tile.tensorcore
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %[[C1]] : memref<32x?xf32>
// CHECK: "tile.check_multiple"(%[[N]]) {divisor = 64 : i64, symbol = "N"} : (index) -> index
// CHECK: "tile.load_slice"({{.*}} -> tensor<32x64xf32>

// DEFINED-LABEL: func.func @tuned(
// DEFINED-SAME: memref<128x?xf32> {tile.dims = ["TM", "N"], tile.name = "X"}
// DEFINED-SAME: tile.aligned = {N = 64 : i64, TM = 128 : i64}
// DEFINED-SAME: tile.bindings = {NT = 512 : i64, TK = 8 : i64, TM = 128 : i64, TN = 64 : i64}
// DEFINED-SAME: tile.launch = {max_regs = 64 : i64, min_blocks = 2 : i64, threads = 512 : i64}
// DEFINED: "tile.load_slice"({{.*}} -> tensor<128x64xf32>
@autotune(TM in [32, 128], TN in [64, 48, 16], TK in [8], NT in [128, 512])
@launch(NT, 2, maxRegs = 64)
@aligned(TM = TM, N = TN)
@pipeline
@tensorcore
kernel tuned(X: tensor<f32>[TM, N]) {
  let x = X[0 :+ TM, ctx.block.x * TN :+ TN]
}

// A kernel without attributes has only tile.kernel; the defaults (256
// threads, no promises) are the readers' business.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: attributes {tile.kernel} {
// CHECK-NOT: tile.check_multiple
// CHECK: return
kernel plain(X: tensor<f32>[M, N]) {
}

// CHECK-LABEL: func.func @persistent(
// CHECK-SAME: attributes {tile.kernel, tile.launch = {threads = 1024 : i64}, tile.persistent}
@launch(threads = 1024)
@persistent
kernel persistent() {
}
