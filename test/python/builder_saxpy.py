# saxpy in the offset form: arange offsets, hints, a mask against the extent. The offsets are i32
# because the block offset is cast to i32: `index + i32` would be `index`, as in the language.
# RUN: %python %s | FileCheck %s

from phobos import builder as tb
from phobos.dialect.verify import verify_tile_ir

BLOCK = 1024

with tb.context(), tb.Location.unknown():
    module = tb.Module.create()
    with tb.InsertionPoint(module.body):

        @tb.kernel(launch=128)
        def saxpy(X: tb.Tensor(tb.f32, "N"), Y: tb.Tensor(tb.f32, "N"), a: tb.f32, extents):
            offsets = tb.cast(tb.block_id(0) * BLOCK, tb.i32) + tb.arange(0, BLOCK, tb.i32)
            offsets = tb.max_contiguous(tb.multiple_of(offsets, BLOCK), BLOCK)
            mask = offsets < tb.cast(extents["N"], tb.i32)
            x = tb.load(X, offsets, mask)
            y = tb.load(Y, offsets, mask)
            tb.store(Y, offsets, a * x + y, mask)

    assert verify_tile_ir(module.operation)
    print(module)

# CHECK-LABEL: func.func @saxpy(
# CHECK-SAME: attributes {tile.kernel, tile.launch = {threads = 128 : i64}}
# CHECK: %[[N:.+]] = memref.dim
# CHECK: %[[PID:.+]] = "tile.block_id"() {dim = 0 : i64} : () -> index
# CHECK: %[[BASE:.+]] = arith.muli %[[PID]], %{{.+}} : index
# CHECK: %[[BASE32:.+]] = arith.index_cast %[[BASE]] : index to i32
# CHECK: %[[R:.+]] = "tile.range"() {end = 1024 : i64, start = 0 : i64} : () -> tensor<1024xi32>
# CHECK: %[[SPLAT:.+]] = tensor.splat %[[BASE32]] : tensor<1024xi32>
# CHECK: %[[OFF:.+]] = arith.addi %[[SPLAT]], %[[R]] : tensor<1024xi32>
# CHECK: %[[H1:.+]] = "tile.hint"(%[[OFF]]) {divisibility = array<i64: 1024>}
# CHECK: %[[H2:.+]] = "tile.hint"(%[[H1]]) {contiguity = array<i64: 1024>}
# CHECK: %[[N32:.+]] = arith.index_cast %[[N]] : index to i32
# CHECK: %[[MASK:.+]] = arith.cmpi slt, %[[H2]], %{{.+}} : tensor<1024xi32>
# CHECK: %[[X:.+]] = "tile.load"(%arg0, %[[H2]], %[[MASK]])
# CHECK-SAME: : (memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> tensor<1024xf32>
# CHECK: %[[Y:.+]] = "tile.load"(%arg1, %[[H2]], %[[MASK]])
# CHECK: %[[AX:.+]] = arith.mulf %{{.+}}, %[[X]] : tensor<1024xf32>
# CHECK: %[[SUM:.+]] = arith.addf %[[AX]], %[[Y]] : tensor<1024xf32>
# CHECK: "tile.store"(%[[SUM]], %arg1, %[[H2]], %[[MASK]])
