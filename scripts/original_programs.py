"""Build the original Phobos's example programs (joa/phobos-lang) into ahead-of-time folders.

    .venv/bin/python scripts/original_programs.py SOURCES [--out DIR] [--chip sm_90a] [--only NAME]
    .venv/bin/python scripts/original_programs.py --from-mirror GITDIR [--out DIR] ...

SOURCES is a folder holding the programs' .ph files (searched recursively, so a checkout works:
the eight of the main branch's examples/, moba_efficient.ph of the inference branch's examples/,
q8_matvec.ph and quant_types.ph of its phobos-lang/examples/), or a git directory with both
branches; --from-mirror GITDIR exports them from such a git directory (main:examples/*.ph,
inference:examples/moba_efficient.ph, inference:phobos-lang/examples/{q8_matvec,quant_types}.ph).
The programs are read from there and never copied into this repository.

Each program, with its `@cluster` lines removed (the original's cluster tuning), is built into
OUT/<name>/ (default .cache/original, git-ignored) for CHIP: every @autotune candidate with
autotune.json where the program has a space (phobos.load tunes among them on the GPU machine),
one folder otherwise; each with the generic variant and the variant of the whole-tile shape's
layout (test_original_programs_gpu.py's shapes: original_cases.py), without the stage texts.
Also:
  OUT/src/<name>.ph     the sources as built (`@cluster` stripped)
  OUT/programs.json     per program: compiled or not (with the compiler's error), its default
                        configuration (the first value of each space), candidates compiled,
                        where it came from; and the commit and compiler fingerprint
Carry OUT to the GPU machine and run test_original_programs_gpu.py there with
PHOBOS_ORIGINAL_ARTIFACTS=OUT (docs/original.md). Exit status 1 when a program did not compile.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "test" / "unit"))  # original_cases: the programs, their shapes and layouts

import original_cases as O  # noqa: E402

FAILURES = (RuntimeError, ValueError, TypeError, OSError)  # CompileError is a ValueError


def _compiler_error(e: Exception) -> str:
    return f"{type(e).__name__}: {e}".strip()


def _examples(program: O.Program, config: dict) -> list:
    """The layout of the whole-tile shape (its specialised variant); the ragged and odd shapes run
    the generic variant. One layout keeps the folders small: 325 candidates, two variants each."""
    from phobos.runtime.aot import like

    return [O.layouts(program, program.gpu_shapes[1], config, like)]


def _drop_stage_texts(folder: Path) -> None:
    for texts in list(folder.rglob("asm")):  # tile/gpu/llvm/ptx texts: most of the bytes, never launched
        shutil.rmtree(texts, ignore_errors=True)


def build_program(program: O.Program, source: Path, folder: Path, chip: str, jobs: int | None) -> dict:
    """One program's folder (rebuilt from scratch); returns its programs.json record."""
    import phobos
    from phobos.runtime.autotune.manifest import compile_candidates
    from phobos.runtime.autotune.space import source_space

    text = source.read_text(encoding="utf-8")
    record: dict = {"status": "failed", "aligned_promises": "@aligned" in text}
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    space = source_space(text, str(source), None, None)
    if space is None:  # the front end refuses it: compiling reports the located errors
        try:
            phobos.compile(source, chip=chip).artifact()
        except FAILURES as e:
            record["error"] = _compiler_error(e)
        else:
            record["error"] = "the front end refuses the program, yet it compiles"
        return record
    record["default"] = dict(space.configs[0]) if space.configs else {}
    record["candidates"] = max(1, len(space.configs))
    try:
        if len(space.configs) > 1:
            manifest = compile_candidates(
                source, folder, chip=chip, examples=_examples(program, record["default"]),
                jobs=jobs, progress=True, stages=False,
            )  # fmt: skip
            entries = manifest["candidates"]
            record["compiled"] = sum(e["status"] == "ok" for e in entries)
            record["not_compiled"] = {e["folder"]: e.get("reason", "") for e in entries if e["status"] != "ok"}
            if not record["compiled"]:
                raise RuntimeError("no candidate compiled: " + "; ".join(record["not_compiled"].values()))
        else:
            phobos.compile_ahead(source, folder, chip=chip, examples=_examples(program, record["default"]))
            _drop_stage_texts(folder)
            record["compiled"] = 1
    except FAILURES as e:
        record["error"] = _compiler_error(e)
        return record
    record["status"] = "ok"
    record["seconds"] = round(time.perf_counter() - t0, 1)
    return record


def _provenance(root: Path) -> dict:
    """Where the programs came from: the path, and each branch's commit for a git directory."""
    out: dict = {"from": str(root)}
    if O.is_git_dir(root):
        for branch in sorted({p.branch for p in O.PROGRAMS}):
            run = subprocess.run(["git", f"--git-dir={root}", "rev-parse", branch], capture_output=True, text=True)
            out[branch] = run.stdout.strip() or None
    return out


def _stamp() -> dict:
    from phobos.contract.fingerprint import compiler_fingerprint

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    # the fingerprint says which compiler built the folders; a changed tree shows beside the commit
    changed = bool(git("status", "--porcelain", "--", "python", "dialect", "passes"))
    commit = git("rev-parse", "--short", "HEAD")
    return {"commit": commit, "changed_sources": changed, "fingerprint": compiler_fingerprint()}


def build(root: Path, out: Path, chip: str, only: str | None, jobs: int | None) -> dict:
    """Every program found at root (or those whose name contains `only`) into out; programs.json."""
    index = out / "programs.json"
    old = json.loads(index.read_text())["programs"] if only and index.is_file() else {}
    records = dict(old)
    (out / "src").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        originals = O.original_sources(root, Path(work))
        for program in O.PROGRAMS:
            if only and only not in program.name:
                continue
            where = {"branch": program.branch, "path": program.path}
            if program.name not in originals:
                records[program.name] = dict(where, status="failed", error=f"no {program.name}.ph under {root}")
                print(f"MISSING {program.name}: no {program.name}.ph under {root}", flush=True)
                continue
            text = originals[program.name].read_text(encoding="utf-8")
            source = out / "src" / f"{program.name}.ph"
            source.write_text(O.strip_cluster(text), encoding="utf-8")
            digest = hashlib.sha256(text.encode()).hexdigest()
            print(f"{program.name}: building for {chip}", flush=True)
            record = build_program(program, source, out / program.name, chip, jobs)
            records[program.name] = dict(where, sha256=digest, **record)
            print(_line(program.name, records[program.name]), flush=True)
    summary = dict(_stamp(), chip=chip, original=_provenance(root), programs=records)
    index.write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def _line(name: str, r: dict) -> str:
    if r["status"] != "ok":
        return f"FAILED {name}: {r.get('error')}"
    text = f"{name}: {r['compiled']} of {r['candidates']} candidates in {r['seconds']}s, default {r['default']}"
    if r.get("aligned_promises"):
        text += " (WARNING: the program makes @aligned promises: the tests' ragged shapes break them)"
    return text + "".join(f"\n    not compiled: {f}: {why.splitlines()[0] if why else ''}" for f, why in
                          r.get("not_compiled", {}).items())  # fmt: skip


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sources", nargs="?", type=Path, help="a folder of the .ph files, a checkout, or a git dir")
    parser.add_argument("--from-mirror", type=Path, metavar="GITDIR", help="export the programs from a git directory")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "original")
    parser.add_argument("--chip", default="sm_90a", help="the GPU's chip (sm_90a: H100, H200)")
    parser.add_argument("--only", help="build only the programs whose name contains this (keeps the others)")
    parser.add_argument("--jobs", type=int, help="compile processes (default: one per CPU)")
    ns = parser.parse_args(argv)
    root = ns.from_mirror or ns.sources
    if root is None or (ns.from_mirror and ns.sources):
        parser.error("give SOURCES or --from-mirror GITDIR (one of them)")
    if ns.from_mirror and not O.is_git_dir(ns.from_mirror):
        parser.error(f"{ns.from_mirror} is not a git directory")
    summary = build(root.resolve(), ns.out, ns.chip, ns.only, ns.jobs)
    failed = {n: r for n, r in summary["programs"].items() if r["status"] != "ok"}
    print(f"\n{ns.out}: {len(summary['programs']) - len(failed)} of {len(summary['programs'])} programs built, "
          f"{_size(ns.out) / 1e6:.1f} MB")  # fmt: skip
    for name, r in failed.items():
        print(f"not built: {name}: {r.get('error')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
