"""The C launcher of a checked layout (runtime/claunch.c, runtime/clauncher.py), against the stub driver
of test_runtime: the bytes it packs, the checks it keeps on the cached path, bad input, threads."""

from __future__ import annotations

import math
import random
import struct
import sys
import threading

import pytest
import test_runtime
from test_runtime import _FakeCupyArray, _FakeTensor, _store, kernel_contract, tensor

import phobos
from phobos.runtime import cache as phcache
from phobos.runtime import clauncher, driver

stub_runtime = test_runtime.stub_runtime  # the stub driver's fixture
C = pytest.mark.parametrize("stub_runtime", ["ctypes"], indirect=True)


@pytest.fixture(autouse=True)
def built():
    if clauncher.module() is None:
        pytest.skip("no C compiler or Python headers: the Python launcher is the only one")


def generated_frames(fn) -> list[str]:
    """The generated launch code and runtime.fastpath/launch functions `fn()` runs (k[grid]'s own
    GridLaunch.__call__ in calling.py is Python in any case)."""
    seen = []

    def profile(frame, event, arg):
        name = frame.f_code.co_filename
        if event == "call" and (name == "<string>" or name.endswith(("/runtime/fastpath.py", "/runtime/launch.py"))):
            seen.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def is_c(k) -> bool:
    return type(k._call).__name__ == "Launcher"


@C
def test_a_layout_launches_from_c_without_python_code(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    k(x, y, 1.0)
    assert is_c(k)
    assert generated_frames(lambda: k(x, y, 2.0)) == []  # the stub's callback is test code
    assert generated_frames(lambda: k[(2, 2)](x, y, 2.0)) != []  # a new grid: Python, then its own launcher
    assert generated_frames(lambda: k[(2, 2)](x, y, 2.0)) == []
    assert generated_frames(lambda: k(x, y, 2.0, stream=5, check=True, sync=False)) != []  # k[grid]'s is installed
    assert generated_frames(lambda: k(x, y, 2.0, stream=5, check=True, sync=False)) == []
    assert stub_runtime[-1]["stream"] == 5 and stub_runtime[-1]["grid"] == (2, 2, 1)


def _scalars_kernel(root):
    kinds = ["f32", "f64", "f16", "i8", "u8", "i32", "u32", "i64", "i1"]
    c = kernel_contract(
        [tensor("X", ["N"], access="write"), tensor("Y", ["N"], access="read")]
        + [{"name": f"s_{d}", "kind": "scalar", "dtype": d} for d in kinds],
        [{"kind": "scalar", "param": 2 + i} for i in range(len(kinds))][::-1]  # scalars before pointers
        + [{"kind": "ptr", "param": 1}, {"kind": "extent", "param": 0, "axis": 0}, {"kind": "ptr", "param": 0}],
        [{"symbol": "N", "tile": 128}, 1, 1],
    )
    phcache.Cache(root).put("fam", "", type("A", (), {"cubin": b"\x7fELF", "contract": c, "asm": {}})(), {})
    return phobos.load(root)


def _values(rng):
    f32 = [0.0, -0.0, 1.1, 3.4e38, -3.4e38, 1e-45, math.inf, -math.inf, math.nan, 2**24 + 1, -7, 1e-40]
    return [
        rng.choice(f32),
        rng.choice([1e308, 0.1, -2.5, math.nan, 3, 5e-324]),
        rng.choice([65504.0, 1e-8, 0.1, -0.0, 2, math.inf]),
        rng.choice([-128, 127, 0, -1]),
        rng.choice([0, 255, 16]),
        rng.choice([-(2**31), 2**31 - 1, 12, 64]),
        rng.choice([2**32 - 1, 0, 4]),
        rng.choice([-(2**63), 2**63 - 1, 48]),
        rng.choice([True, False]),
    ]


@C
def test_c_and_python_launchers_pack_the_same_bytes(tmp_path, stub_runtime, monkeypatch):
    kernels = {native: _scalars_kernel(tmp_path / str(native)) for native in (False, True)}
    stub_runtime.slots = 12
    rng = random.Random(7)
    x, y = _FakeTensor(1 << 32, (1000,)), _FakeTensor(1 << 34, (1000,))
    launched = 0
    for n in range(300):
        args = (_FakeTensor((1 << 32) + 16 * n, (1000,)), _FakeTensor((1 << 34) + 32 * n, (1000,)), *_values(rng))
        records = []
        for native, k in kernels.items():
            monkeypatch.setattr(clauncher, "enabled", native)  # the launchers made now are C or Python
            k(*args)
            k(*args)  # the second launch takes the layout's launcher
            records.append(stub_runtime[-1])
        python, c = records
        assert c["raw"] == python["raw"] and c["grid"] == python["grid"] == (8, 1, 1), args
        assert c["stream"] == python["stream"] == 4242 and c["fn"] == python["fn"]
        launched += 4
    assert is_c(kernels[True]) and not is_c(kernels[False]) and len(stub_runtime) == launched
    assert generated_frames(lambda: kernels[True](*args)) == []
    del x, y


@C
@pytest.mark.parametrize(
    "index, value, error",  # integers of the integer class of the launched value: the same layout key
    [
        (2, 3.5e38, r"s_f32 .* 3.5e\+38 does not fit in f32"),
        (4, 70000.0, r"s_f16 .* 70000.0 does not fit in f16"),
        (2, 2**1024, r"s_f32 .* does not fit in f32"),
        (3, 2**1024, r"s_f64 .* does not fit in f64"),
        (5, 129, r"s_i8 .* 129 does not fit in i8"),
        (6, -3, r"s_u8 .* -3 does not fit in u8"),
        (7, 2**31 + 12, r"s_i32 .* does not fit in i32"),
        (8, 2**32 + 4, r"s_u32 .* does not fit in u32"),
        (9, 2**64, r"s_i64 .* does not fit in i64"),
        (10, 7, r"s_i1 .* must be a bool, got 7"),
        (2, "1.0", r"s_f32 .* must be a real number"),
        (7, 12.0, r"s_i32 .* must be an integer"),
        (9, False, r"s_i64 .* must be an integer, got bool"),  # 0: the class of 48
    ],
)
def test_scalars_out_of_range_or_of_the_wrong_type_are_refused_on_the_cached_path(
    tmp_path, stub_runtime, index, value, error
):
    k = _scalars_kernel(tmp_path)
    stub_runtime.slots = 12
    args = [_FakeTensor(1 << 32, (1000,)), _FakeTensor(1 << 34, (1000,)), 1.0, 1.0, 1.0, 1, 1, 12, 4, 48, True]
    k(*args)
    k(*args)
    assert is_c(k) and len(stub_runtime) == 2
    args[index] = value
    with pytest.raises((TypeError, ValueError, OverflowError), match=error):
        k(*args)
    assert len(stub_runtime) == 2 and is_c(k)


@C
def test_the_cached_c_path_reads_and_checks_every_launch(tmp_path, stub_runtime):
    _store(tmp_path, [""])  # scale: X read-only, Y written
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    k(x, y, 1.0)
    k(x, y, 1.0)
    assert is_c(k) and stub_runtime[-1]["raw"][0] == struct.pack("<Q", 1 << 32)
    x._ptr = (1 << 32) + 4096  # the same object, new storage (torch: x.set_(...)): read again
    assert generated_frames(lambda: k(x, y, 1.0)) == []
    assert stub_runtime[-1]["raw"][0] == struct.pack("<Q", (1 << 32) + 4096)
    x._ptr = (1 << 32) + 4  # no longer 16-byte aligned: another layout, checked by the generic path
    assert generated_frames(lambda: k(x, y, 1.0))[:2] == ["call", "_miss"]  # Python launcher, then generic
    assert stub_runtime[-1]["raw"][0] == struct.pack("<Q", (1 << 32) + 4)
    x._ptr = 1 << 32
    k(x, y, 1.0)  # back to the first layout: its launcher again
    assert generated_frames(lambda: k(x, y, 1.0)) == []
    n = len(stub_runtime)
    x.dtype = "float16"  # the same object, another dtype
    with pytest.raises(TypeError, match="argument X must have f32 elements"):
        k(x, y, 1.0)
    x.dtype = "float32"
    x.shape = (64, 128)  # resized in place: N differs from Y's
    with pytest.raises(ValueError, match="dimension N is 128 in X.shape"):
        k(x, y, 1.0)
    x.shape = (64, 256)
    x._strides = (256, 2)
    with pytest.raises(ValueError, match="contiguous last dimension"):
        k(x, y, 1.0)
    x._strides = (256, 1)
    x._device = -1
    with pytest.raises(ValueError, match="torch tensor on 'cpu'"):
        k(x, y, 1.0)
    x._device = 0
    x._ptr = (1 << 33) + 64  # X now overlaps Y: C hands it to the Python launcher, which says so
    with pytest.raises(ValueError, match=r"arguments X and Y overlap in memory"):
        k(x, y, 1.0)
    x._ptr = 1 << 33  # the very same view: in place is fine, from C
    assert is_c(k) and generated_frames(lambda: k(x, y, 1.0)) == [] and len(stub_runtime) == n + 1
    assert stub_runtime[-1]["raw"][0] == stub_runtime[-1]["raw"][4] == struct.pack("<Q", 1 << 33)


class _Odd(_FakeTensor):
    pass


@C
def test_a_tensor_subclass_is_not_the_c_launchers(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    y = _FakeTensor(1 << 33, (64, 256))
    k(_FakeTensor(1 << 32, (64, 256)), y, 1.0)
    assert is_c(k) and generated_frames(lambda: k(_Odd(1 << 32, (64, 256)), y, 1.0))[0] == "call"
    assert len(stub_runtime) == 2 and stub_runtime[-1]["raw"][0] == struct.pack("<Q", 1 << 32)


@C
@pytest.mark.parametrize(
    "pointer, error",
    [
        (lambda: 1 / 0, ZeroDivisionError),
        (lambda: "0x10", TypeError),
        (lambda: -16, Exception),
        (lambda: 2**64, Exception),
    ],
)
def test_bad_reads_raise_and_never_launch(tmp_path, stub_runtime, pointer, error):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    k(x, y, 1.0)
    x.data_ptr = pointer
    with pytest.raises(error):
        k(x, y, 1.0)
    assert len(stub_runtime) == 1 and is_c(k)
    k(_FakeTensor(1 << 32, (64, 256)), y, 1.0)
    assert len(stub_runtime) == 2


def test_bad_specs_are_refused():
    mod = clauncher.module()
    with pytest.raises(TypeError):
        mod.make()
    fine = (
        3,
        _FakeTensor,
        ((0, (((("dtype", False),), "f32"),)),),
        (("data_ptr", True),),
        ((0, 56),),
        ((2, "f", 64, None),),
    )
    rest = ((), (abs, (0,), None), None, bytes(72), (56, 64), 1, 1, {}, "k", None, None, None, abs, abs, abs, abs)
    assert type(mod.make(*fine, *rest)).__name__ == "Launcher"
    for broken in (
        (3, _FakeTensor, ((5, ()),)) + fine[3:],  # argument 5 of 3
        fine[:4] + (((0, 8),),) + fine[5:],  # a pointer inside the config
        fine[:5] + (((2, "x", 64, None),),),  # an unknown format
        fine[:5] + (((2, "f", 4096, None),),),  # past the buffer
    ):
        with pytest.raises(ValueError, match="claunch: bad"):
            mod.make(*broken, *rest)
    with pytest.raises(ValueError, match="claunch: bad image"):
        mod.make(*fine, *rest[:3], bytes(70), *rest[4:])


@C
def test_a_driver_error_from_c_names_the_kernel(tmp_path, stub_runtime, monkeypatch):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    k(x, y, 1.0)
    assert is_c(k)

    def raise_error(code, what, kernel=None, certain=True):
        raise driver.CudaError(f"{what} failed with {code} in {kernel}", int(code), "STUB")

    monkeypatch.setattr(driver, "raise_error", raise_error)
    stub_runtime.error = 719
    with pytest.raises(driver.CudaError, match="cuLaunchKernelEx failed with 719 in scale"):
        k(x, y, 1.0)
    assert driver.last_kernel() == "scale"


@C
def test_cupy_arrays_launch_from_c(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeCupyArray(1 << 32, (64, 300), strides=(320, 1)), _FakeCupyArray(1 << 33, (64, 300))
    k(x, y, 2.5)
    assert is_c(k) and generated_frames(lambda: k(x, y, 0.5)) == []
    assert stub_runtime[-1]["stream"] == 3131 and stub_runtime[-1]["raw"][-1][:4] == struct.pack("<f", 0.5)
    x.data.ptr = (1 << 32) + 1024
    assert generated_frames(lambda: k(x, y, 0.5)) == [] and stub_runtime[-1]["raw"][0] == struct.pack("<Q", x.data.ptr)
    x.data.device_id = 1  # another device: not this layout, and the generic path refuses it
    with pytest.raises(ValueError, match="argument Y is on cuda:0 but X is on cuda:1"):
        k(x, y, 0.5)


@C
def test_threads_launch_from_c_at_once(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    k(_FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256)), 1.0)
    assert is_c(k)

    def work(t):
        x, y = _FakeTensor((1 << 32) + (t << 20), (64, 256)), _FakeTensor((1 << 33) + (t << 20), (64, 256))
        for _ in range(300):
            k(x, y, float(t))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in stub_runtime[1:]:  # each launch's parameters are its own thread's
        t = struct.unpack("<f", r["raw"][6][:4])[0]
        assert struct.unpack("<QQ", r["raw"][0] + r["raw"][4]) == (
            (1 << 32) + (int(t) << 20),
            (1 << 33) + (int(t) << 20),
        )
    assert len(stub_runtime) == 1 + 4 * 300


@C
def test_without_the_extension_the_python_launcher_runs(tmp_path, stub_runtime, monkeypatch):
    monkeypatch.setattr(clauncher, "_module", None)
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    k(x, y, 1.0)
    k(x, y, 2.0)
    assert not is_c(k) and len(stub_runtime) == 2
    monkeypatch.setattr(clauncher, "compiler", lambda: None)
    assert clauncher.build(tmp_path / "none") is None


def test_the_build_is_cached(tmp_path):
    first = clauncher.build(tmp_path)
    assert first is not None and first.parent == tmp_path
    stamp = first.stat().st_mtime_ns
    assert clauncher.build(tmp_path) == first and first.stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # no temporary files left
