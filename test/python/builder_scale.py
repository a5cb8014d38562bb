# The builder API reads like the kernel: 2-D scale in the slice form with an
# @aligned promise. Built ops carry this file's line and column.
# RUN: %python %s | FileCheck %s

from phobos import builder as tb
from phobos.dialect.verify import verify_tile_ir

with tb.context(), tb.Location.unknown():
    module = tb.Module.create()
    with tb.InsertionPoint(module.body):

        @tb.kernel(aligned={"M": 32, "N": 128}, launch=256)
        def scale(X: tb.Tensor(tb.f32, "M", "N"), Y: tb.Tensor(tb.f32, "M", "N"), alpha: tb.f32):
            rows = tb.block_id(0) * 32
            cols = tb.block_id(1) * 128
            x = tb.load_slice(X, [rows, cols], [32, 128])
            tb.store_slice(Y, [rows, cols], alpha * x)

    assert verify_tile_ir(module.operation)
    module.operation.print(enable_debug_info=True)

# CHECK-LABEL: func.func @scale(
# CHECK-SAME: %[[X:.+]]: memref<?x?xf32> {tile.dims = ["M", "N"], tile.name = "X"}
# CHECK-SAME: %[[Y:.+]]: memref<?x?xf32> {tile.dims = ["M", "N"], tile.name = "Y"}
# CHECK-SAME: %[[A:.+]]: f32 {tile.name = "alpha"}
# CHECK-SAME: attributes {tile.aligned = {M = 32 : i64, N = 128 : i64},
# CHECK-SAME: tile.kernel, tile.launch = {threads = 256 : i64}}
# CHECK: %[[M:.+]] = memref.dim %[[X]], %{{.+}} : memref<?x?xf32>
# CHECK: "tile.check_multiple"(%[[M]]) {divisor = 32 : i64, symbol = "M"}
# CHECK: "tile.check_multiple"(%{{.+}}) {divisor = 128 : i64, symbol = "N"}
# CHECK: %[[PM:.+]] = "tile.block_id"() {dim = 0 : i64} : () -> index loc(#[[L14:loc[0-9]+]])
# CHECK: %[[ROWS:.+]] = arith.muli %[[PM]], %{{.+}} : index
# CHECK: %[[PN:.+]] = "tile.block_id"() {dim = 1 : i64}
# CHECK: %[[COLS:.+]] = arith.muli %[[PN]], %{{.+}} : index
# CHECK: %[[T:.+]] = "tile.load_slice"(%[[X]], %[[ROWS]], %[[COLS]])
# CHECK-SAME: : (memref<?x?xf32>, index, index) -> tensor<32x128xf32> loc(#[[L16:loc[0-9]+]])
# CHECK: %[[S:.+]] = tensor.splat %[[A]] : tensor<32x128xf32>
# CHECK: %[[P:.+]] = arith.mulf %[[S]], %[[T]] : tensor<32x128xf32>
# CHECK: "tile.store_slice"(%[[P]], %[[Y]], %[[ROWS]], %[[COLS]])
# CHECK: #[[L14]] = loc("{{.*}}builder_scale.py":14:20)
# CHECK: #[[L16]] = loc("{{.*}}builder_scale.py":16:17)
