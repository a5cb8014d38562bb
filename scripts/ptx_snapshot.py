"""PTX snapshots: the check that a refactor of the lowering changes no kernel.

Compiles every kernel of `examples/`, `bench/kernels/` and the `.ph`/`.mlir` inputs of the lit
tests that reach the GPU stage, for sm_80, sm_90 and sm_90a, in two variants each (the generic
one and the one a launch with contiguous, 16-byte aligned arguments gets), and writes the PTX of
each to a folder. `--check` compiles again and compares byte for byte, naming each kernel whose
PTX changed (and, with -v, the first differing lines).

    python scripts/ptx_snapshot.py --write .ptx-baseline     # before the change
    python scripts/ptx_snapshot.py --check .ptx-baseline     # after each step: exit 1 on a change

A kernel that fails to compile is recorded with its error text, so a change in what fails is a
change too. Runs in parallel (--jobs, default: the CPU count).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHIPS = ("sm_80", "sm_90", "sm_90a")
SOURCES = ("examples", "bench/kernels", "test/Conversion", "test/Target", "test/Frontend/examples.ph")


def _inputs() -> list[Path]:
    found: list[Path] = []
    for source in SOURCES:
        path = ROOT / source
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        found += [f for f in files if f.suffix in (".ph", ".mlir") and "invalid" not in f.name]
    return found


def _aligned_key(fn) -> str:
    """The key of contiguous, 16-byte aligned tensors with extents divisible by 16."""
    from phobos.analysis.abi import TensorParam, describe_params

    parts = []
    for p in describe_params(fn):
        if isinstance(p, TensorParam):
            extents = "x".join("16" for _ in p.dims)
            strides = "x".join("16" for _ in p.dims[1:])
            parts.append(f"{p.name}=a16.e{extents}.s{strides}")
        elif p.dtype in ("i32", "i64"):
            parts.append(f"{p.name}=16")
    return ";".join(parts)


def _kernels(path: Path) -> list[tuple[str, str]]:
    """(kernel name, aligned key) of each kernel of a file; [] when its tile stage fails."""
    from mlir import ir

    from phobos.compiler import compile_stages
    from phobos.dialect import kernel as K
    from phobos.dialect import make_context

    try:
        text = compile_stages(str(path), until="tile")["tile"]
    except Exception:
        return []
    with make_context():
        module = ir.Module.parse(text)
        return [(K.kernel_name(fn), _aligned_key(fn)) for fn in K.kernels(module)]


def _compile(job: tuple[str, str, str, str]) -> tuple[str, bytes]:
    path, kernel, chip, key = job
    from phobos.compiler import compile_stages

    try:
        ptx = compile_stages(path, kernel=kernel, chip=chip, key=key or None, until="ptx")["ptx"]
    except Exception as e:  # what fails is part of the snapshot; paths relative, so checkouts compare
        ptx = f"error: {type(e).__name__}: {e}\n".replace(f"{ROOT}/", "")
    return _name(path, kernel, chip, key), ptx.encode()


def _name(path: str, kernel: str, chip: str, key: str) -> str:
    rel = Path(path).relative_to(ROOT).as_posix().replace("/", "__")
    variant = "aligned" if key else "generic"
    return f"{rel}.{kernel}.{chip}.{variant}.ptx"


def _jobs(files: list[Path], pool: ProcessPoolExecutor) -> list[tuple[str, str, str, str]]:
    jobs = []
    for path, kernels in zip(files, pool.map(_kernels, files)):
        for kernel, key in kernels:
            for chip in CHIPS:
                for variant in ("", key):
                    jobs.append((str(path), kernel, chip, variant))
    return jobs


def _diff(old: bytes, new: bytes) -> str:
    lines = difflib.unified_diff(old.decode().splitlines(), new.decode().splitlines(), lineterm="", n=1)
    return "\n".join(list(lines)[:12])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="DIR", help="write the PTX of every kernel to DIR")
    mode.add_argument("--check", metavar="DIR", help="compare the PTX of every kernel with DIR")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", metavar="REGEX", help="only inputs whose path matches")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the first differing lines")
    args = parser.parse_args()
    files = [f for f in _inputs() if not args.only or re.search(args.only, str(f))]
    with ProcessPoolExecutor(args.jobs) as pool:
        jobs = _jobs(files, pool)
        results = dict(pool.map(_compile, jobs, chunksize=2))
    folder = Path(args.write or args.check)
    if args.write:
        folder.mkdir(parents=True, exist_ok=True)
        for name, ptx in results.items():
            (folder / name).write_bytes(ptx)
        failed = sum(ptx.startswith(b"error:") for ptx in results.values())
        print(f"wrote {len(results)} PTX files ({failed} record a compile error) to {folder}")
        return 0
    changed = []
    for name, ptx in sorted(results.items()):
        old = folder / name
        if not old.exists() or old.read_bytes() != ptx:
            changed.append(name)
            if args.verbose and old.exists():
                print(f"--- {name}\n{_diff(old.read_bytes(), ptx)}")
    missing = {p.name for p in folder.glob("*.ptx")} - set(results) if not args.only else set()
    digest = hashlib.sha256(b"".join(results[k] for k in sorted(results))).hexdigest()[:16]
    for name in changed:
        print(f"changed: {name}")
    for name in sorted(missing):
        print(f"missing: {name}")
    print(f"{len(results)} kernels compiled, {len(changed)} changed, {len(missing)} missing (sha256 {digest})")
    return 1 if changed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
