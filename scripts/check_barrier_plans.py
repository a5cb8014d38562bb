"""Runs the independent barrier check (phobos/lowering/barrier_check.py) over every kernel.

Every kernel of `examples/`, `bench/kernels/` and the `.ph`/`.mlir` inputs under `test/`, for
sm_80, sm_90 and sm_90a, generic and with the key of aligned, contiguous arguments (as
scripts/ptx_snapshot.py compiles them): the tile stage, then the gpu stage's passes up to
tile-insert-barriers, then the check. Prints each disagreement: a barrier the check finds missing
(a hazard; tile-verify-barriers would fail the compile) or a kept barrier it finds no conflict
for (not wrong, but the two analyses differ). Exit status 1 when a barrier is missing.

    python scripts/check_barrier_plans.py [--only REGEX] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHIPS = ("sm_80", "sm_90", "sm_90a")
SOURCES = ("examples", "bench/kernels", "test")
LAST = "tile-insert-barriers"


def _inputs() -> list[Path]:
    found: list[Path] = []
    for source in SOURCES:
        files = sorted((ROOT / source).rglob("*"))
        found += [f for f in files if f.suffix in (".ph", ".mlir") and "invalid" not in f.name]
    return found


def _kernels(path: Path) -> list[tuple[str, str]]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from ptx_snapshot import _kernels as kernels_of

    return kernels_of(path)


def _check(job: tuple[str, str, str, str]) -> tuple[str, int, list[str], list[str], str | None]:
    """(name, accesses, missing, unneeded, why not checked) of one kernel variant."""
    path, kernel, chip, key = job
    from mlir import ir

    from phobos.compiler import compile_stages
    from phobos.compiler.pass_manager import build_pass_manager
    from phobos.dialect import kernel as K
    from phobos.dialect import make_context
    from phobos.lowering.barrier_check import check_kernel
    from phobos.passes import pipelines

    name = f"{Path(path).relative_to(ROOT)}:{kernel}:{chip}:{'aligned' if key else 'generic'}"
    try:
        text = compile_stages(path, kernel=kernel, chip=chip, key=key or None, until="tile")["tile"]
    except Exception as e:
        return name, 0, [], [], f"tile stage: {type(e).__name__}"
    params = pipelines.parameters(key, chip)
    elements = pipelines.stage_elements("gpu", params)
    upto = next(i for i, e in enumerate(elements) if e.startswith(LAST))
    with make_context() as context:
        module = ir.Module.parse(text)
        try:
            build_pass_manager(f"builtin.module({','.join(elements[: upto + 1])})", context).run(module.operation)
        except ir.MLIRError as e:
            return name, 0, [], [], f"gpu stage: {str(e).splitlines()[0][:80]}"
        accesses, missing, unneeded = 0, [], []
        for fn in K.kernels(module):
            result = check_kernel(fn)
            accesses += result.accesses
            missing += [h.message() for h in result.hazards]
            unneeded += [n.describe() for n in result.unneeded]
    return name, accesses, missing, unneeded, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", metavar="REGEX", help="only inputs whose path matches")
    args = parser.parse_args()
    files = [f for f in _inputs() if not args.only or re.search(args.only, str(f))]
    with ProcessPoolExecutor(args.jobs) as pool:
        jobs = [
            (str(path), kernel, chip, variant)
            for path, kernels in zip(files, pool.map(_kernels, files))
            for kernel, key in kernels
            for chip in CHIPS
            for variant in ("", key)
        ]
        results = list(pool.map(_check, jobs, chunksize=2))
    checked = [r for r in results if r[4] is None]
    with_shared = [r for r in checked if r[1]]
    missing = [(r[0], m) for r in checked for m in r[2]]
    unneeded = [(r[0], u) for r in checked for u in r[3]]
    for name, m in missing:
        print(f"missing: {name}: {m}")
    for name, u in unneeded:
        print(f"unneeded: {name}: the barrier before {u}")
    skipped = len(results) - len(checked)
    print(
        f"{len(results)} kernel variants ({len(files)} files), {len(checked)} through tile-insert-barriers "
        f"({skipped} stop earlier: inputs that do not compile), {len(with_shared)} with shared memory, "
        f"{sum(r[1] for r in checked)} accesses; {len(missing)} barriers missing, {len(unneeded)} kept barriers "
        "the check finds no conflict for"
    )
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
