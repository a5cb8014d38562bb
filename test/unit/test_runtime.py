"""Runtime tests that need no GPU (they run in CI): argument checks, specialisation keys,
parameter packing, the cache, kernel objects over cached artifacts, and the errors for a
machine without a CUDA driver or without MLIR."""

from __future__ import annotations

import ctypes
import importlib.util
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
from phobos.contract.specialization import SpecKey, TensorFacts, implies, strength, tensor_facts
from phobos.runtime import cache as phcache
from phobos.runtime import driver
from phobos.runtime.aot import like, parse_args_text
from phobos.runtime.binding import Signature, bf16_bits
from phobos.runtime.kernel import CompilerUnavailableError, Kernel, LoadedKernel
from phobos.runtime.launch import runs_on, stream_handle

ROOT = Path(__file__).resolve().parents[2]


def tensor(name, dims, dtype="f32", shape=None, access=None):
    p = {
        "name": name,
        "kind": "tensor",
        "dtype": dtype,
        "rank": len(dims),
        "dims": dims,
        "shape": shape or [None] * len(dims),
        "contiguity": "last",
    }
    if access:
        p["access"] = access
    return p


def kernel_contract(params: list, abi: list, grid: list, key: str = "") -> dict:
    """The contract of a kernel 'k' for sm_90: 128 threads, no shared memory, promises or bindings."""
    return {
        "format": 1,
        "kernel": "k",
        "name": "k",
        "chip": "sm_90",
        "threads": 128,
        "shared_bytes": 0,
        "params": params,
        "abi": abi,
        "grid": grid,
        "promises": [],
        "bindings": {},
        "key": key,
        "fingerprint": "x",
        "options": {},
    }


def scale_contract(**extra):
    c = {
        "format": 1,
        "kernel": "scale",
        "name": "scale",
        "chip": "sm_90",
        "threads": 256,
        "shared_bytes": 0,
        "params": [
            tensor("X", ["M", "N"], access="read"),
            tensor("Y", ["M", "N"], access="write"),
            {"name": "alpha", "kind": "scalar", "dtype": "f32"},
        ],
        "abi": [
            {"kind": "ptr", "param": 0},
            {"kind": "extent", "param": 0, "axis": 0},
            {"kind": "extent", "param": 0, "axis": 1},
            {"kind": "stride", "param": 0, "axis": 0},
            {"kind": "ptr", "param": 1},
            {"kind": "stride", "param": 1, "axis": 0},
            {"kind": "scalar", "param": 2},
        ],
        "grid": [{"symbol": "M", "tile": 32}, {"symbol": "N", "tile": 128}, 1],
        "promises": [{"symbol": "M", "divisor": 32}],
        "bindings": {"TM": 32},
        "key": "",
        "fingerprint": "x",
        "options": {},
    }
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


@pytest.mark.parametrize(
    "args, error, pattern",
    [
        (
            lambda: xy()[:1],
            TypeError,
            r"scale\(\) takes 3 arguments "
            r"\(X: tensor<f32>\[M, N\], Y: tensor<f32>\[M, N\], alpha: f32\) but 1 was given",
        ),
        (lambda: (*xy(), 1.0, 2.0), TypeError, "takes 3 arguments"),
        (lambda: (3, xy()[1], 1.0), TypeError, "argument X .* must be an array"),
        (lambda: (like("f16", (64, 256)), xy()[1], 1.0), TypeError, "argument X must have f32 elements .* got f16"),
        (lambda: (np.zeros((64, 256)), xy()[1], 1.0), TypeError, "argument X must have f32 elements .* got f64"),
        (
            lambda: (like("f32", (64,)), xy()[1], 1.0),
            ValueError,
            r"argument X must have rank 2 .* got rank 1 \(shape \(64,\)\)",
        ),
        (
            lambda: (like("f32", (64, 256), strides=(1, 64)), xy()[1], 1.0),
            ValueError,
            "argument X must have a contiguous last dimension",
        ),
        (
            lambda: (like("f32", (64, 256), strides=(-256, 1)), xy()[1], 1.0),
            ValueError,
            "argument X has a negative stride",
        ),
        (
            lambda: (xy()[0], like("f32", (64, 255)), 1.0),
            ValueError,
            r"dimension N is 256 in X.shape\[1\] but 255 in Y.shape\[1\]",
        ),
        (
            lambda: (like("f32", (33, 256)), like("f32", (33, 256)), 1.0),
            ValueError,
            r"@aligned\(M = 32\) is broken: M = 33 \(X.shape\[0\]\) is not a multiple of 32",
        ),
        (lambda: (*xy(), "2"), TypeError, r"argument alpha \(alpha: f32\) must be a real number, got str"),
        (lambda: (*xy(), True), TypeError, "must be a real number, got bool"),
    ],
)
def test_bad_arguments(sig, args, error, pattern):
    with pytest.raises(error, match=pattern):
        sig.bind(list(args()))


def test_broken_promise_accepted_when_unchecked(sig):
    b = sig.bind([like("f32", (33, 256)), like("f32", (33, 256)), 1.0], check_promises=False)
    assert b.grid == (2, 2, 1)


def test_static_extents_and_literal_dims():
    c = scale_contract(
        params=[
            tensor("X", ["M", "16"], shape=[None, 16]),
            tensor("Y", ["M", "N"]),
            {"name": "alpha", "kind": "scalar", "dtype": "f32"},
        ],
        promises=[],
    )
    s = Signature(c)
    s.bind([like("f32", (8, 16)), like("f32", (8, 16)), 1.0])
    with pytest.raises(ValueError, match=r"X.shape\[1\] must be 16 .* got 17"):
        s.bind([like("f32", (8, 17)), like("f32", (8, 17)), 1.0])


def test_integer_scalars_range_and_class():
    c = {
        "format": 1,
        "kernel": "k",
        "name": "k",
        "threads": 128,
        "params": [
            tensor("X", ["N"]),
            {"name": "n", "kind": "scalar", "dtype": "i32"},
            {"name": "flag", "kind": "scalar", "dtype": "i1"},
        ],
        "abi": [{"kind": "ptr", "param": 0}, {"kind": "scalar", "param": 1}, {"kind": "scalar", "param": 2}],
        "grid": [4, 1, 1],
        "promises": [],
    }
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
    assert sig.bind([x, y, 1.0], grid=(1,)).grid == (1, 1, 1)
    assert sig.bind([x, y, 1.0], grid=2).grid == (2, 1, 1)
    assert sig.bind([x, y, 1.0], grid=lambda meta: (meta["M"] // 32, meta["TM"] // 16)).grid == (2, 2, 1)
    caller = Signature(scale_contract(grid=[None, None, 1]))
    with pytest.raises(ValueError, match="no grid rule for axis x; give the grid"):
        caller.bind([x, y, 1.0])
    with pytest.raises(ValueError, match="grid y = 70000 is outside"):
        caller.bind([x, y, 1.0], grid=(1, 70000))


def test_a_grid_larger_than_the_rule_is_refused(sig):
    # The kernel's masks were dropped for CTAs inside cdiv(M, 32) x cdiv(N, 128):
    # more CTAs would access tiles past the tensors.
    x, y = like("f32", (64, 300)), like("f32", (64, 300))
    with pytest.raises(ValueError, match=r"grid x = 5 is larger than the kernel's grid rule cdiv\(M = 64, 32\) = 2"):
        sig.bind([x, y, 1.0], grid=(5,))
    with pytest.raises(ValueError, match=r"grid y = 4 is larger than the kernel's grid rule cdiv\(N = 300, 128\) = 3"):
        sig.bind([x, y, 1.0], grid=lambda meta: (1, 4))


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
    assert phcache.family_digest("ab", "c", None, "sm_90", None, "f") != phcache.family_digest(
        "a", "bc", None, "sm_90", None, "f"
    )


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
        c.put(
            family,
            key,
            FakeArtifact(scale_contract(key=key, name=name, kernel=name), cubin=b"\x7fELF" + key.encode()),
            {"source": "t"},
        )


def test_load_picks_the_most_specialised_fitting_variant(tmp_path):
    _store(tmp_path, ["", "X=a16.e16x16.s16;Y=a16.e16x16.s16", "X=a16.e16x4.s4;Y=a1.e16x4.s4"])
    k = phobos.load(tmp_path)
    assert isinstance(k, LoadedKernel) and k.name == "scale" and len(k.keys) == 3
    assert k.warmup(*xy(64, 256), 1.0).contract["key"] == "X=a16.e16x16.s16;Y=a16.e16x16.s16"
    assert (
        k.warmup(like("f32", (64, 100)), like("f32", (64, 100), align=1), 1.0).contract["key"]
        == "X=a16.e16x4.s4;Y=a1.e16x4.s4"
    )
    assert k.warmup(like("f32", (64, 101)), like("f32", (64, 101)), 1.0).contract["key"] == ""
    assert k.asm == {"ptx": "// ptx"}
    with pytest.raises(ValueError, match="is broken"):
        k.warmup(*xy(65, 256), 1.0)


def test_load_without_a_fitting_variant_says_how_to_build_one(tmp_path):
    _store(tmp_path, ["X=a16.e16x16.s16;Y=a16.e16x16.s16"])
    k = phobos.load(tmp_path)
    with pytest.raises(CompilerUnavailableError, match=r"no variant of 'scale' .* phobos aot SOURCE -o"):
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
    # checked by the front end (no MLIR), never compiled: a hit needs only its text
    source = (ROOT / "examples/scale.ph").read_text()
    k = phobos.compile(source, defines={"TM": 32}, cache_dir=tmp_path)
    assert isinstance(k, Kernel)
    _store(tmp_path, ["", "X=a16.e16x16.s16;Y=a16.e16x16.s16"], family=k.family)
    monkeypatch.setattr("phobos.runtime.kernel._compiler", lambda *a: pytest.fail("compiled on a cache hit"))
    art = k.warmup(*xy(64, 256), 1.0)
    assert art.cubin == b"\x7fELFX=a16.e16x16.s16;Y=a16.e16x16.s16"
    assert k.key(*xy(64, 256), 1.0).to_text() == "X=a16.e16x16.s16;Y=a16.e16x16.s16"
    assert k.name == "scale" and k.contract["params"][2]["name"] == "alpha"
    with pytest.raises(TypeError, match="takes 3 arguments"):  # checks before any driver call
        k(1.0)


def _child(code, **env):
    full = dict(os.environ, PYTHONPATH=str(ROOT / "python"), **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=full, timeout=300
    )


def test_runtime_imports_without_mlir(tmp_path):
    _store(tmp_path, [""])
    r = _child(f"""
        import sys
        sys.modules["mlir"] = None  # as on the GPU machine: importing mlir fails
        import phobos, phobos.runtime, phobos.runtime.kernel, phobos.runtime.cache
        import phobos.runtime.aot, phobos.contract.artifact
        k = phobos.load({str(tmp_path)!r})
        from phobos.runtime.aot import like
        print(k.key(like("f32", (64, 256)), like("f32", (64, 256)), 1.0).to_text())
        assert "mlir" not in [m.split(".")[0] for m in sys.modules if sys.modules[m] is not None]
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "X=a16.e16x16.s16;Y=a16.e16x16.s16"


@pytest.mark.skipif(importlib.util.find_spec("mlir") is None, reason="no MLIR here: nothing compiles")
def test_missing_variant_without_mlir_says_compile_ahead(tmp_path):
    r = _child(f"""
        import sys
        sys.modules["mlir"] = None
        import phobos
        from phobos.runtime.aot import like
        k = phobos.compile({str(ROOT / "bench" / "kernels" / "scale.ph")!r}, cache_dir={str(tmp_path)!r})
        try:
            k.warmup(like("f32", (64, 256)), like("f32", (64, 256)), 1.0)
        except phobos.CompilerUnavailableError as e:
            print(e)
            sys.exit(3)
    """)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "not in the cache" in r.stdout and "cannot compile" in r.stdout
    assert "phobos aot" in r.stdout and "phobos.load(DIR)" in r.stdout


@pytest.mark.skipif(importlib.util.find_spec("mlir") is None, reason="no MLIR here: nothing compiles")
def test_compile_ahead_builds_examples_of_a_kernel_without_a_grid_rule(tmp_path):
    """histogram_shared.ph walks STEPS blocks per CTA, so no grid rule can be read from it (the
    caller gives the grid); compile_ahead still builds its examples' variants."""
    source = ROOT / "bench" / "kernels" / "histogram_shared.ph"
    defines = {"NB": 256, "BLOCK": 2048, "STEPS": 4}
    x, h = like("i32", (1 << 20,)), like("i32", (256,))
    keys = phobos.compile_ahead(source, tmp_path, defines=defines, examples=[(x, h)])
    assert keys == ["", "X=a16.e16.s;H=a16.e16.s"]
    assert None in phobos.load(tmp_path).contract["grid"]  # the rule is still absent: the caller's grid


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
    from phobos.cli.driver import main

    assert main(["aot", str(tmp_path / "missing.ph"), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "phobos: error:" in err and "Traceback" not in err


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
    monkeypatch.setattr("phobos.runtime.kernel._compiler", lambda *a: pytest.fail("compiled on a cache hit"))
    assert again.warmup(*args).cubin == art.cubin
    loaded = phobos.load(tmp_path)
    assert loaded.artifact(art.contract["key"]).cubin == art.cubin


# ----------------------------------------------------------------------------- launch path, with a stub driver


class _FakeTensor:
    """Enough of torch.Tensor for the launcher (a CUDA tensor at a made-up address)."""

    def __init__(self, ptr, shape, strides=None, dtype="float32", device=0):
        self._ptr, self.shape, self.dtype, self._device = ptr, tuple(shape), dtype, device
        self._strides = tuple(strides) if strides else tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides

    def get_device(self):
        return self._device

    @property
    def device(self):
        return "cpu" if self._device < 0 else f"cuda:{self._device}"


class _Memory:
    def __init__(self, ptr, device_id):
        self.ptr, self.device_id = ptr, device_id


class _FakeCupyArray:
    """Enough of cupy.ndarray for the launcher (strides in bytes, like cupy's)."""

    def __init__(self, ptr, shape, strides=None, dtype=np.float32, device=0):
        self.dtype = np.dtype(dtype)
        self.itemsize = self.dtype.itemsize
        self.data, self.shape = _Memory(ptr, device), tuple(shape)
        elements = strides or tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
        self.strides = tuple(s * self.itemsize for s in elements)


_FakeCupyArray.__module__ = "cupy"


class _CAI:
    def __init__(self, ptr, shape):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": "<f4", "data": (ptr, False), "version": 3}


class _StubDevice:
    ordinal, capability, chip, name, context_id = 0, (9, 0), "sm_90", "stub", 1

    def __init__(self, single=True):
        self._single = single
        self.made_current = 0
        self.threads = []  # the thread of each make_current

    def function(self, cubin, entry, shared):
        return 0xF00D

    def make_current(self):
        import threading

        self.made_current += 1
        self.threads.append(threading.get_ident())


class _Launches(list):
    """What the stub driver was asked to launch; `slots` parameters are read per launch; `error`:
    what the ctypes entry point returns."""

    slots = 7
    error = 0


_LAUNCH_EX = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


@pytest.fixture(params=["ctypes", "ctypes-python", "bindings"])
def stub_runtime(request, monkeypatch):
    """A fake torch and cupy, and a driver that records launches instead of running them: through the
    ctypes entry point (a ctypes callback at the address cuGetProcAddress returns: the real packing,
    CUlaunchConfig included), called from the C launcher of a layout where it can be built
    ("ctypes") or from the Python one ("ctypes-python"), or through cuda-bindings' cuLaunchKernel."""
    import types

    from phobos.runtime import arrays, clauncher

    monkeypatch.setattr(clauncher, "enabled", request.param == "ctypes")

    torch = types.ModuleType("torch")
    torch.Tensor = _FakeTensor
    for name in ("float16", "bfloat16", "float32", "float64", "bool", "int8", "int32", "int64"):
        setattr(torch, name, name)
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 4242)
    monkeypatch.setitem(sys.modules, "torch", torch)
    cupy = types.ModuleType("cupy")
    cupy.ndarray = _FakeCupyArray
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda: types.SimpleNamespace(ptr=3131))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(arrays, "_torch_dtypes", {})
    monkeypatch.setattr(arrays, "_describers", {})
    launches = _Launches()
    launches.path = request.param

    def record(fn, grid, block, stream, params):
        slots = (ctypes.c_void_p * launches.slots).from_address(params)
        raw = [ctypes.string_at(slots[i], 8) for i in range(launches.slots)]
        launches.append({"fn": fn, "grid": grid, "block": block, "stream": stream, "raw": raw, "params": params})

    def launch_kernel(fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        record(fn, (gx, gy, gz), bx, stream, params)
        return (0,)

    def launch_kernel_ex(config, fn, params, extra):
        gx, gy, gz, bx, by, bz, shared, stream, attrs, nattrs = struct.unpack("<7I4xQQI", ctypes.string_at(config, 52))
        assert (by, bz, attrs, nattrs, extra) == (1, 1, 0, 0, None)
        record(fn, (gx, gy, gz), bx, stream, params)
        return launches.error

    cu = types.SimpleNamespace(
        cuLaunchKernel=launch_kernel,
        cuDeviceGetCount=lambda: (0, 1),
        cuPointerGetAttribute=lambda attr, ptr: (0, 0),
        CUpointer_attribute=types.SimpleNamespace(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL=9),
    )
    if request.param.startswith("ctypes"):
        callback = _LAUNCH_EX(launch_kernel_ex)
        launches.callback = callback  # keep it alive
        cu.cuGetProcAddress = lambda symbol, version, flags: (0, ctypes.cast(callback, ctypes.c_void_p).value, 0)
        cu.CUdriverProcAddress_flags = types.SimpleNamespace(
            CU_GET_PROC_ADDRESS_LEGACY_STREAM=1, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM=2
        )
        cu.CUdriverProcAddressQueryResult = types.SimpleNamespace(CU_GET_PROC_ADDRESS_SUCCESS=0)
    monkeypatch.setattr(driver, "cu", cu)
    monkeypatch.setattr(driver, "_initialized", True)
    monkeypatch.setattr(driver, "_launch_entry", None)
    monkeypatch.setattr(driver, "_launch_entry_resolved", False)
    monkeypatch.setattr(driver, "_single", None)
    device = launches.device = _StubDevice()
    monkeypatch.setattr(driver, "get_device", lambda ordinal=0: device)
    return launches


def _unpack(raw):
    return [
        struct.unpack("<Q", raw[0])[0],
        struct.unpack("<q", raw[1])[0],
        struct.unpack("<q", raw[2])[0],
        struct.unpack("<q", raw[3])[0],
        struct.unpack("<Q", raw[4])[0],
        struct.unpack("<q", raw[5])[0],
        struct.unpack("<f", raw[6][:4])[0],
    ]


def test_launch_packs_parameters_and_takes_the_fast_path(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x = _FakeTensor(1 << 32, (64, 300), strides=(320, 1))
    y = _FakeTensor((1 << 32) + (1 << 20), (64, 300))
    k(x, y, 2.5)
    assert (
        stub_runtime[-1]["grid"] == (2, 3, 1)
        and stub_runtime[-1]["block"] == 256
        and stub_runtime[-1]["stream"] == 4242
    )
    assert _unpack(stub_runtime[-1]["raw"]) == [1 << 32, 64, 300, 320, (1 << 32) + (1 << 20), 300, 2.5]
    assert len(k._fast) == 1 and stub_runtime[-1]["fn"] == 0xF00D
    x2 = _FakeTensor((1 << 33), (64, 300), strides=(320, 1))
    k._launch = lambda *a: pytest.fail("took the generic path")
    k(x2, y, -1.0, stream=7)  # same layout, new pointer and scalar: the generated launcher
    assert _unpack(stub_runtime[-1]["raw"]) == [1 << 33, 64, 300, 320, (1 << 32) + (1 << 20), 300, -1.0]
    assert stub_runtime[-1]["stream"] == 7 and len(k._plans) == 1
    k(x2, y, 3)  # an int where a float goes: packed as a float, still the fast path
    assert _unpack(stub_runtime[-1]["raw"])[-1] == 3.0
    del k._launch
    k[(1, 2)](x, y, 1.0)
    assert stub_runtime[-1]["grid"] == (1, 2, 1) and len(k._fast) == 2
    k(x, y, np.float32(0.5))  # other number types: the generic path (checked) launches them
    assert _unpack(stub_runtime[-1]["raw"])[-1] == 0.5
    with pytest.raises(TypeError, match="argument alpha .* must be a real number, got str"):
        k(x, y, "no")  # the fast path cannot pack it; the generic path names the problem
    with pytest.raises(TypeError, match="argument alpha .* must be a real number, got bool"):
        k(x, y, True)  # a layout seen before: the scalar is still checked
    with pytest.raises(ValueError, match="argument X is a torch tensor on 'cpu'"):
        k(_FakeTensor(1 << 32, (64, 300), device=-1), y, 1.0)
    with pytest.raises(ValueError, match="is broken"):
        k(_FakeTensor(1 << 32, (65, 300)), _FakeTensor(1 << 34, (65, 300)), 1.0)
    k(_FakeTensor(1 << 32, (65, 300)), _FakeTensor(1 << 34, (65, 300)), 1.0, check=False)
    assert stub_runtime[-1]["grid"] == (3, 3, 1)
    assert len(stub_runtime) == 6
    assert k.asm == {"ptx": "// ptx"}


def test_fast_path_scalars_of_every_kind(tmp_path, stub_runtime):
    c = kernel_contract(
        [
            tensor("X", ["N"], access="write"),
            {"name": "n", "kind": "scalar", "dtype": "i32"},
            {"name": "flag", "kind": "scalar", "dtype": "i1"},
            {"name": "b", "kind": "scalar", "dtype": "bf16"},
        ],
        [{"kind": "ptr", "param": 0}] + [{"kind": "scalar", "param": p} for p in (1, 2, 3)],
        [4, 1, 1],
    )
    phcache.Cache(tmp_path).put("fam", "", FakeArtifact(c), {"source": "t"})
    k = phobos.load(tmp_path)
    stub_runtime.slots = 4
    x = _FakeTensor(1 << 32, (100,))

    def packed():
        raw = stub_runtime[-1]["raw"]
        return (
            struct.unpack("<Q", raw[0])[0],
            struct.unpack("<i", raw[1][:4])[0],
            raw[2][0],
            struct.unpack("<H", raw[3][:2])[0],
        )

    k(x, 12, True, 1.0)
    assert packed() == (1 << 32, 12, 1, 0x3F80) and stub_runtime[-1]["grid"] == (4, 1, 1)
    k._launch = lambda *a: pytest.fail("took the generic path")
    k(x, 28, False, -2.0)  # n % 16 and n % 4 as for 12: the same plan
    assert packed() == (1 << 32, 28, 0, 0xC000)
    del k._launch
    k(x, 32, 1, 1.0)  # another class of n (a new variant key), and an int where the bool goes: checked, then fine
    assert packed() == (1 << 32, 32, 1, 0x3F80) and len(k._plans) == 2
    with pytest.raises(TypeError, match="argument flag .* must be a bool, got 7"):
        k(x, 32, 7, 1.0)
    with pytest.raises(ValueError, match=r"argument n .* 2147483660 does not fit in i32"):
        k(x, 2**31 + 12, True, 1.0)  # the class of a known layout: the packer refuses it, the check says why
    with pytest.raises(TypeError, match="argument n .* must be an integer, got float"):
        k(x, 12.0, True, 1.0)
    assert len(stub_runtime) == 3


def test_cupy_arrays_take_a_fast_path_of_their_own(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x = _FakeCupyArray(1 << 32, (64, 300), strides=(320, 1))
    y = _FakeCupyArray((1 << 32) + (1 << 20), (64, 300))
    k(x, y, 2.5)
    assert stub_runtime[-1]["stream"] == 3131  # cupy's current stream
    assert _unpack(stub_runtime[-1]["raw"]) == [1 << 32, 64, 300, 320, (1 << 32) + (1 << 20), 300, 2.5]
    assert len(k._fast.tables["cupy"]) == 1
    k._launch = lambda *a: pytest.fail("took the generic path")
    k(_FakeCupyArray(1 << 33, (64, 300), strides=(320, 1)), y, 0.5, stream=11)
    assert _unpack(stub_runtime[-1]["raw"]) == [1 << 33, 64, 300, 320, (1 << 32) + (1 << 20), 300, 0.5]
    assert stub_runtime[-1]["stream"] == 11
    del k._launch
    # a torch layout that maps to the same plan gets its own entry; mixed frameworks take the generic path
    k(_FakeTensor(1 << 34, (64, 300), strides=(320, 1)), _FakeTensor(1 << 35, (64, 300)), 1.0)
    assert len(k._plans) == 1 and len(k._fast.tables["torch"]) == 1
    k(_FakeTensor(1 << 34, (64, 300), strides=(320, 1)), y, 1.5)
    assert _unpack(stub_runtime[-1]["raw"]) == [1 << 34, 64, 300, 320, (1 << 32) + (1 << 20), 300, 1.5]
    assert stub_runtime[-1]["stream"] == 4242  # the first device array's framework picks the stream
    with pytest.raises(TypeError, match="argument X must have f32 elements .* got f64"):
        k(_FakeCupyArray(1 << 32, (64, 300), dtype=np.float64), y, 1.0)
    with pytest.raises(ValueError, match="argument Y must have a contiguous last dimension"):
        k(x, _FakeCupyArray(1 << 33, (64, 300), strides=(1, 64)), 1.0)
    assert len(stub_runtime) == 4


def test_generic_arrays_launch_and_cache_their_plan(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    for base in (1 << 32, 1 << 34):
        k(_CAI(base, (64, 256)), _CAI(base + (1 << 20), (64, 256)), 1.0)
        assert _unpack(stub_runtime[-1]["raw"]) == [base, 64, 256, 256, base + (1 << 20), 256, 1.0]
    assert len(k._plans) == 1 and not k._fast  # one GPU: the device needs no driver query; no fast path
    assert stub_runtime[-1]["stream"] == 0


def test_callable_grid_is_evaluated_per_launch(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    for want in ((2, 1), (1, 2), (2, 2)):  # a new callable each time (a lambda written at the call)
        k(x, y, 1.0, grid=lambda meta, want=want: (meta["M"] // 32 // (3 - want[0]), want[1] * meta["TM"] // 32))
        assert stub_runtime[-1]["grid"] == want + (1,)
    k[lambda meta: (0,)](x, y, 1.0)  # an empty grid: nothing is launched
    assert len(stub_runtime) == 3 and len(k._plans) == 1
    with pytest.raises(ValueError, match="grid y = 3 is larger than the kernel's grid rule"):
        k(x, y, 1.0, grid=lambda meta: (1, 3))


class _SubTensor(_FakeTensor):
    """A tensor subclass: never taken for a plain tensor by a layout's launcher."""


def test_a_layout_launcher_takes_nothing_but_its_own_layout(tmp_path, stub_runtime):
    """After a checked launch, the launcher of that layout (runtime.fastpath) runs the next calls; any
    argument that differs in one respect (type, shape, strides, dtype, device, alignment, scalar kind,
    grid, keywords, check=False) must reach the dispatcher or the generic path, never this plan."""
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    y = _FakeTensor(1 << 33, (64, 300))
    k(_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), y, 2.5)
    generic = []
    k._launch = lambda args, grid, stream, sync, check: generic.append((args, grid, check))
    k(_FakeTensor(1 << 34, (64, 300), strides=(320, 1)), y, 0.5)  # the launcher: new address and scalar
    assert not generic and _unpack(stub_runtime[-1]["raw"])[0] == 1 << 34 and len(stub_runtime) == 2
    k(_FakeTensor(1 << 34, (64, 300), strides=(320, 1)), y, alpha=1.5)  # by name: the dispatcher finds it
    assert not generic and _unpack(stub_runtime[-1]["raw"])[-1] == 1.5 and len(stub_runtime) == 3
    others = [
        ((_SubTensor(1 << 32, (64, 300), strides=(320, 1)), y, 1.0), {}),
        ((_FakeTensor(1 << 32, (64, 299), strides=(320, 1)), y, 1.0), {}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(321, 1)), y, 1.0), {}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1), dtype="float64"), y, 1.0), {}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1), device=1), y, 1.0), {}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1), device=-1), y, 1.0), {}),
        ((_FakeTensor((1 << 32) + 4, (64, 300), strides=(320, 1)), y, 1.0), {}),  # 4-byte aligned only
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), _FakeTensor(1 << 33, (64, 300), device=-1), 1.0), {}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), y, np.float32(1.0)), {}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), y, True), {}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), y, 1.0), {"grid": (1, 2)}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), y, 1.0), {"check": False}),
        ((_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), y), {}),
    ]
    for args, kwargs in others:
        k(*args, **kwargs)
        assert len(generic) == 1 and generic.pop()[0] == args, (args, kwargs)
    k[(2, 3)](_FakeTensor(1 << 32, (64, 300), strides=(320, 1)), y, 1.0)  # another grid form: generic
    assert len(generic) == 1 and len(stub_runtime) == 3


def test_alternating_layouts_each_launch_their_own_plan(tmp_path, stub_runtime):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    small = (_FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256)))
    large = (_FakeTensor(1 << 34, (96, 512)), _FakeTensor(1 << 35, (96, 512)))
    k(*small, 1.0)
    k(*large, 1.0)
    k._launch = lambda *a: pytest.fail("took the generic path")
    for i in range(6):
        x, y = (small, large)[i % 2]
        k(x, y, float(i))
        want = [x.data_ptr(), x.shape[0], x.shape[1], x.shape[1], y.data_ptr(), y.shape[1], float(i)]
        assert _unpack(stub_runtime[-1]["raw"]) == want
        assert stub_runtime[-1]["grid"] == (x.shape[0] // 32, -(-x.shape[1] // 128), 1)
    assert k._call != k._call_any and len(k._fast) == 2
    k._fast.clear()  # as a new tuning does: no launcher of a forgotten plan may run again
    assert k._call == k._call_any and k._front == k._fast.front
    with pytest.raises(pytest.fail.Exception, match="took the generic path"):
        k(*small, 1.0)


def test_kernel_objects_keep_the_signature_of_a_call(tmp_path, stub_runtime):
    """k(...) runs the installed launcher; inspect, help and Kernel.__call__(k, ...) still work."""
    import inspect

    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    want = "(*args, grid=None, stream=None, sync: 'bool' = False, check: 'bool' = True, **kwargs)"
    assert str(inspect.signature(k)) == want and "Launch on `args`" in type(k).__call__.__doc__
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    type(k).__call__(k, x, y, 1.5)
    k(x, y, 2.5)
    assert str(inspect.signature(k)) == want and k._call != k._call_any
    assert [_unpack(r["raw"])[-1] for r in stub_runtime] == [1.5, 2.5]


def test_callable_grid_is_checked_once_per_value(tmp_path, stub_runtime, monkeypatch):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    checked = []
    grid = Signature.grid
    monkeypatch.setattr(Signature, "grid", lambda self, symbols, g=None: checked.append(g) or grid(self, symbols, g))
    seen, value = [], [(2, 1)]
    rule = lambda meta: seen.append(meta) or value[0]  # noqa: E731
    k(x, y, 1.0, grid=rule)  # the generic path: checked while binding, then by the plan
    del checked[:]
    for grid_value in ((2, 1), (2, 1), (1, 2), (1, 2), [1, 1], [1, 1]):
        value[0] = grid_value
        k(x, y, 1.0, grid=rule)
        assert stub_runtime[-1]["grid"] == tuple(grid_value) + (1,)
    assert checked == [(1, 2), [1, 1], [1, 1]]  # each new value once; a list (it may change) every time
    assert seen[-1] == {"M": 64, "N": 256, "TM": 32} and seen[-1] is not seen[-2]  # a fresh dict each time
    value[0] = (1, 3)
    with pytest.raises(ValueError, match="grid y = 3 is larger than the kernel's grid rule"):
        k(x, y, 1.0, grid=rule)
    assert k[(1, 2)] is k[(1, 2)] and k[[1, 2]] is not k[[1, 2]]
    k[[1, 2]](x, y, 1.0)
    assert stub_runtime[-1]["grid"] == (1, 2, 1)


def _capturing(monkeypatch, status: int, err: int = 0) -> list:
    """The stub driver says every stream is being captured (status 1) or not (0); the queries, listed."""
    import types

    asked = []
    cu = driver.cu
    monkeypatch.setattr(cu, "cuStreamIsCapturing", lambda s: asked.append(s) or (err, status), raising=False)
    none = types.SimpleNamespace(CU_STREAM_CAPTURE_STATUS_NONE=0)
    monkeypatch.setattr(cu, "CUstreamCaptureStatus", none, raising=False)
    monkeypatch.setattr(cu, "cuCtxGetDevice", lambda: (0, 0), raising=False)  # numpy arguments' device
    monkeypatch.setattr(driver, "error_text", lambda e: ("CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "implicit"))
    return asked


def test_launches_that_cannot_be_captured_are_refused_before_the_launch(tmp_path, stub_runtime, monkeypatch):
    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    asked = _capturing(monkeypatch, 1)
    k(x, y, 1.0, stream=5)
    k(x, y, 1.0, stream=5)  # an asynchronous launch is captured like any other: no query
    assert len(stub_runtime) == 2 and not asked
    with pytest.raises(driver.CaptureError, match=r"'scale' .* stream 0x5 is being captured .* sync=True"):
        k(x, y, 1.0, stream=5, sync=True)
    host = np.ones((64, 256), np.float32)
    with pytest.raises(driver.CaptureError, match="numpy arguments are copied in and out"):
        k(host, host.copy(), 1.0, stream=5)
    _capturing(monkeypatch, 0, err=900)  # the legacy stream while another stream captures
    with pytest.raises(driver.CaptureError, match="refuses to use stream 0x0 now .* another stream is capturing"):
        k(x, y, 1.0, stream=0, sync=True)
    assert len(stub_runtime) == 2 and asked == [5, 5]


def test_each_thread_packs_its_own_buffer(tmp_path, stub_runtime):
    import threading

    _store(tmp_path, [""])
    k = phobos.load(tmp_path)
    x, y = _FakeTensor(1 << 32, (64, 256)), _FakeTensor(1 << 33, (64, 256))
    k(x, y, 1.0)
    other = threading.Thread(target=lambda: k(_FakeTensor(1 << 34, (64, 256)), y, 2.0))
    other.start()
    other.join()
    k(x, y, 3.0)
    first, second, third = stub_runtime
    if stub_runtime.path != "ctypes":  # the C launcher packs a copy on its thread's stack instead
        assert first["params"] == third["params"] != second["params"]
    assert [_unpack(r["raw"])[0] for r in stub_runtime] == [1 << 32, 1 << 34, 1 << 32]
    assert stub_runtime.device.threads.count(other.ident) == 1  # the new thread made the context current once


def test_launch_entry_point_lookup(monkeypatch):
    import types

    asked = []
    flags = types.SimpleNamespace(
        CU_GET_PROC_ADDRESS_LEGACY_STREAM="legacy", CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM="ptds"
    )
    callback = _LAUNCH_EX(lambda *a: 0)
    address = ctypes.cast(callback, ctypes.c_void_p).value
    cu = types.SimpleNamespace(
        CUdriverProcAddress_flags=flags,
        CUdriverProcAddressQueryResult=types.SimpleNamespace(CU_GET_PROC_ADDRESS_SUCCESS=0),
        cuGetProcAddress=lambda *a: asked.append(a) or (0, address, 0),
    )
    monkeypatch.setattr(driver, "cu", cu)

    def entry(**env):
        for name in ("PHOBOS_LAUNCH", "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(driver, "_launch_entry_resolved", False)
        return driver.launch_entry()

    assert entry() is not None and asked[-1] == (b"cuLaunchKernelEx", 12000, "legacy")
    assert entry(CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM="1") is not None and asked[-1][2] == "ptds"
    n = len(asked)
    assert entry(PHOBOS_LAUNCH="bindings") is None and len(asked) == n
    cu.cuGetProcAddress = lambda *a: (0, 0, 1)  # symbol not found: cuda-bindings' cuLaunchKernel
    assert entry() is None
    del cu.cuGetProcAddress  # an old cuda-bindings
    assert entry() is None


# ----------------------------------------------------------------------------- memory overlap


def test_read_only_tensor_may_not_overlap_a_written_one(tmp_path, stub_runtime):
    _store(tmp_path, [""])  # scale: X is read (noalias, read-only), Y written
    k = phobos.load(tmp_path)
    base = 1 << 32
    rule = (
        r"scale: arguments X and Y overlap in memory \(X: \[0x100000000, 0x100010000\), Y: \[0x100000004, "
        r"0x100010004\)\); the kernel only reads X .* same view .* pass a copy of X"
    )
    with pytest.raises(ValueError, match=rule):  # a new layout: the generic path
        k(_FakeTensor(base, (64, 256)), _FakeTensor(base + 4, (64, 256)), 1.0)
    k(_FakeTensor(base, (64, 256)), _FakeTensor(base, (64, 256)), 1.0)  # the same view: in place is fine
    k(_FakeTensor(base, (64, 256)), _FakeTensor(base + 65536, (64, 256)), 1.0)  # adjacent: fine
    k._launch = lambda *a: pytest.fail("took the generic path")
    with pytest.raises(ValueError, match="arguments X and Y overlap"):  # a known layout: the fast path checks too
        k(_FakeTensor(base + 65520, (64, 256)), _FakeTensor(base, (64, 256)), 1.0)
    del k._launch
    with pytest.raises(ValueError, match="arguments X and Y overlap"):  # same address, another view of it
        k(_FakeTensor(base, (64, 256), strides=(512, 1)), _FakeTensor(base, (64, 256)), 1.0)
    with pytest.raises(ValueError, match="arguments X and Y overlap"):  # generic arrays
        k(_CAI(base + 8, (64, 256)), _CAI(base, (64, 256)), 1.0)
    with pytest.raises(ValueError, match="arguments X and Y overlap"):  # cupy
        k(_FakeCupyArray(base + 8, (64, 256)), _FakeCupyArray(base, (64, 256)), 1.0)
    k(_FakeTensor(base, (0, 256)), _FakeTensor(base, (0, 256)), 1.0)  # no elements: no memory
    assert len(stub_runtime) == 2


def test_overlap_rule_only_concerns_read_only_tensors(tmp_path, stub_runtime):
    c = scale_contract()
    c["params"][0]["access"] = "readwrite"  # e.g. compiled with noalias=False, or a kernel that writes both
    phcache.Cache(tmp_path).put("fam", "", FakeArtifact(c), {"source": "t"})
    k = phobos.load(tmp_path)
    k(_FakeTensor(1 << 32, (64, 256)), _FakeTensor((1 << 32) + 4, (64, 256)), 1.0)
    c = scale_contract(options={"noalias": False})  # X is read, but not declared read-only in the cubin
    phcache.Cache(tmp_path / "plain").put("fam", "", FakeArtifact(c), {"source": "t"})
    phobos.load(tmp_path / "plain")(_FakeTensor(1 << 32, (64, 256)), _FakeTensor((1 << 32) + 4, (64, 256)), 1.0)
    assert len(stub_runtime) == 2


def test_overlap_spans_follow_strides_and_dtypes():
    from phobos.runtime.arrays import ArrayArg
    from phobos.runtime.launch import overlap_pairs, span_bytes

    assert span_bytes(ArrayArg(0, (64, 100), (128, 1), "f32", 0, "torch")) == 4 * (63 * 128 + 100)
    assert span_bytes(ArrayArg(0, (1, 100), (7, 1), "f16", 0, "torch")) == 200
    assert span_bytes(ArrayArg(0, (5, 0), (1, 1), "f32", 0, "torch")) == 0
    sig = Signature(scale_contract())
    views = {
        0: ArrayArg(0, (64, 256), (256, 1), "f32", 0, "torch"),
        1: ArrayArg(0, (64, 256), (300, 1), "f32", 0, "torch"),
    }
    assert overlap_pairs(sig, views) == [(0, 1, 65536, 4 * (63 * 300 + 256), False)]
    views[1] = ArrayArg(None, (64, 256), (256, 1), "f32", -1, "numpy")  # a host copy never overlaps
    assert overlap_pairs(sig, views) == []


# ----------------------------------------------------------------------------- contiguity


def test_offset_form_kernels_refuse_padded_rows(tmp_path):
    """tile.load/tile.store address 2-D tensors by flat offsets: their contract asks for packed rows,
    and a padded view is a ValueError naming the parameter and the rule; the slice form takes it."""
    pytest.importorskip("mlir")
    padded = like("f32", (64, 100), strides=(128, 1))
    offsets = phobos.compile(ROOT / "bench" / "kernels" / "scale_offsets.mlir", cache_dir=tmp_path)
    assert [p.get("contiguity") for p in offsets.contract["params"]] == ["all", "all", None]
    with pytest.raises(
        ValueError,
        match=r"scale_offsets: argument X must be contiguous \(row-major\), got strides "
        r"\(128, 1\) for shape \(64, 100\): the kernel addresses X by flat element offsets",
    ):
        offsets.warmup(padded, like("f32", (64, 100)), 2.0)
    with pytest.raises(ValueError, match="argument Y must be contiguous"):
        offsets.warmup(like("f32", (64, 100)), padded, 2.0)
    offsets.warmup(like("f32", (64, 100)), like("f32", (64, 100)), 2.0)
    slices = phobos.compile(ROOT / "bench" / "kernels" / "scale.ph", defines={"TM": 32, "TN": 128}, cache_dir=tmp_path)
    assert slices.contract["params"][0]["contiguity"] == "last"
    slices.warmup(padded, like("f32", (64, 100), strides=(101, 1)), 2.0)


def test_real_cuda_bindings_against_a_no_op_libcuda(tmp_path):
    """The real cuda-bindings and runtime against a stub libcuda.so.1 (built with the C compiler): the
    entry point from cuGetProcAddress, the CUlaunchConfig and parameter layout, both launch paths."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("launch_overhead_cpu", ROOT / "bench" / "launch_overhead_cpu.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    if not bench.build_stub_libcuda(tmp_path):
        pytest.skip("no C compiler")
    code = f"""
        import ctypes, struct, sys
        sys.path.insert(0, {str(ROOT / "bench")!r})
        import launch_overhead_cpu as bench
        bench.install_fakes()
        from pathlib import Path
        from phobos.runtime import driver
        stub, last = ctypes.CDLL("libcuda.so.1"), (ctypes.c_uint64 * 10)()
        for path in ("ctypes", "bindings"):
            k = bench.saxpy_kernel(Path({str(tmp_path)!r}) / path)
            x, y = bench.FakeTensor(1 << 32, (5000,)), bench.FakeTensor(1 << 33, (5000,))
            k(x, y, 2.5, stream=7)
            stub.stub_last(last)
            first = last[3]
            k(x, bench.FakeTensor(1 << 34, (5000,)), -1.0)  # the fast path, torch's stream (0)
            stub.stub_last(last)
            alpha = struct.unpack("<f", struct.pack("<Q", last[9])[:4])[0]
            print(path, first, list(last[:6]), hex(last[8]), last[7], alpha)
            driver._launch_entry_resolved, driver._launch_entry = True, None  # as PHOBOS_LAUNCH=bindings
    """
    r = _child(code, LD_LIBRARY_PATH=str(tmp_path))
    assert r.returncode == 0, r.stderr
    ctypes_line, bindings_line = r.stdout.strip().splitlines()
    assert ctypes_line == "ctypes 7 [2, 5, 256, 0, 4294967296, 1] 0x400000000 5000 -1.0"
    assert bindings_line == "bindings 7 [4, 5, 256, 0, 4294967296, 2] 0x400000000 5000 -1.0"


def test_cpu_benchmark_runs():
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "launch_overhead_cpu.py"), "-n", "20"],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "python")),
    )
    assert r.returncode == 0, r.stderr
    assert "phobos k(x, y, a), torch [ctypes, Python launcher]" in r.stdout and "cupy" in r.stdout


def test_fully_contiguous_parameters():
    c = scale_contract()
    c["params"][1]["contiguity"] = "all"  # e.g. addressed by flat offsets
    s = Signature(c)
    s.bind([like("f32", (64, 256), strides=(300, 1)), like("f32", (64, 256)), 1.0])
    s.bind([like("f32", (1, 256)), like("f32", (1, 256), strides=(999, 1)), 1.0], check_promises=False)  # extent-1 rows
    with pytest.raises(ValueError, match=r"argument Y must be contiguous \(row-major\), got strides \(300, 1\)"):
        s.bind([like("f32", (64, 256)), like("f32", (64, 256), strides=(300, 1)), 1.0])


def _scalar_class_contract(key):
    params = [tensor("X", ["N"], access="write"), {"name": "n", "kind": "scalar", "dtype": "i32"}]
    return kernel_contract(params, [{"kind": "ptr", "param": 0}, {"kind": "scalar", "param": 1}], [4, 1, 1], key)


def test_integer_scalars_of_another_class_never_reuse_a_plan(tmp_path, stub_runtime):
    # One variant per divisibility class of n; each launch must run the variant of its own class, whatever
    # came before: 12 (class 4) after 13 (class 1) or 16 (class 16) must not take their plans.
    variants = {"": 0x100, "n=4": 0x104, "n=16": 0x116}
    for key, fn in variants.items():
        cubin = b"\x7fELF" + fn.to_bytes(2, "little")
        phcache.Cache(tmp_path).put("fam", key, FakeArtifact(_scalar_class_contract(key), cubin=cubin), {"source": "t"})
    stub_runtime.device.function = lambda cubin, entry, shared: int.from_bytes(cubin[4:6], "little")
    stub_runtime.slots = 2
    k = phobos.load(tmp_path)
    x = _FakeTensor(1 << 32, (100,))
    expected = {13: "", 12: "n=4", 16: "n=16", 28: "n=4", 1: "", 0: "n=16", -12: "n=4", -13: ""}
    order = [13, 12, 16, 12, 16, 12, 13, 28, 1, 0, -12, -13, 16]
    for n in order:
        k(x, n, stream=5)
        last = stub_runtime[-1]
        assert struct.unpack("<i", last["raw"][1][:4])[0] == n
        assert last["fn"] == variants[expected[n]], f"n = {n} ran variant {last['fn']:#x}, not '{expected[n]}'"
    assert len(stub_runtime) == len(order)
    assert sorted(plan.signature.contract["key"] for plan in k._plans.values()) == ["", "n=16", "n=4"]
    for n in (12, 13, 16):  # the generated fast path alone (no generic launch) still tells the classes apart
        k._launch = lambda *a: pytest.fail("took the generic path")
        k(x, n, stream=5)
        assert stub_runtime[-1]["fn"] == variants[expected[n]]
    del k._launch
    for flag in (True, False):  # no integer scalar, on the fast path neither: the generic path says why
        with pytest.raises(TypeError, match="argument n .* must be an integer, got bool"):
            k(x, flag, stream=5)
