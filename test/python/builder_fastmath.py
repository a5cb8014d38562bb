# fastmath=True (the builder's @fastmath) records tile.fastmath on the kernel and
# puts fastmath<afn> on every float math op and arith.divf, inside loops too;
# other arithmetic, integer abs and integer division keep no flags, and a
# kernel without it has none.
# RUN: %python %s | FileCheck %s

from phobos import builder as tb
from phobos.dialect.verify import verify_tile_ir

with tb.context(), tb.Location.unknown():
    module = tb.Module.create()
    with tb.InsertionPoint(module.body):
        for fast in (True, False):

            def body(X: tb.Value, Y: tb.Value, K: tb.Value, extents):
                x = tb.load_slice(X, [0], [128])
                i = tb.load_slice(K, [0], [128])
                with tb.for_range(0, extents["N"], 128, carry=[x]) as loop:
                    (acc,) = loop.carried
                    loop.yield_(tb.binary("div", tb.sqrt(acc), x) + tb.exp(acc))
                (acc,) = loop.results
                tb.store_slice(Y, [0], tb.log(tb.abs_(acc)) * tb.tanh(acc))
                tb.store_slice(K, [0], tb.binary("div", tb.abs_(i), i))

            params = [("X", tb.Tensor(tb.f32, "N")), ("Y", tb.Tensor(tb.f32, "N")), ("K", tb.Tensor(tb.i32, "N"))]
            tb.build_kernel("fast" if fast else "plain", params, body, fastmath=fast)

    assert verify_tile_ir(module.operation)
    print(module)

# CHECK-LABEL: func.func @fast(
# CHECK-SAME: tile.fastmath
# CHECK: scf.for
# CHECK: math.sqrt %{{.*}} fastmath<afn> : tensor<128xf32>
# CHECK: arith.divf %{{.*}} fastmath<afn> : tensor<128xf32>
# CHECK: math.exp %{{.*}} fastmath<afn> : tensor<128xf32>
# CHECK: arith.addf %{{[^ ]*}}, %{{[^ ]*}} : tensor<128xf32>
# CHECK: math.absf %{{.*}} fastmath<afn> : tensor<128xf32>
# CHECK: math.log %{{.*}} fastmath<afn> : tensor<128xf32>
# CHECK: math.tanh %{{.*}} fastmath<afn> : tensor<128xf32>
# CHECK: arith.mulf %{{[^ ]*}}, %{{[^ ]*}} : tensor<128xf32>
# CHECK: math.absi %{{[^ ]*}} : tensor<128xi32>
# CHECK: arith.divsi %{{[^ ]*}}, %{{[^ ]*}} : tensor<128xi32>
# CHECK-LABEL: func.func @plain(
# CHECK-NOT: fastmath
# CHECK: return
