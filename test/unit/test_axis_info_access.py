"""The facts tile-elide-masks records, checked on numbers.

Offset form: random offset tiles and masks (the programs of the soundness
test) feed a `tile.load`; every aligned chunk of `vector_width` elements
along the last dimension must then be one 16-byte-or-narrower access: its
offsets consecutive, the first a multiple of the width (the base is 16-byte
aligned), the mask constant over it; a dropped mask must be all true.

Slice form: random tiles, promises, specialisations and starts of the shapes
kernels use; for every concrete start the launch can produce (block ids
below the grid rule's count, every iteration of a loop bounded by the
extent, by the other dimension's extent or by a constant), an in-bounds
dimension must stay inside the tensor and every vector must start at an
address that is a multiple of its width, with a masked edge falling between
vectors.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir
from mlir.dialects import arith, func, memref, scf
from test_axis_info_soundness import SETTINGS, context, draw_program, kernel_module

from phobos.analysis.access import offset_facts, slice_facts
from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.dialect import tile as T

ELEMENTS = {"f64": 8, "f32": 4, "f16": 2, "i8": 1}


def _element(name: str) -> ir.Type:
    return {
        "f64": ir.F64Type.get,
        "f32": ir.F32Type.get,
        "f16": ir.F16Type.get,
        "i8": lambda: ir.IntegerType.get_signless(8),
    }[name]()


@settings(max_examples=400, **SETTINGS)
@given(st.data())
def test_offset_form_widths_hold_on_numbers(data):
    with context(), ir.Location.unknown():
        p = draw_program(data)
        tiles = [i for i, n in enumerate(p.nodes) if not n.scalar and n.width in (32, 64)]
        if not tiles:
            return
        off = data.draw(st.sampled_from(tiles))
        shape = p.nodes[off].shape
        masks = [i for i, n in enumerate(p.nodes) if not n.scalar and n.width == 1 and n.shape == shape]
        mask = data.draw(st.sampled_from([None] + masks))
        element = data.draw(st.sampled_from(sorted(ELEMENTS)))
        loads = []

        def body():
            for i in range(len(p.nodes)):
                p.value(i)
            flat = p.args[-1]
            loads.append(T.LoadOp(flat, p.value(off), p.value(mask) if mask is not None else None).operation)

        module = kernel_module(p, body, flat=_element(element))
        facts = offset_facts(loads[0], AxisInfoAnalysis(module))
        w = facts.vector_width
        offsets = p.nodes[off].values.reshape(-1, shape[-1])
        assert w & (w - 1) == 0 and w * ELEMENTS[element] <= 16 and shape[-1] % w == 0
        for row in range(offsets.shape[0]):
            for j in range(0, shape[-1], w):
                chunk = offsets[row, j : j + w]
                assert all(chunk[k] == chunk[0] + k for k in range(w)), f"width {w}: offsets {offsets[row].tolist()}"
                assert chunk[0] % w == 0, f"width {w}: offsets {offsets[row].tolist()}"
                if mask is not None:
                    bits = p.nodes[mask].values.reshape(-1, shape[-1])[row, j : j + w]
                    assert all(b == bits[0] for b in bits), f"width {w}: mask {bits.tolist()}"
        if facts.drop_mask:
            assert all(b == 1 for b in p.nodes[mask].values.reshape(-1))


# ----------------------------------------------------------------------------- slices

TILES = [(1, 4), (2, 8), (4, 6), (8, 16), (3, 12), (16, 32), (32, 128), (6, 96), (8,), (12,), (64,), (96,)]


def _multiples(d: int, count: int) -> list[int]:
    return [d * k for k in range(1, count + 1)]


@settings(max_examples=800, **SETTINGS)
@given(st.data())
def test_slice_facts_hold_for_every_launch(data):
    tile = data.draw(st.sampled_from(TILES))
    element = data.draw(st.sampled_from(sorted(ELEMENTS)))
    # Promises and specialisation, and extents that keep them.
    promise = [data.draw(st.sampled_from([None, None, t, 2 * t, 16, 4, 3 * t])) for t in tile]
    spec = [data.draw(st.sampled_from([1, 1, 4, 16])) for _ in tile]
    stride_spec = data.draw(st.sampled_from([1, 4, 16]))
    aligned_base = data.draw(st.booleans())
    static = [data.draw(st.sampled_from([None, None, 96, 100, 64])) for _ in tile]
    rank = len(tile)
    symbols = "MN"[:rank]
    extents = []
    for d in range(rank):
        if static[d] is not None:
            extents.append(static[d])
            spec[d] = next(c for c in (16, 4, 1) if static[d] % c == 0)
            continue
        step = np.lcm(promise[d] or 1, spec[d])
        extents.append(int(step) * data.draw(st.integers(1, 6)))
    if rank == 1 or extents[-1] % stride_spec:
        stride_spec = 1  # the row stride is the extent N
    kinds = ["block", "block2", "loop", "loop_const", "loop_other", "next", "const0", "const"]
    starts = [data.draw(st.sampled_from(kinds)) for _ in tile]
    factor = [data.draw(st.sampled_from([1, 2])) for _ in tile]
    constant = [data.draw(st.sampled_from([0, 4, 16, 32, 64, 96])) for _ in tile]
    loop_step = [t * data.draw(st.sampled_from([1, 2])) for t in tile]
    # `for k in range(0, bound, step)` with a constant bound, or the extent of the other dimension
    loop_bound = [data.draw(st.sampled_from([32, 64, 96, 100, 128, 1024])) for _ in tile]

    with context(), ir.Location.unknown():
        i64 = ir.IntegerType.get_signless(64)
        index = ir.IndexType.get()
        dyn = ir.ShapedType.get_dynamic_size()
        shape = [s if s is not None else dyn for s in static[:rank]]
        mtype = ir.MemRefType.get(shape, _element(element))
        module = ir.Module.create()
        ops = []
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("k", ir.FunctionType.get([mtype], []))
            fn.attributes["tile.kernel"] = ir.UnitAttr.get()
            promises = {s: promise[d] for d, s in enumerate(symbols) if promise[d] and static[d] is None}
            if promises:
                fn.attributes["tile.aligned"] = ir.DictAttr.get(
                    {k: ir.IntegerAttr.get(i64, v) for k, v in promises.items()}
                )
            attrs = {
                "tile.name": ir.StringAttr.get("X"),
                "tile.dims": ir.ArrayAttr.get([ir.StringAttr.get(s) for s in symbols]),
                "tile.divisibility": ir.DenseI64ArrayAttr.get(spec[:rank]),
                "tile.stride_divisibility": ir.DenseI64ArrayAttr.get([stride_spec] * (rank - 1)),
            }
            if aligned_base:
                attrs["tile.ptr_align"] = ir.IntegerAttr.get(i64, 16)
            fn.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(attrs)])
            entry = fn.add_entry_block()
            with ir.InsertionPoint(entry):
                x = entry.arguments[0]
                dims = []
                for d, s in enumerate(symbols):
                    v = memref.DimOp(x, arith.ConstantOp(index, d).result).result
                    if s in promises:
                        v = T.CheckMultipleOp(v, promises[s], s).result
                    dims.append(v)
                values, loops = [], []
                for d in range(rank):
                    kind = starts[d]
                    if kind in ("block", "block2", "next"):
                        pid = T.BlockIdOp(d).result
                        c = arith.ConstantOp(index, tile[d] * (factor[d] if kind == "block2" else 1)).result
                        v = arith.MulIOp(pid, c).result
                        if kind == "next":
                            v = arith.AddIOp(v, arith.ConstantOp(index, tile[d]).result).result
                    elif kind.startswith("loop"):
                        if kind == "loop_const":
                            bound = arith.ConstantOp(index, loop_bound[d]).result
                        else:
                            bound = dims[rank - 1 - d] if kind == "loop_other" else dims[d]
                        loop = scf.ForOp(
                            arith.ConstantOp(index, 0).result, bound, arith.ConstantOp(index, loop_step[d]).result
                        )
                        loops.append(loop)
                        v = loop.induction_variable
                        ir.InsertionPoint(loop.body).__enter__()
                    else:
                        v = arith.ConstantOp(index, 0 if kind == "const0" else constant[d]).result
                    values.append(v)
                op = T.LoadSliceOp(x, values, list(tile)).operation
                ops.append(op)
                for _ in reversed(loops):
                    scf.YieldOp([])
                    ir.InsertionPoint.current.__exit__(None, None, None)
                func.ReturnOp([])
        facts = slice_facts(ops[0], AxisInfoAnalysis(module))

    # Every start the launch can produce: block ids below the grid rule's
    # count for `block_id * c` (the grid covers the extent in steps of c),
    # every loop iteration, the constants.
    def concrete(d):
        kind, t, n = starts[d], tile[d], extents[d]
        if kind in ("block", "block2", "next"):
            c = t * (factor[d] if kind == "block2" else 1)
            blocks = range(-(-n // c))
            return [b * c + (t if kind == "next" else 0) for b in blocks]
        if kind.startswith("loop"):
            bound = {"loop": n, "loop_const": loop_bound[d], "loop_other": extents[rank - 1 - d]}[kind]
            return list(range(0, bound, loop_step[d]))
        return [0 if kind == "const0" else constant[d]]

    w = facts.vector_width
    elem = ELEMENTS[element]
    assert w & (w - 1) == 0 and w * elem <= 16 and tile[-1] % w == 0
    if not aligned_base:
        assert w == 1, "only element alignment is known without tile.ptr_align"
    for d in range(rank):
        if facts.in_bounds[d]:
            for s in concrete(d):
                assert 0 <= s and s + tile[d] <= extents[d], (
                    f"dim {d} in bounds, but start {s} + tile {tile[d]} > extent {extents[d]} ({starts[d]})"
                )
    n = extents[-1]
    rows = [(s0, i) for s0 in concrete(0) for i in range(tile[0])] if rank == 2 else [(0, 0)]
    for s0, i in rows:
        for s1 in concrete(rank - 1):
            for j in range(0, tile[-1], w):
                # in elements, from a base aligned to `w` elements
                address = (s0 + i) * n + s1 + j if rank == 2 else s1 + j
                assert address % w == 0, f"width {w}: element {address} starts a vector (N = {n})"
                if not facts.in_bounds[-1]:
                    inside = [s1 + j + k < n for k in range(w)]
                    assert all(inside) or not any(inside), f"width {w}: a vector straddles the edge {n}"
