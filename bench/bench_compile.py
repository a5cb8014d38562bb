"""Compile time of scale and saxpy, cold (empty cache) and warm (cache hit). Runs without a GPU.

Also saxpy written with @phobos.kernel (examples/python/twins.py) against the same kernel in
.ph (examples/saxpy.ph), both at BLOCK = 1024: the decoration (reading and checking the
function's source) and the cold first launch, each median of 5 fresh caches.

cold: a fresh cache folder; the first launch of a kernel compiles its generic
  variant (which gives the contract) and the variant for the arguments' key.
  Also the time of one more variant (another key) once the contract is known.
warm: a new Kernel object (empty in-memory state) on the filled cache: what a
  new process pays before its first launch, minus Python's imports; and a new
  process end to end (`import phobos` + the cache hit), without MLIR imports.

    .venv/bin/python bench/bench_compile.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time

import common

CASES = [
    ("scale", {"TM": 32, "TN": 128}, "f32[4096,4096] f32[4096,4096] 2.0", "f32[4097,129] f32[4097,129] 2.0"),
    ("saxpy", {"BLOCK": 1024}, "f32[1048576] f32[1048576] 2.0", "f32[1000003] f32[1000003] 2.0"),
]


def main():
    import phobos
    from phobos.runtime.aot import parse_args_text

    rows, out = [], {}
    for name, defines, first, second in CASES:
        source = common.KERNELS / f"{name}.ph"
        with tempfile.TemporaryDirectory() as tmp:
            args1, args2 = parse_args_text(first), parse_args_text(second)
            k = phobos.compile(source, defines=defines, cache_dir=tmp)
            t0 = time.perf_counter()
            k.warmup(*args1)
            cold = time.perf_counter() - t0
            t0 = time.perf_counter()
            k.warmup(*args2)
            one_more = time.perf_counter() - t0
            warm = []
            for _ in range(5):
                k2 = phobos.compile(source, defines=defines, cache_dir=tmp)
                t0 = time.perf_counter()
                k2.warmup(*args1)
                warm.append(time.perf_counter() - t0)
            code = (
                f"import time; t0 = time.perf_counter(); "
                f"import sys; sys.path.insert(0, {str(common.ROOT / 'python')!r}); "
                f"import phobos; from phobos.runtime.aot import parse_args_text as p; "
                f"phobos.compile({str(source)!r}, defines={defines!r}, cache_dir={tmp!r}).warmup(*p({first!r})); "
                f"print(time.perf_counter() - t0, 'mlir' in sys.modules)"
            )
            procs = [
                subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
                for _ in range(3)
            ]
            process = statistics.median(float(p[0]) for p in procs)
            mlir_loaded = procs[0][1] == "True"
        out[name] = {
            "defines": defines,
            "cold_first_launch_s": cold,
            "cold_one_more_variant_s": one_more,
            "warm_in_process_ms": statistics.median(warm) * 1e3,
            "warm_new_process_s": process,
            "warm_new_process_imports_mlir": mlir_loaded,
            "keys": [first, second],
        }
        rows.append(
            (
                name,
                f"{cold:.2f}",
                f"{one_more:.2f}",
                f"{statistics.median(warm) * 1e3:.1f}",
                f"{process * 1e3:.0f}",
                "yes" if mlir_loaded else "no",
            )
        )
    out["decorated"] = decorated_vs_ph(parse_args_text(CASES[1][2]))
    common.save("compile", out)
    print("compile time (cold: empty cache; warm: cache hit)")
    print(
        common.table(
            rows, ["kernel", "cold first launch s", "+1 variant s", "warm ms", "new process ms", "MLIR imported"]
        )
    )
    d = out["decorated"]
    print("\nsaxpy BLOCK=1024: @phobos.kernel vs .ph (median of 5 fresh caches)")
    rows = [(f, f"{d[f]['make_ms']:.1f}", f"{d[f]['cold_first_launch_s']:.2f}") for f in ("ph", "decorated")]
    print(common.table(rows, ["form", "make the kernel ms", "cold first launch s"]))


def decorated_vs_ph(args: list) -> dict:
    """Making the kernel object and its cold first launch, for the decorated twin and the .ph file."""
    import phobos
    from phobos.decorator import PythonKernel

    sys.path.insert(0, str(common.ROOT / "examples" / "python"))
    import twins

    source, defines = common.ROOT / "examples" / "saxpy.ph", {"BLOCK": 1024}
    makers = {
        "ph": lambda tmp: phobos.compile(source, defines=defines, cache_dir=tmp),
        "decorated": lambda tmp: PythonKernel(twins.saxpy.__wrapped__, {"defines": defines, "cache_dir": tmp}),
    }
    made: dict[str, list[float]] = {form: [] for form in makers}
    cold: dict[str, list[float]] = {form: [] for form in makers}
    for _ in range(5):  # the two forms in turn, so that the machine's drift hits both alike
        for form, make in makers.items():
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                k = make(tmp)
                t1 = time.perf_counter()
                k.warmup(*args)
                made[form].append(t1 - t0)
                cold[form].append(time.perf_counter() - t1)
    return {
        form: {"make_ms": statistics.median(made[form]) * 1e3, "cold_first_launch_s": statistics.median(cold[form])}
        for form in makers
    }


if __name__ == "__main__":
    main()
