"""The analysis' query API on kernels built with the builder: facts of
values, exact multiples, kernel parameter facts, and what the lowering may
assume about pointers."""

import pytest
from mlir import ir

from phobos import builder as tb
from phobos.analysis.axis_info import AxisInfoAnalysis, pointer_alignment_facts
from phobos.analysis.kernel_facts import kernel_facts
from phobos.analysis.lattice import MAX_DIVISOR, AxisInfo, join, normalize
from phobos.passes.registry import lookup


def build(body_fn, **options):
    """A module holding one kernel built by `body_fn` (a decorated function's body)."""
    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):
            fn = tb.kernel(body_fn, **options)
        yield module, fn


@pytest.fixture
def gemm_like():
    seen = {}

    def gemm(A: tb.Tensor(tb.f32, "M", "K"), B: tb.Tensor(tb.f32, "K", "N"), n: tb.i32, extents=None):
        pm, pn = tb.block_id(0), tb.block_id(1)
        seen["rows"] = pm * 96
        seen["cols"] = pn * 64 + 32
        with tb.for_range(0, extents["K"], 16) as loop:
            seen["kt"] = loop.iv
            seen["a"] = tb.load_slice(A, [seen["rows"], loop.iv], [96, 16])
        offs = tb.arange(0, 64) + tb.cast(pn * 64, tb.i32)
        seen["offs"] = offs
        seen["hinted"] = tb.max_contiguous(tb.multiple_of(offs, 16), 64)
        seen["float"] = tb.load(B, offs)

    for module, fn in build(gemm, aligned={"M": 96, "K": 16}):
        yield module, fn, seen


def test_facts_of_builder_values(gemm_like):
    module, fn, seen = gemm_like
    analysis = AxisInfoAnalysis(module)
    assert analysis.get(seen["rows"].value) == AxisInfo((1,), (32,), (1,), None, True)
    offs = analysis.get(seen["offs"].value)
    assert offs.contiguity == (64,) and offs.divisibility == (64,) and offs.non_negative
    hinted = analysis.get(seen["hinted"].value)
    assert hinted.contiguity == (64,) and hinted.divisibility == (16,)
    assert analysis.get(seen["float"].value) is None  # only integers have facts
    # The analysis also runs on one function.
    assert AxisInfoAnalysis(fn).get(seen["rows"].value) == analysis.get(seen["rows"].value)


def test_exact_multiples_know_more_than_powers_of_two(gemm_like):
    module, _, seen = gemm_like
    analysis = AxisInfoAnalysis(module)
    assert analysis.known_multiple(seen["rows"].value) == 96
    assert analysis.known_multiple(seen["cols"].value) == 32
    assert analysis.known_multiple(seen["kt"].value) == 16


def test_kernel_parameter_facts(gemm_like):
    _, fn, _ = gemm_like
    facts = kernel_facts(fn)
    a, b = facts.tensors[0], facts.tensors[1]
    # Leading strides are runtime values (views of padded rows are allowed):
    # @aligned(K = 16) says nothing about A's row stride.
    assert a.extent_multiple == [96, 16] and a.stride_multiple == [1, 1]
    assert b.extent_multiple == [16, 1] and b.stride_multiple == [1, 1]
    assert (a.ptr_align, a.elem_bytes) == (4, 4)
    assert facts.scalar_divisibility == {2: 1}


def test_pointer_alignment_needs_a_specialisation(gemm_like):
    module, fn, _ = gemm_like
    assert pointer_alignment_facts(fn) == {0: {"align": 4, "elem_bytes": 4}, 1: {"align": 4, "elem_bytes": 4}}
    from mlir import passmanager

    with module.context:
        pm = passmanager.PassManager()
        info = lookup("tile-specialize")
        pm.add(info.bind("key=A=a16.e16x16.s16;n=4"), name=info.name, argument=info.argument)
        pm.run(module.operation)
    assert pointer_alignment_facts(fn)[0] == {"align": 16, "elem_bytes": 4}
    assert pointer_alignment_facts(fn)[1]["align"] == 4
    assert kernel_facts(fn).scalar_divisibility == {2: 4}


def test_strided_layouts():
    with tb.context(), tb.Location.unknown():
        module = ir.Module.parse("""
          func.func @k(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>
                           {tile.name = "a", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64},
                       %b: memref<8x?xf16, strided<[64, 1], offset: 4>>
                           {tile.name = "b", tile.dims = ["8", "N"], tile.ptr_align = 16 : i64},
                       %c: memref<?x?xi8>
                           {tile.name = "c", tile.dims = ["M", "P"], tile.stride_divisibility = array<i64: 4>})
              attributes {tile.kernel} { return }""")
        fn = module.body.operations[0]
        facts = kernel_facts(fn)
        assert facts.tensors[0].ptr_align == 4  # a dynamic offset: element alignment only
        assert facts.tensors[0].stride_multiple == [1, 1]
        assert facts.tensors[1].ptr_align == 8 and facts.tensors[1].stride_multiple == [64, 1]
        assert facts.tensors[2].stride_multiple == [4, 1]


def test_join_restricts_divisibility_to_the_shorter_runs():
    run = AxisInfo((8,), (MAX_DIVISOR,), (1,), None, True)  # 0, 1, ..., 7
    zero = AxisInfo.of_constant(0, (8,))
    joined = join(run, zero)
    assert joined.contiguity == (1,) and joined.divisibility == (1,)
    assert normalize(AxisInfo((96,), (MAX_DIVISOR,), (1,)), (96,)).contiguity == (32,)
