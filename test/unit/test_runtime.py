"""Runtime tests that need no GPU (they run in CI): argument checks, specialisation keys,
parameter packing, the cache, kernel objects over cached artifacts, and the errors for a
machine without a CUDA driver or without MLIR."""

from __future__ import annotations

import json
import multiprocessing
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import phobos
from phobos import cache as phcache
from phobos.aot import like, parse_args_text
from phobos.kernel import CompilerUnavailableError, Kernel, LoadedKernel
from phobos.runtime import driver
from phobos.runtime.binding import Signature, bf16_bits
from phobos.runtime.launch import runs_on, stream_handle
from phobos.specialization import SpecKey, TensorFacts, implies, strength, tensor_facts

ROOT = Path(__file__).resolve().parents[2]


def tensor(name, dims, dtype="f32", shape=None, access=None):
    p = {"name": name, "kind": "tensor", "dtype": dtype, "rank": len(dims), "dims": dims,
         "shape": shape or [None] * len(dims), "contiguity": "last"}
    if access:
        p["access"] = access
    return p


def scale_contract(**extra):
    c = {"format": 1, "kernel": "scale", "name": "scale", "chip": "sm_90", "threads": 256, "shared_bytes": 0,
         "params": [tensor("X", ["M", "N"], access="read"), tensor("Y", ["M", "N"], access="write"),
                    {"name": "alpha", "kind": "scalar", "dtype": "f32"}],
         "abi": [{"kind": "ptr", "param": 0}, {"kind": "extent", "param": 0, "axis": 0}, {"kind": "extent", "param": 0, "axis": 1},
                 {"kind": "stride", "param": 0, "axis": 0}, {"kind": "ptr", "param": 1}, {"kind": "stride", "param": 1, "axis": 0},
                 {"kind": "scalar", "param": 2}],
         "grid": [{"symbol": "M", "tile": 32}, {"symbol": "N", "tile": 128}, 1],
         "promises": [{"symbol": "M", "divisor": 32}], "bindings": {"TM": 32}, "key": "", "fingerprint": "x", "options": {}}
    c.update(extra)
    return c


@pytest.fixture
def sig():
    return Signature(scale_contract())


def xy(m=64, n=256, **kw):
    return like("f32", (m, n), **kw), like("f32", (m, n))


# ----------------------------------------------------------------------------- argument checks


def test_bind_values_grid_and_key(sig):
    x, y = like("f32", (64, 100), strides=(128, 1)), like("f32", (64, 100), align=1)
    b = sig.bind([x, y, 2])
    base = x.__cuda_array_interface__["data"][0]
    assert b.values == [base, 64, 100, 128, base + 4, 100, 2.0]
    assert b.grid == (2, 1, 1)
    assert b.key.to_text() == "X=a16.e16x4.s16;Y=a1.e16x4.s4"
    assert b.symbols == {"M": 64, "N": 100}


@pytest.mark.parametrize("args, error, pattern", [
    (lambda: xy()[:1], TypeError, r"scale\(\) takes 3 arguments \(X: tensor<f32>\[M, N\], Y: tensor<f32>\[M, N\], alpha: f32\) but 1 was given"),
    (lambda: (*xy(), 1.0, 2.0), TypeError, "takes 3 arguments"),
    (lambda: (3, xy()[1], 1.0), TypeError, "argument X .* must be an array"),
    (lambda: (like("f16", (64, 256)), xy()[1], 1.0), TypeError, "argument X must have f32 elements .* got f16"),
    (lambda: (np.zeros((64, 256)), xy()[1], 1.0), TypeError, "argument X must have f32 elements .* got f64"),
    (lambda: (like("f32", (64,)), xy()[1], 1.0), ValueError, r"argument X must have rank 2 .* got rank 1 \(shape \(64,\)\)"),
    (lambda: (like("f32", (64, 256), strides=(1, 64)), xy()[1], 1.0), ValueError, "argument X must have a contiguous last dimension"),
    (lambda: (like("f32", (64, 256), strides=(-256, 1)), xy()[1], 1.0), ValueError, "argument X has a negative stride"),
    (lambda: (xy()[0], like("f32", (64, 255)), 1.0), ValueError, r"dimension N is 256 in X.shape\[1\] but 255 in Y.shape\[1\]"),
    (lambda: (like("f32", (33, 256)), like("f32", (33, 256)), 1.0), ValueError,
     r"@aligned\(M = 32\) is broken: M = 33 \(X.shape\[0\]\) is not a multiple of 32"),
    (lambda: (*xy(), "2"), TypeError, r"argument alpha \(alpha: f32\) must be a real number, got str"),
    (lambda: (*xy(), True), TypeError, "must be a real number, got bool"),
])
def test_bad_arguments(sig, args, error, pattern):
    with pytest.raises(error, match=pattern):
        sig.bind(list(args()))


def test_broken_promise_accepted_when_unchecked(sig):
    b = sig.bind([like("f32", (33, 256)), like("f32", (33, 256)), 1.0], check_promises=False)
    assert b.grid == (2, 2, 1)


def test_static_extents_and_literal_dims():
    c = scale_contract(params=[tensor("X", ["M", "16"], shape=[None, 16]), tensor("Y", ["M", "N"]),
                               {"name": "alpha", "kind": "scalar", "dtype": "f32"}], promises=[])
    s = Signature(c)
    s.bind([like("f32", (8, 16)), like("f32", (8, 16)), 1.0])
    with pytest.raises(ValueError, match=r"X.shape\[1\] must be 16 .* got 17"):
        s.bind([like("f32", (8, 17)), like("f32", (8, 17)), 1.0])


def test_integer_scalars_range_and_class():
    c = {"format": 1, "kernel": "k", "name": "k", "threads": 128, "params": [
        tensor("X", ["N"]), {"name": "n", "kind": "scalar", "dtype": "i32"}, {"name": "flag", "kind": "scalar", "dtype": "i1"}],
        "abi": [{"kind": "ptr", "param": 0}, {"kind": "scalar", "param": 1}, {"kind": "scalar", "param": 2}],
        "grid": [4, 1, 1], "promises": []}
    s = Signature(c)
    b = s.bind([like("f32", (10,)), 12, True])
    assert b.key.to_text() == "X=a16.e1.s;n=4" and b.grid == (4, 1, 1)
    with pytest.raises(ValueError, match=r"argument n .* 2147483648 does not fit in i32"):
        s.bind([like("f32", (10,)), 2**31, True])
    with pytest.raises(TypeError, match="argument n .* must be an integer, got float"):
        s.bind([like("f32", (10,)), 1.5, True])
    with pytest.raises(TypeError, match="argument flag .* must be a bool"):
        s.bind([like("f32", (10,)), 1, 7])
    assert s.format == "Qi4x?7x"
    assert len(s.packer.pack(*b.values)) == 24


def test_grid_rules_overrides_and_limits(sig):
    x, y = like("f32", (64, 300)), like("f32", (64, 300))
    assert sig.bind([x, y, 1.0]).grid == (2, 3, 1)
    assert sig.bind([x, y, 1.0], grid=(5,)).grid == (5, 1, 1)
    assert sig.bind([x, y, 1.0], grid=7).grid == (7, 1, 1)
    assert sig.bind([x, y, 1.0], grid=lambda meta: (meta["M"] // 32, meta["TM"])).grid == (2, 32, 1)
    with pytest.raises(ValueError, match="grid y = 70000 is outside"):
        sig.bind([x, y, 1.0], grid=(1, 70000))
    caller = Signature(scale_contract(grid=[None, 1, 1]))
    with pytest.raises(ValueError, match="no grid rule for axis x; give the grid"):
        caller.bind([x, y, 1.0])


def test_extent_one_dimensions_ignore_their_stride(sig):
    # a stride of an extent-1 axis is never read: it counts as its row-major value
    b = sig.bind([like("f32", (1, 64), strides=(5, 1)), like("f32", (1, 64)), 1.0], check_promises=False)
    assert b.key.params["X"].strides == (16,)
    assert b.values[3] == 64


def test_numpy_arguments_are_keyed_as_their_device_copies(sig):
    x = np.zeros((64, 300), np.float32)[:, :256]  # padded rows on the host: copied to a packed buffer
    b = sig.bind([x, like("f32", (64, 256)), 1.0])
    assert b.key.params["X"] == TensorFacts(16, (16, 16), (16,))
    assert b.values[0] is None and b.host_slots == [(0, 0)]
    assert b.values[3] == 256


# ----------------------------------------------------------------------------- keys


def test_tensor_facts_classes():
    assert tensor_facts(1 << 32, (64, 100, 3), (300, 3, 1)) == TensorFacts(16, (16, 4, 1), (4, 1))
    assert tensor_facts((1 << 32) + 4, (5,), (1,)) == TensorFacts(1, (1,), ())


def test_implies_and_strength():
    strong = SpecKey.from_text("X=a16.e16x16.s16;n=16")
    weak = SpecKey.from_text("X=a1.e4x1.s4")
    assert implies(strong, weak) and not implies(weak, strong)
    assert implies(strong, SpecKey())
    assert not implies(SpecKey.from_text("X=a16.e16x16.s16"), SpecKey.from_text("X=a16.e16x16.s16;n=4"))
    assert not implies(SpecKey.from_text("X=a16.e16.s"), SpecKey.from_text("X=a16.e16x16.s16"))  # rank differs
    assert strength(strong) > strength(weak) > strength(SpecKey())


def test_bf16_bits():
    assert bf16_bits(1.0) == 0x3F80
    assert bf16_bits(-2.0) == 0xC000
    assert bf16_bits(1.0 + 2**-8) == 0x3F80  # a tie rounds to even
    assert bf16_bits(1.0 + 3 * 2**-8) == 0x3F82
    assert bf16_bits(float("inf")) == 0x7F80
    assert bf16_bits(float("nan")) & 0x7FC0 == 0x7FC0


def test_stream_handles():
    class TorchLike:
        cuda_stream = 1234

    class CupyLike:
        ptr = 99

    class Protocol:
        def __cuda_stream__(self):
            return (0, 77)

    assert stream_handle(None) is None and stream_handle(5) == 5
    assert stream_handle(TorchLike()) == 1234 and stream_handle(CupyLike()) == 99 and stream_handle(Protocol()) == 77
    with pytest.raises(TypeError, match="stream= must be"):
        stream_handle("default")


def test_chip_compatibility():
    assert runs_on("sm_90", (9, 0)) and runs_on("sm_80", (8, 6)) and runs_on("sm_90a", (9, 0))
    assert not runs_on("sm_80", (9, 0)) and not runs_on("sm_86", (8, 0)) and not runs_on("sm_90a", (10, 0))


def test_parse_args_text():
    x, y, a, n = parse_args_text("f32[4097,129] bf16[7]@a1 2.5 12")
    assert x.shape == (4097, 129) and x.strides == (129, 1) and x.align == 16
    assert y.dtype == "bf16" and y.align == 1 and a == 2.5 and n == 12
    with pytest.raises(ValueError, match="neither a tensor"):
        parse_args_text("f32(4)")


# ----------------------------------------------------------------------------- cache


class FakeArtifact:
    def __init__(self, contract, cubin=b"\x7fELF-fake", asm=None):
        self.cubin, self.contract, self.asm = cubin, contract, asm or {"ptx": "// ptx"}


def test_cache_roundtrip_and_layout(tmp_path):
    c = phcache.Cache(tmp_path)
    fam = phcache.family_digest("src", "scale", {"TM": 32}, "sm_90", {}, "fp")
    assert c.get(fam, "") is None
    entry = c.put(fam, "X=a16.e16.s", FakeArtifact(scale_contract()), {"source": "s.ph"})
    assert entry.path == tmp_path / fam / phcache.entry_name("X=a16.e16.s")
    assert sorted(p.name for p in entry.path.iterdir()) == ["asm", "contract.json", "entry.json", "kernel.cubin"]
    got = c.get(fam, "X=a16.e16.s")
    assert got.cubin() == b"\x7fELF-fake" and got.contract()["name"] == "scale" and got.asm() == {"ptx": "// ptx"}
    assert got.kernel == "scale" and got.meta["source"] == "s.ph"
    assert c.get(fam, "") is None and [e.key for e in c.variants(fam)] == ["X=a16.e16.s"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]


def test_family_digest_covers_every_input():
    base = ("src", "k", {"A": 1}, "sm_90", {"o": 1}, "fp")
    digests = {phcache.family_digest(*base)}
    for i, other in enumerate(("src2", "k2", {"A": 2}, "sm_80", {"o": 2}, "fp2")):
        args = list(base)
        args[i] = other
        digests.add(phcache.family_digest(*args))
    assert len(digests) == 7
    assert phcache.family_digest("ab", "c", None, "sm_90", None, "f") != phcache.family_digest("a", "bc", None, "sm_90", None, "f")


def test_default_cache_root(monkeypatch, tmp_path):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "pc"))
    assert phcache.default_root() == tmp_path / "pc"
    monkeypatch.delenv("PHOBOS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert phcache.default_root() == tmp_path / "xdg" / "phobos"


def _race(root, i):
    c = phcache.Cache(root)
    contract = scale_contract()
    contract["writer"] = i
    c.put("fam", "X=a16.e16.s", FakeArtifact(contract, cubin=b"\x7fELF" + bytes([i]) * 100000), {})
    e = c.get("fam", "X=a16.e16.s")
    assert e.cubin()[4] == e.contract()["writer"]  # never a mix of two writers
    return i


def test_cache_writes_are_atomic_under_races(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        assert sorted(pool.starmap(_race, [(str(tmp_path), i) for i in range(8)])) == list(range(8))
    entries = phcache.Cache(tmp_path).variants("fam")
    assert len(entries) == 1
    assert entries[0].cubin()[4] == entries[0].contract()["writer"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]


def test_unreadable_entry_is_a_miss(tmp_path):
    c = phcache.Cache(tmp_path)
    c.put("fam", "", FakeArtifact(scale_contract()), {})
    (c.path("fam", "") / "entry.json").write_text("{not json")
    assert c.get("fam", "") is None and c.variants("fam") == []


# ----------------------------------------------------------------------------- kernel objects over a cache


def _store(root, keys, family="fam", name="scale"):
    c = phcache.Cache(root)
    for key in keys:
        c.put(family, key, FakeArtifact(scale_contract(key=key, name=name, kernel=name), cubin=b"\x7fELF" + key.encode()), {"source": "t"})


def test_load_picks_the_most_specialised_fitting_variant(tmp_path):
    _store(tmp_path, ["", "X=a16.e16x16.s16;Y=a16.e16x16.s16", "X=a16.e16x4.s4;Y=a1.e16x4.s4"])
    k = phobos.load(tmp_path)
    assert isinstance(k, LoadedKernel) and k.name == "scale" and len(k.keys) == 3
    assert k.warmup(*xy(64, 256), 1.0).contract["key"] == "X=a16.e16x16.s16;Y=a16.e16x16.s16"
    assert k.warmup(like("f32", (64, 100)), like("f32", (64, 100), align=1), 1.0).contract["key"] == "X=a16.e16x4.s4;Y=a1.e16x4.s4"
    assert k.warmup(like("f32", (64, 101)), like("f32", (64, 101)), 1.0).contract["key"] == ""
    assert k.asm == {"ptx": "// ptx"}
    with pytest.raises(ValueError, match="is broken"):
        k.warmup(*xy(65, 256), 1.0)


def test_load_without_a_fitting_variant_says_how_to_build_one(tmp_path):
    _store(tmp_path, ["X=a16.e16x16.s16;Y=a16.e16x16.s16"])
    k = phobos.load(tmp_path)
    with pytest.raises(CompilerUnavailableError, match=r"no variant of 'scale' .* python -m phobos.aot SOURCE -o"):
        k.warmup(like("f32", (64, 100)), like("f32", (64, 100)), 1.0)


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no ahead-of-time folder"):
        phobos.load(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="holds no compiled kernels"):
        phobos.load(tmp_path)
    _store(tmp_path, [""], family="a", name="scale")
    _store(tmp_path, [""], family="b", name="other")
    with pytest.raises(ValueError, match="several kernels .*other, scale.*pass name="):
        phobos.load(tmp_path)
    assert phobos.load(tmp_path, "other").name == "other"
    _store(tmp_path, [""], family="c", name="scale")
    with pytest.raises(ValueError, match="'scale' from 2 different builds"):
        phobos.load(tmp_path, "scale")


def test_compile_hits_the_cache_without_compiling(tmp_path, monkeypatch):
    source = "@aligned(M = 32)\nkernel scale(...) { }\n"  # never parsed: a hit needs only its text
    k = phobos.compile(source, defines={"TM": 32}, cache_dir=tmp_path)
    assert isinstance(k, Kernel)
    _store(tmp_path, ["", "X=a16.e16x16.s16;Y=a16.e16x16.s16"], family=k.family)
    monkeypatch.setattr("phobos.kernel._compiler", lambda *a: pytest.fail("compiled on a cache hit"))
    art = k.warmup(*xy(64, 256), 1.0)
    assert art.cubin == b"\x7fELFX=a16.e16x16.s16;Y=a16.e16x16.s16"
    assert k.key(*xy(64, 256), 1.0).to_text() == "X=a16.e16x16.s16;Y=a16.e16x16.s16"
    assert k.name == "scale" and k.contract["params"][2]["name"] == "alpha"
    with pytest.raises(TypeError, match="takes 3 arguments"):  # checks before any driver call
        k(1.0)


def _child(code, **env):
    full = dict(os.environ, PYTHONPATH=str(ROOT / "python"), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=full, timeout=300)


def test_runtime_imports_without_mlir(tmp_path):
    _store(tmp_path, [""])
    r = _child(f"""
        import sys
        sys.modules["mlir"] = None  # as on the GPU machine: importing mlir fails
        import phobos, phobos.runtime, phobos.kernel, phobos.cache, phobos.aot, phobos.artifact
        k = phobos.load({str(tmp_path)!r})
        from phobos.aot import like
        print(k.key(like("f32", (64, 256)), like("f32", (64, 256)), 1.0).to_text())
        assert "mlir" not in [m.split(".")[0] for m in sys.modules if sys.modules[m] is not None]
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "X=a16.e16x16.s16;Y=a16.e16x16.s16"


@pytest.mark.skipif(not (ROOT / "python" / "phobos" / "compiler.py").exists(), reason="no compiler yet")
def test_missing_variant_without_mlir_says_compile_ahead(tmp_path):
    r = _child(f"""
        import sys
        sys.modules["mlir"] = None
        import phobos
        from phobos.aot import like
        k = phobos.compile({str(ROOT / "bench" / "kernels" / "scale.ph")!r}, cache_dir={str(tmp_path)!r})
        try:
            k.warmup(like("f32", (64, 256)), like("f32", (64, 256)), 1.0)
        except phobos.CompilerUnavailableError as e:
            print(e)
            sys.exit(3)
    """)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "not in the cache" in r.stdout and "cannot compile" in r.stdout
    assert "python -m phobos.aot" in r.stdout and "phobos.load(DIR)" in r.stdout


@pytest.mark.skipif(driver.available(), reason="this machine has a CUDA driver")
def test_no_driver_is_a_clear_error_after_the_checks(tmp_path):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    with pytest.raises(TypeError, match="must have f32 elements"):  # argument errors come first
        k(like("f16", (64, 256)), like("f32", (64, 256)), 1.0)
    with pytest.raises(phobos.NoCudaDriverError, match="no CUDA driver"):
        k(np.ones((64, 256), np.float32), np.ones((64, 256), np.float32), 1.0)
    assert not driver.available()


def test_aot_cli_reports_errors_without_tracebacks(tmp_path, capsys):
    from phobos import aot

    assert aot.main([str(tmp_path / "missing.ph"), "-o", str(tmp_path / "out")]) == 1
    assert "phobos.aot: error:" in capsys.readouterr().err


def test_compile_then_cache_hit_end_to_end(tmp_path, monkeypatch):
    pytest.importorskip("mlir")
    source = ROOT / "bench" / "kernels" / "scale.ph"
    args = (like("f32", (4097, 129)), like("f32", (4097, 129)), 2.0)
    k = phobos.compile(source, defines={"TM": 32, "TN": 128}, cache_dir=tmp_path)
    art = k.warmup(*args)
    assert art.cubin[:4] == b"\x7fELF" and art.contract["key"] == "X=a16.e1x1.s1;Y=a16.e1x1.s1"
    assert {e.key for e in phcache.Cache(tmp_path).variants(k.family)} == {"", art.contract["key"]}
    assert ".entry scale" in k.asm["ptx"]
    again = phobos.compile(source, defines={"TM": 32, "TN": 128}, cache_dir=tmp_path)
    monkeypatch.setattr("phobos.kernel._compiler", lambda *a: pytest.fail("compiled on a cache hit"))
    assert again.warmup(*args).cubin == art.cubin
    loaded = phobos.load(tmp_path)
    assert loaded.artifact(art.contract["key"]).cubin == art.cubin


# ----------------------------------------------------------------------------- launch path, with a stub driver


class _FakeTensor:
    """Enough of torch.Tensor for the launcher (a CUDA tensor at a made-up address)."""

    def __init__(self, ptr, shape, strides=None, dtype="float32", device=0):
        self._ptr, self.shape, self.dtype, self._device = ptr, tuple(shape), dtype, device
        self._strides = tuple(strides) if strides else tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides

    def get_device(self):
        return self._device

    @property
    def device(self):
        return "cpu" if self._device < 0 else f"cuda:{self._device}"


class _StubDevice:
    ordinal, capability, chip, name = 0, (9, 0), "sm_90", "stub"

    def function(self, cubin, entry, shared):
        return f"function:{entry}"

    def make_current(self):
        pass


@pytest.fixture
def stub_runtime(monkeypatch):
    """A fake torch module and a driver that records launches instead of running them."""
    import types

    from phobos.runtime import arrays

    torch = types.ModuleType("torch")
    torch.Tensor = _FakeTensor
    for name in ("float16", "bfloat16", "float32", "float64", "bool", "int8", "int32", "int64"):
        setattr(torch, name, name)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 4242)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(arrays, "_torch_dtypes", {})
    monkeypatch.setattr(arrays, "_describers", {})
    launches = []

    def launch_kernel(fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        import ctypes

        slots = (ctypes.c_void_p * 7).from_address(params)
        raw = [ctypes.string_at(slots[i], 8) for i in range(7)]
        launches.append({"fn": fn, "grid": (gx, gy, gz), "block": bx, "stream": stream, "raw": raw})
        return (0,)

    monkeypatch.setattr(driver, "cu", types.SimpleNamespace(cuLaunchKernel=launch_kernel))
    monkeypatch.setattr(driver, "get_device", lambda ordinal=0: _StubDevice())
    return launches


def _unpack(raw):
    return [struct.unpack("<Q", raw[0])[0], struct.unpack("<q", raw[1])[0], struct.unpack("<q", raw[2])[0],
            struct.unpack("<q", raw[3])[0], struct.unpack("<Q", raw[4])[0], struct.unpack("<q", raw[5])[0],
            struct.unpack("<f", raw[6][:4])[0]]


def test_launch_packs_parameters_and_takes_the_fast_path(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x = _FakeTensor(1 << 32, (64, 300), strides=(320, 1))
    y = _FakeTensor((1 << 32) + (1 << 20), (64, 300))
    k(x, y, 2.5)
    assert stub_runtime[-1]["grid"] == (2, 3, 1) and stub_runtime[-1]["block"] == 256 and stub_runtime[-1]["stream"] == 4242
    assert _unpack(stub_runtime[-1]["raw"]) == [1 << 32, 64, 300, 320, (1 << 32) + (1 << 20), 300, 2.5]
    assert len(k._fast) == 1
    x2 = _FakeTensor((1 << 33), (64, 300), strides=(320, 1))
    k(x2, y, -1.0, stream=7)  # same layout, new pointer and scalar: the generated launcher
    assert _unpack(stub_runtime[-1]["raw"]) == [1 << 33, 64, 300, 320, (1 << 32) + (1 << 20), 300, -1.0]
    assert stub_runtime[-1]["stream"] == 7 and len(k._plans) == 1
    k[(5, 1)](x, y, 1.0)
    assert stub_runtime[-1]["grid"] == (5, 1, 1) and len(k._fast) == 2
    with pytest.raises(TypeError, match="argument alpha .* must be a real number"):
        k(x, y, "no")  # the fast path cannot pack it; the generic path names the problem
    with pytest.raises(ValueError, match="argument X is a torch tensor on 'cpu'"):
        k(_FakeTensor(1 << 32, (64, 300), device=-1), y, 1.0)
    with pytest.raises(ValueError, match="is broken"):
        k(_FakeTensor(1 << 32, (65, 300)), _FakeTensor(1 << 32, (65, 300)), 1.0)
    k(_FakeTensor(1 << 32, (65, 300)), _FakeTensor(1 << 32, (65, 300)), 1.0, check=False)
    assert stub_runtime[-1]["grid"] == (3, 3, 1)
    assert len(stub_runtime) == 4


def test_fully_contiguous_parameters():
    c = scale_contract()
    c["params"][1]["contiguity"] = "all"  # e.g. addressed by flat offsets
    s = Signature(c)
    s.bind([like("f32", (64, 256), strides=(300, 1)), like("f32", (64, 256)), 1.0])
    s.bind([like("f32", (1, 256)), like("f32", (1, 256), strides=(999, 1)), 1.0], check_promises=False)  # extent-1 rows
    with pytest.raises(ValueError, match=r"argument Y must be contiguous \(row-major\), got strides \(300, 1\)"):
        s.bind([like("f32", (64, 256)), like("f32", (64, 256), strides=(300, 1)), 1.0])
