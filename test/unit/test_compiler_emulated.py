"""The lowering computes the right elements: kernels lowered to gpu.func run on
the CPU thread by thread (phobos.lowering.emulate) on random data with ragged
shapes, poisoned outputs and guard zones, against NumPy in float64.

Some inputs carry the facts tile-elide-masks and tile-specialize attach
(in_bounds, vector_width, tile.divisibility, tile.ptr_align) written by hand,
so that the vectorised and the masked code paths are both exercised; where
those passes are installed they run too (and may recompute the facts).
"""

import numpy as np
import pytest

pytest.importorskip("mlir")

from mlir import ir  # noqa: E402

from phobos import builder as tb  # noqa: E402
from phobos.analysis.abi import abi_entries, describe_params  # noqa: E402
from phobos.compiler import compile_stages  # noqa: E402
from phobos.dialect import kernel as K  # noqa: E402
from phobos.dialect import make_context  # noqa: E402
from phobos.lowering.emulate import Emulated  # noqa: E402

RNG = np.random.default_rng(20240611)


def run(src, grid, *args, key=None):
    """Compiles `src` (one kernel), runs it on the CPU; returns whether it trapped."""
    stages = compile_stages(src, key=key)
    emu = Emulated(stages["gpu"])
    with make_context():
        module = ir.Module.parse(stages["tile"])
        fn = next(op.operation for op in module.body.operations if K.is_kernel(op.operation))
        params = describe_params(fn)
        threads = K.launch(fn)["threads"]
    values = []
    for e in abi_entries(params):
        a = args[e["param"]]
        if e["kind"] == "ptr":
            values.append(a)
        elif e["kind"] == "extent":
            values.append(a.shape[e["axis"]])
        elif e["kind"] == "stride":
            values.append(a.strides[e["axis"]] // a.itemsize)
        else:
            values.append(a)
    return emu(grid, threads, *values)


def build(body) -> str:
    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):
            body()
        return str(module)


def with_facts(text: str, vector_width=None, in_bounds=None, ptr_align=None, stride_multiple=None) -> str:
    """Adds the facts tile-elide-masks / tile-specialize would give to every memory op / tensor."""
    with make_context():
        module = ir.Module.parse(text)

        def visit(op):
            if op.name in ("tile.load", "tile.store", "tile.load_slice", "tile.store_slice"):
                if vector_width:
                    op.attributes["vector_width"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), vector_width)
                if in_bounds is not None and op.name.endswith("_slice"):
                    rank = len(op.opview.starts)
                    op.attributes["in_bounds"] = ir.DenseBoolArrayAttr.get([in_bounds] * rank)
            if K.is_kernel(op) and ptr_align:
                attrs = list(ir.ArrayAttr(op.attributes["arg_attrs"]))
                new = []
                for a in attrs:
                    d = {n.name: n.attr for n in ir.DictAttr(a)}
                    if K.ARG_DIMS in d:
                        d[K.ARG_PTR_ALIGN] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), ptr_align)
                        rank = len(ir.ArrayAttr(d[K.ARG_DIMS]))
                        if stride_multiple and rank > 1:
                            d[K.ARG_STRIDE_DIVISIBILITY] = ir.DenseI64ArrayAttr.get([stride_multiple] * (rank - 1))
                    new.append(ir.DictAttr.get(d))
                op.attributes["arg_attrs"] = ir.ArrayAttr.get(new)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        return str(module)


def padded(shape, dtype, pad=3, fill=np.nan):
    """A view of `shape` inside a larger buffer (guard rows and columns, odd row pitch)."""
    buf = np.full((shape[0] + pad,) + tuple(s + pad for s in shape[1:]), fill, dtype=dtype)
    view = buf[tuple(slice(0, s) for s in shape)]
    return buf, view


def aligned_buffer(n, dtype, fill):
    """A 1-D array whose first element is 16-byte aligned."""
    raw = np.full(n + 16, fill, dtype=dtype)
    offset = (-raw.ctypes.data % 16) // raw.itemsize
    return raw[offset : offset + n]


# ----------------------------------------------------------------------------- kernels


def scale_kernel(aligned):
    def body():
        @tb.kernel(aligned={"M": 32, "N": 128} if aligned else None)
        def scale(X: tb.Tensor(tb.f32, "M", "N"), Y: tb.Tensor(tb.f32, "M", "N"), alpha: tb.f32):
            r, c = tb.block_id(0) * 32, tb.block_id(1) * 128
            tb.store_slice(Y, [r, c], alpha * tb.load_slice(X, [r, c], [32, 128]))

    return build(body)


def test_aligned_scale_vectorised():
    # Row pitches 260 and 264: multiples of 4 elements, as the key's s4 class says.
    src = with_facts(scale_kernel(True), vector_width=4, in_bounds=True, ptr_align=16, stride_multiple=4)
    M, N = 96, 256
    xbuf = aligned_buffer(M * (N + 4), np.float32, 0).reshape(M, N + 4)
    xbuf[:] = RNG.standard_normal(xbuf.shape)
    X = xbuf[:, :N]
    ybuf = aligned_buffer(M * (N + 8), np.float32, np.nan).reshape(M, N + 8)
    Y = ybuf[:, :N]
    assert "vector<4xf32>" in compile_stages(src)["gpu"]
    assert not run(src, (M // 32, N // 128), X, Y, np.float32(1.75))
    np.testing.assert_array_equal(Y, (1.75 * X.astype(np.float64)).astype(np.float32))
    assert np.isnan(ybuf[:, N:]).all()


def test_broken_promise_traps():
    src = scale_kernel(True)
    X = RNG.standard_normal((40, 128)).astype(np.float32)
    Y = np.zeros_like(X)
    assert run(src, (1, 1), X, Y, np.float32(1.0))


@pytest.mark.parametrize("M, N", [(37, 131), (1, 5), (64, 128)])
def test_masked_scale_on_ragged_views(M, N):
    src = scale_kernel(False)
    xbuf, X = padded((M, N), np.float32, fill=0)
    X[:] = RNG.standard_normal((M, N))
    ybuf, Y = padded((M, N), np.float32)
    assert not run(src, (-(-M // 32), -(-N // 128)), X, Y, np.float32(-2.5))
    np.testing.assert_array_equal(Y, (-2.5 * X.astype(np.float64)).astype(np.float32))
    assert np.isnan(ybuf[M:]).all() and np.isnan(ybuf[:, N:]).all()


SAXPY = """
func.func @saxpy(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
                 %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
                 %a: f32 {tile.name = "a"}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pid32 = arith.index_cast %pid : index to i32
  %c2048 = arith.constant 2048 : i32
  %start = arith.muli %pid32, %c2048 : i32
  %r = "tile.range"() {start = 0 : i64, end = 2048 : i64} : () -> tensor<2048xi32>
  %s = tensor.splat %start : tensor<2048xi32>
  %offs = arith.addi %s, %r : tensor<2048xi32>
  %n32 = arith.index_cast %n : index to i32
  %ns = tensor.splat %n32 : tensor<2048xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<2048xi32>
  %x = "tile.load"(%X, %offs, %mask) {vector_width = VW : i64}
      : (memref<?xf32>, tensor<2048xi32>, tensor<2048xi1>) -> tensor<2048xf32>
  %y = "tile.load"(%Y, %offs, %mask) {vector_width = VW : i64}
      : (memref<?xf32>, tensor<2048xi32>, tensor<2048xi1>) -> tensor<2048xf32>
  %as = tensor.splat %a : tensor<2048xf32>
  %ax = arith.mulf %as, %x : tensor<2048xf32>
  %z = arith.addf %ax, %y : tensor<2048xf32>
  "tile.store"(%z, %Y, %offs, %mask) {vector_width = VW : i64}
      : (tensor<2048xf32>, memref<?xf32>, tensor<2048xi32>, tensor<2048xi1>) -> ()
  return
}
"""


@pytest.mark.parametrize("n, width", [(5000, 4), (4096, 4), (4093, 1), (7, 1)])
def test_saxpy_offset_form(n, width):
    src = SAXPY.replace("VW", str(width))
    if width > 1:  # the launch facts that make width 4 legal: 16-byte bases, n % 4 == 0
        facts = 'tile.dims = ["N"], tile.divisibility = array<i64: 4>, tile.ptr_align = 16 : i64'
        src = src.replace('tile.dims = ["N"]', facts)
        assert "vector<4xf32>" in compile_stages(src)["gpu"]
    X = aligned_buffer(n, np.float32, 0)
    X[:] = RNG.standard_normal(n)
    Y = aligned_buffer(n + 8, np.float32, 0)
    Y[:] = RNG.standard_normal(n + 8)
    guard = Y[n:].copy()
    expect = (3.0 * X.astype(np.float64) + Y[:n]).astype(np.float32)
    assert not run(src, (-(-n // 2048),), X, Y[:n], np.float32(3.0))
    np.testing.assert_allclose(Y[:n], expect, rtol=1e-6, atol=1e-6)  # two f32 roundings
    np.testing.assert_array_equal(Y[n:], guard)


def test_outer_product_of_slices_with_128_threads():
    def body():
        @tb.kernel(launch=128)
        def outer(A: tb.Tensor(tb.f32, "M"), B: tb.Tensor(tb.f32, "N"), C: tb.Tensor(tb.f32, "M", "N")):
            r, c = tb.block_id(0) * 16, tb.block_id(1) * 64
            a = tb.expand_dims(tb.load_slice(A, [r], [16]), 1)
            b = tb.expand_dims(tb.load_slice(B, [c], [64]), 0)
            tb.store_slice(C, [r, c], a * b)

    # Width 4 is legal here: N and the row pitch are multiples of 4, bases 16-byte aligned.
    src = with_facts(build(body), vector_width=4, ptr_align=16)
    M, N = 35, 148
    A = RNG.standard_normal(M).astype(np.float32)
    B = aligned_buffer(N, np.float32, 0)
    B[:] = RNG.standard_normal(N)
    cbuf = aligned_buffer((M + 1) * (N + 4), np.float32, np.nan).reshape(M + 1, N + 4)
    C = cbuf[:M, :N]
    assert not run(src, (3, 3), A, B, C)
    np.testing.assert_allclose(C, np.outer(A.astype(np.float64), B), rtol=1e-6)
    assert np.isnan(cbuf[M:]).all() and np.isnan(cbuf[:, N:]).all()


def test_bias_and_elu_with_math_and_select():
    def body():
        @tb.kernel
        def bias_elu(X: tb.Tensor(tb.f32, "M", "N"), B: tb.Tensor(tb.f32, "N"), Y: tb.Tensor(tb.f32, "M", "N")):
            r, c = tb.block_id(0) * 16, tb.block_id(1) * 64
            y = tb.load_slice(X, [r, c], [16, 64]) + tb.expand_dims(tb.load_slice(B, [c], [64]), 0)
            tb.store_slice(Y, [r, c], tb.where(y > 0.0, y, tb.exp(y) - 1.0))

    src = build(body)
    M, N = 35, 100
    X = RNG.standard_normal((M, N)).astype(np.float32)
    B = RNG.standard_normal(N).astype(np.float32)
    ybuf, Y = padded((M, N), np.float32)
    assert not run(src, (3, 2), X, B, Y)
    ref = X.astype(np.float64) + B
    np.testing.assert_allclose(Y, np.where(ref > 0, ref, np.expm1(ref)), rtol=2e-6, atol=2e-7)
    assert np.isnan(ybuf[M:]).all()


def test_loop_carried_tiles():
    def body():
        @tb.kernel
        def sumsq(X: tb.Tensor(tb.f32, "M", "K"), Y: tb.Tensor(tb.f32, "M", 32), extents):
            r = tb.block_id(0) * 32
            with tb.for_range(0, extents["K"], 32, carry=[tb.zeros([32, 32])]) as loop:
                x = tb.load_slice(X, [r, loop.iv], [32, 32])
                loop.yield_(loop.carried[0] + x * x)
            tb.store_slice(Y, [r, 0], loop.results[0])

    src = build(body)
    M, K = 40, 75
    X = RNG.standard_normal((M, K)).astype(np.float32)
    Y = np.full((M, 32), np.nan, np.float32)
    assert not run(src, (2,), X, Y)
    xp = np.zeros((M, 96))
    xp[:, :K] = X
    np.testing.assert_allclose(Y, (xp.reshape(M, 3, 32) ** 2).sum(1), rtol=1e-5)


def test_branch_on_a_scalar_with_tile_results():
    src = """
func.func @pick(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
                %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
                %flag: i32 {tile.name = "flag"}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %x = "tile.load_slice"(%X, %c0) : (memref<?xf32>, index) -> tensor<256xf32>
  %on = arith.cmpi ne, %flag, %z : i32
  %r = scf.if %on -> (tensor<256xf32>) {
    %d = arith.addf %x, %x : tensor<256xf32>
    scf.yield %d : tensor<256xf32>
  } else {
    %n = arith.negf %x : tensor<256xf32>
    scf.yield %n : tensor<256xf32>
  }
  "tile.store_slice"(%r, %Y, %c0) : (tensor<256xf32>, memref<?xf32>, index) -> ()
  return
}
"""
    X = RNG.standard_normal(200).astype(np.float32)
    for flag, expect in ((1, 2 * X), (0, -X)):
        Y = np.full(200, np.nan, np.float32)
        assert not run(src, (1,), X, Y, np.int32(flag))
        np.testing.assert_array_equal(Y, expect)


def test_tile_smaller_than_the_cta_is_stored_once():
    def body():
        @tb.kernel
        def tiny(X: tb.Tensor(tb.i32, "N"), Y: tb.Tensor(tb.i32, "N")):
            o = tb.block_id(0) * 16
            tb.store_slice(Y, [o], tb.load_slice(X, [o], [16]) * 3 + 1)

    src = build(body)
    X = RNG.integers(-1000, 1000, 50).astype(np.int32)
    Y = np.zeros(50, np.int32)
    assert not run(src, (4,), X, Y)
    np.testing.assert_array_equal(Y, X * 3 + 1)
    assert "scf.if" in compile_stages(src)["gpu"]


@pytest.mark.parametrize("dtype, width", [(np.float64, 2), (np.float16, 8), (np.int8, 16)])
def test_element_types_and_widths(dtype, width):
    name = {np.float64: "f64", np.float16: "f16", np.int8: "i8"}[dtype]

    def body():
        elem = tb.ScalarType(name)

        @tb.kernel
        def twice(X: tb.Tensor(elem, "N"), Y: tb.Tensor(elem, "N")):
            o = tb.block_id(0) * 1024
            x = tb.load_slice(X, [o], [1024])
            tb.store_slice(Y, [o], x + x)

    src = with_facts(build(body), vector_width=width, in_bounds=True, ptr_align=16)
    n = 2048
    X = aligned_buffer(n, dtype, 0)
    X[:] = RNG.integers(-50, 50, n).astype(dtype)
    Y = aligned_buffer(n, dtype, 0)
    gpu = compile_stages(src)["gpu"]
    assert f"vector<{width}x{name}>" in gpu
    assert not run(src, (2,), X, Y)
    np.testing.assert_array_equal(Y, (X + X).astype(dtype))


def test_three_dimensional_tiles():
    def body():
        @tb.kernel
        def shift3(X: tb.Tensor(tb.f32, "B", "M", "N"), Y: tb.Tensor(tb.f32, "B", "M", "N")):
            b, r = tb.block_id(0) * 2, tb.block_id(1) * 8
            x = tb.load_slice(X, [b, r, 0], [2, 8, 64])
            tb.store_slice(Y, [b, r, 0], x - 1.0)

    src = build(body)
    shape = (3, 13, 50)
    X = RNG.standard_normal(shape).astype(np.float32)
    Y = np.full(shape, np.nan, np.float32)
    assert not run(src, (2, 2), X, Y)
    np.testing.assert_array_equal(Y, X - np.float32(1.0))


def test_two_dimensional_offset_form():
    def body():
        @tb.kernel
        def add_one(X: tb.Tensor(tb.f32, "M", "N"), Y: tb.Tensor(tb.f32, "M", "N"), extents):
            r = tb.cast(tb.block_id(0), tb.i32) * 32 + tb.arange(0, 32)
            c = tb.cast(tb.block_id(1), tb.i32) * 64 + tb.arange(0, 64)
            n = tb.cast(extents["N"], tb.i32)
            offs = tb.expand_dims(r, 1) * n + tb.expand_dims(c, 0)
            m = (tb.expand_dims(r, 1) < tb.cast(extents["M"], tb.i32)) & (tb.expand_dims(c, 0) < n)
            tb.store(Y, offs, tb.load(X, offs, m) + 1.0, m)

    src = build(body)
    M, N = 45, 70
    X = RNG.standard_normal((M, N)).astype(np.float32)
    Y = np.full((M + 2, N), np.nan, np.float32)
    assert not run(src, (2, 2), X, Y[:M])
    np.testing.assert_array_equal(Y[:M], X + np.float32(1.0))
    assert np.isnan(Y[M:]).all()


def test_grid_stride_loop_uses_grid_dim():
    def body():
        @tb.kernel
        def fill(Y: tb.Tensor(tb.i32, "N"), extents):
            with tb.for_range(tb.block_id(0) * 256, extents["N"], tb.grid_dim(0) * 256) as loop:
                tb.store_slice(Y, [loop.iv], tb.full([256], tb.cast(loop.iv, tb.i32)) + tb.arange(0, 256))

    src = build(body)
    n = 3000
    Y = np.zeros(n + 5, np.int32)
    assert not run(src, (3,), Y[:n])
    np.testing.assert_array_equal(Y[:n], np.arange(n))
    assert not Y[n:].any()


def test_sqrt_is_correctly_rounded():
    def body():
        @tb.kernel
        def root(X: tb.Tensor(tb.f32, "N"), Y: tb.Tensor(tb.f32, "N")):
            o = tb.block_id(0) * 512
            tb.store_slice(Y, [o], tb.sqrt(tb.load_slice(X, [o], [512])))

    src = build(body)
    assert 'llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"' in compile_stages(src)["gpu"]
    X = np.abs(RNG.standard_normal(1000)).astype(np.float32) * 100
    Y = np.full(1000, np.nan, np.float32)
    assert not run(src, (2,), X, Y)
    np.testing.assert_array_equal(Y, np.sqrt(X))


def test_float_remainder():
    def body():
        @tb.kernel
        def fmod(X: tb.Tensor(tb.f32, "N"), Y: tb.Tensor(tb.f32, "N")):
            o = tb.block_id(0) * 256
            tb.store_slice(Y, [o], tb.load_slice(X, [o], [256]) % 0.75)

    src = build(body)
    assert "arith.remf" in compile_stages(src)["gpu"]
    X = (RNG.standard_normal(300) * 10).astype(np.float32)
    Y = np.full(300, np.nan, np.float32)
    assert not run(src, (2,), X, Y)
    np.testing.assert_array_equal(Y, np.fmod(X, np.float32(0.75)))


def test_masked_loads_never_touch_an_empty_tensor():
    # Masked-off elements load the tensor's first element instead of
    # branching; an empty tensor has none, so a uniform check skips its loads.
    # Z is empty and passed as a null pointer: any access would crash.
    def body():
        @tb.kernel
        def add(X: tb.Tensor(tb.f32, "M", "N"), Z: tb.Tensor(tb.f32, "P", "Q"), Y: tb.Tensor(tb.f32, "M", "N")):
            r, c = tb.block_id(0) * 32, tb.block_id(1) * 128
            x = tb.load_slice(X, [r, c], [32, 128])
            z = tb.load_slice(Z, [r, c], [32, 128])
            tb.store_slice(Y, [r, c], x + z)

    src = build(body)
    M, N = 37, 131
    _, X = padded((M, N), np.float32, pad=1, fill=0)
    X[:] = RNG.standard_normal((M, N))
    ybuf, Y = padded((M, N), np.float32, pad=1)
    # Row pitches of 4k elements, as the key says: odd ones would take tile-realign-rows' path
    # (test_realign_rows_emulated.py), whose masked-off elements are never accessed at all.
    stages = compile_stages(src, key=";".join(f"{t}=a1.e1x1.s4" for t in "XZY"))
    assert "arith.cmpi ugt" in stages["gpu"]  # the non-empty check
    emu = Emulated(stages["gpu"])
    # ABI: X, M, N, X stride, Z, P, Q, Z stride, Y, Y stride
    trapped = emu((2, 2), 256, X, M, N, X.strides[0] // 4, 0, 0, N, N + 1, Y, Y.strides[0] // 4)
    assert not trapped
    np.testing.assert_array_equal(Y, X)
    assert np.isnan(ybuf[M:]).all() and np.isnan(ybuf[:, N:]).all()
