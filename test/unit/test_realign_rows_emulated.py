"""Realigned rows compute the right elements: elementwise 2-D kernels whose rows have an odd
pitch (tile-realign-rows, lowering/realign.py) run on the CPU thread by thread
(phobos.lowering.emulate) on views with every pitch mod 4 (mod 8 for f16), bases at every
element alignment, tensors misaligned unlike each other, tiny and ragged shapes, poisoned
outputs and guard zones around every buffer, against NumPy in float64.
"""

import functools

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

RNG = np.random.default_rng(20261206)
GUARD = 7777.0  # what every buffer element outside a view holds, and must still hold after the run
GUARD_ELEMENTS = 24  # guard elements before and after each view


def add_kernel(tm: int, tn: int, dtype: str = "f32", threads: int = 256) -> str:
    """Z = X + Y on tm x tn tiles, any M and N (masked edges), any row pitch."""

    def body():
        t = getattr(tb, dtype)

        @tb.kernel(launch=threads)
        def add(X: tb.Tensor(t, "M", "N"), Y: tb.Tensor(t, "M", "N"), Z: tb.Tensor(t, "M", "N")):
            r, c = tb.block_id(0) * tm, tb.block_id(1) * tn
            tb.store_slice(Z, [r, c], tb.load_slice(X, [r, c], [tm, tn]) + tb.load_slice(Y, [r, c], [tm, tn]))

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):
            body()
        return str(module)


@functools.cache
def compiled(tm: int, tn: int, dtype: str = "f32", threads: int = 256, key: str | None = None):
    """(gpu stage text, emulated kernel, ABI entries) of add_kernel."""
    stages = compile_stages(add_kernel(tm, tn, dtype, threads), key=key, until="gpu")
    with make_context():
        module = ir.Module.parse(stages["tile"])
        fn = next(op.operation for op in module.body.operations if K.is_kernel(op.operation))
        entries = abi_entries(describe_params(fn))
    return stages["gpu"], Emulated(stages["gpu"]), entries


def strided_view(shape, pitch: int, offset: int, dtype, fill):
    """A (M, N) view with row pitch `pitch` whose first element is `offset` elements past a 16-byte
    boundary, inside a buffer with GUARD_ELEMENTS guard elements on each side; (buffer, view)."""
    m, n = shape
    size = GUARD_ELEMENTS + offset + (m - 1) * pitch + n + GUARD_ELEMENTS if m and n else 2 * GUARD_ELEMENTS
    raw = np.full(size + 16, GUARD, dtype=dtype)
    start = (-raw.ctypes.data % 16) // raw.itemsize
    buf = raw[start : start + size]
    first = GUARD_ELEMENTS + offset
    view = np.lib.stride_tricks.as_strided(buf[first:], shape, (pitch * buf.itemsize, buf.itemsize))
    view[...] = fill
    return buf, view


def outside(buf: np.ndarray, view: np.ndarray) -> np.ndarray:
    """The buffer's elements that are not in the view."""
    keep = np.ones(buf.shape, bool)
    first = (view.__array_interface__["data"][0] - buf.ctypes.data) // buf.itemsize
    pitch = view.strides[0] // buf.itemsize
    for r in range(view.shape[0]):
        keep[first + r * pitch : first + r * pitch + view.shape[1]] = False
    return buf[keep]


def run_add(tile, shape, pitches, offsets, dtype="f32", threads=256, key=None):
    """Runs add_kernel on views of `shape` with the given row pitches and base offsets (X, Y, Z)
    and checks the result and every guard zone."""
    np_type = {"f32": np.float32, "f16": np.float16}[dtype]
    _, emu, entries = compiled(*tile, dtype, threads, key)
    views = []
    for i, (pitch, offset) in enumerate(zip(pitches, offsets)):
        buf, view = strided_view(shape, pitch, offset, np_type, np.nan)
        if i < 2:
            view[...] = RNG.standard_normal(shape).astype(np_type)
        views.append((buf, view))
    inputs = [v.copy() for _, v in views[:2]]
    grid = (-(-shape[0] // tile[0]), -(-shape[1] // tile[1]))
    values = []
    for e in entries:
        view = views[e["param"]][1] if e["param"] < 3 else None
        if e["kind"] == "ptr":
            values.append(view.__array_interface__["data"][0])
        elif e["kind"] == "extent":
            values.append(view.shape[e["axis"]])
        elif e["kind"] == "stride":
            values.append(view.strides[e["axis"]] // view.itemsize)
    assert not emu(grid, threads, *values)
    expect = (inputs[0].astype(np.float64) + inputs[1].astype(np.float64)).astype(np_type)
    np.testing.assert_array_equal(views[2][1], expect)
    for (buf, view), before in zip(views, inputs + [None]):
        assert (outside(buf, view) == GUARD).all(), "a guard element changed"
        if before is not None:
            np.testing.assert_array_equal(view, before)


def test_the_pass_applies_to_the_add_kernel():
    gpu, _, _ = compiled(8, 128)
    assert gpu.count("vector.load") == 2 and gpu.count("vector.store") == 1
    assert "vector<4xf32>" in gpu


@pytest.mark.parametrize("extra", range(8))
def test_every_pitch_mod_4(extra):
    """Pitches N + 0..7 (every residue mod 4, twice), with interior and edge tiles."""
    n = 261
    run_add((8, 128), (19, n), (n + extra,) * 3, (0, 0, 0))


@pytest.mark.parametrize("offsets", [(1, 1, 1), (2, 2, 2), (3, 3, 3), (1, 2, 3), (0, 3, 1)])
def test_bases_at_every_alignment(offsets):
    """Bases 1 to 3 elements past a 16-byte boundary, alike (the fast path) and unlike (rows
    misaligned unlike the reference fall back to elements)."""
    run_add((8, 128), (17, 300), (301, 301, 301), offsets)


@pytest.mark.parametrize("pitches", [(131, 130, 129), (129, 133, 137), (132, 131, 130)])
def test_tensors_with_different_pitches(pitches):
    run_add((8, 128), (21, 129), pitches, (0, 1, 2))


@pytest.mark.parametrize("shape", [(1, 1), (1, 3), (2, 5), (3, 4), (5, 7), (1, 128), (9, 131)])
def test_tiny_and_ragged_shapes(shape):
    run_add((8, 128), shape, (shape[1] + 1,) * 3, (1, 1, 1))


@pytest.mark.parametrize("shape", [(0, 5), (3, 0)])
def test_empty_tensors_are_never_accessed(shape):
    """Null pointers for empty tensors: any access would crash the process."""
    _, emu, entries = compiled(8, 128)
    sizes = {"ptr": lambda e: 0, "extent": lambda e: shape[e["axis"]], "stride": lambda e: 5}
    assert not emu((1, 1), 256, *[sizes[e["kind"]](e) for e in entries])


def test_replicated_tiles():
    """A 2 x 16 tile under 256 threads: threads share elements, only one of them stores."""
    run_add((2, 16), (7, 45), (47, 45, 46), (3, 0, 1))


def test_several_chunks_per_row_per_thread():
    """A 4 x 256 tile under 32 threads: each thread holds two chunks per row, one of which may wrap."""
    run_add((4, 256), (9, 515), (517, 517, 517), (2, 2, 2), threads=32)


@pytest.mark.parametrize("extra", [1, 3, 5, 7])
def test_f16_rows_rotate_by_up_to_7(extra):
    n = 200
    run_add((4, 64), (11, n), (n + extra,) * 3, (5, 5, 5), dtype="f16", threads=128)


def test_aligned_bases_from_the_key():
    """The key says the bases are 16-byte aligned and the pitches odd (what the runtime gives a
    16381 x 16381 f32 tensor)."""
    key = ";".join(f"{t}=a16.e1x1.s1" for t in "XYZ")
    run_add((8, 128), (13, 389), (389, 389, 389), (0, 0, 0), key=key)
