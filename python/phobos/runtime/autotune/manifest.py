"""Ahead of time: every candidate of a .ph kernel compiled into a folder, with the manifest
(autotune.json) that phobos.load tunes from on a machine without MLIR."""

from __future__ import annotations

import json
import time
from pathlib import Path

from phobos.contract.specialization import SpecKey

from .parallel import compile_all, default_jobs
from .progress import Progress
from .register_floor import floor_pruned
from .resources import chip_limits
from .results import STORE_FORMAT, write_json
from .space import SourceSpace, config_folder, promise_violation, source_space, symbol_extents
from .tile_facts import source_facts

MANIFEST = "autotune.json"


def compile_candidates(
    source,
    out_dir,
    *,
    kernel: str | None = None,
    chip: str,
    defines: dict | None = None,
    options: dict | None = None,
    keys=(),
    examples=(),
    check: bool = True,
    jobs: int | None = None,
    progress: bool | None = None,
    generic: bool = True,
    stages: bool = True,
) -> dict:
    """Every candidate of a .ph kernel into `out_dir`: candidates/<config>/ (an ahead-of-time folder
    each, with the generic variant and one variant per key and per example) and autotune.json, the
    manifest phobos.load(out_dir) tunes from. An example that breaks a candidate's @aligned promise
    is skipped for that candidate (tuning prunes it for such arguments); one that no candidate takes
    is an error. A candidate whose carried dot sum cannot fit a thread's registers while another's
    can is not compiled: its entry says "pruned" and why (register_floor.py). Returns the manifest.

    generic=False leaves the generic variant out (then only arguments with the keys of `keys` and
    `examples` launch); stages=False drops the stage texts (asm/: tile, gpu, llvm, ptx) once
    compiled, keeping the cubins, contracts and tile programs, all that launching and tuning read:
    a GEMM variant shrinks from about 450 KB to 60 KB."""
    import shutil

    from ..kernel import Kernel

    if not generic and not keys and not examples:
        raise ValueError("generic=False needs keys or examples: there would be no variant to compile")

    base = Kernel(source, kernel=kernel, chip=chip, defines=defines, options=options, cache_dir=out_dir)
    space = source_space(base.source_text, base.origin, kernel, defines)
    if space is None:
        raise ValueError(
            f"{base.origin}: compiling every @autotune candidate needs one .ph kernel that the front end "
            "accepts (the constants of MLIR input are bound in the IR; choose a kernel with --kernel)"
        )
    out = Path(out_dir)
    key_texts = [""] if generic else []
    key_texts += [k.to_text() if isinstance(k, SpecKey) else SpecKey.from_text(str(k)).to_text() for k in keys]
    examples = [tuple(e) for e in examples]
    src = base.portable_source
    t0 = time.perf_counter()
    # Without the generic variant the workers cannot bind the examples (a kernel's signature comes
    # from its generic variant): their keys are computed here, once, from the tile stage's contract
    # (the parameters; no GPU code), and each candidate's @aligned promises from the front end.
    presets: dict[int, tuple[list[str], list[str]]] = {}
    if not generic and examples:
        presets = _example_keys(base, space, examples, check)
    facts = source_facts(base.source_text, base.origin, kernel, [dict(defines or {}, **c) for c in space.configs])
    pruned = floor_pruned(facts, chip_limits(base.chip))  # before ptxas: they could only spill their sum
    work = []
    for i, config in ((i, c) for i, c in enumerate(space.configs) if i not in pruned):
        folder = out / "candidates" / config_folder(config)
        full = dict(defines or {}, **config)
        keys_i, examples_i = (key_texts + presets[i][0], []) if presets else (key_texts, examples)
        work.append((i, src, kernel, chip, full, dict(options or {}), str(folder), keys_i, examples_i, check))
    show = Progress("aot: compile candidates", len(work), enabled=progress)
    workers = min(default_jobs(len(work)) if jobs is None else max(1, jobs), len(work))
    done = compile_all(work, workers=jobs, progress=show)
    show.close()
    wall = time.perf_counter() - t0
    if not stages:
        for stage_texts in (out / "candidates").glob("*/*/*/asm"):
            shutil.rmtree(stage_texts, ignore_errors=True)
    entries = _entries(space, done, presets, pruned, facts)
    ok = [e for e in entries if e["status"] == "ok"]
    if examples and ok and all(len(e["skipped_examples"]) == len(examples) for e in ok):
        raise ValueError(f"no candidate of {base.origin} takes the example arguments: {ok[0]['skipped_examples'][0]}")
    names = sorted({e.kernel for e in _cache_entries(out / ok[0]["folder"])}) if ok else []
    name = names[0] if names else (kernel or base.origin)
    manifest = _manifest(base, name, space, entries, defines=defines, options=options, wall=wall, workers=workers)
    write_json(out / MANIFEST, manifest, sort_keys=False)  # configs in declaration order, as the table names them
    return manifest


def _entries(space: SourceSpace, done: dict, presets: dict, pruned: dict[int, str], facts: list) -> list[dict]:
    """The manifest's record of each candidate: its folder, facts (the untuned default's cost model
    reads them), compile outcome (ok, failed, or pruned before compiling, with the reason) and variants."""
    entries = []
    for i, config in enumerate(space.configs):
        error, seconds, stored, skipped = done[i] if i not in pruned else (pruned[i], 0.0, [], [])
        if presets:
            skipped = presets[i][1] + list(skipped)
        entry = {
            "config": config,
            "folder": f"candidates/{config_folder(config)}",
            "promises": space.promises[i],
            "threads": space.threads[i],
            "status": "pruned" if i in pruned else "failed" if error else "ok",
            "compile_s": seconds,
            "keys": stored,
            "skipped_examples": skipped,
        }
        if error:
            entry["reason"] = error
        entry["facts"] = facts[i].to_json() if facts[i] is not None else None
        entries.append(entry)
    return entries


def _manifest(base, name: str, space: SourceSpace, entries: list[dict], *, defines, options, wall, workers) -> dict:
    """autotune.json: the kernel, its space, how the candidates were compiled, one entry per candidate."""
    from phobos.contract.fingerprint import compiler_fingerprint

    return {
        "format": STORE_FORMAT,
        "kernel": name,
        "source": base.origin,
        "family": base.family,
        "chip": base.chip,
        "defines": dict(defines or {}),
        "options": dict(options or {}),
        "space": space.space,
        "fixed": space.fixed,
        "fingerprint": compiler_fingerprint(),
        "compile_wall_s": wall,
        "compile_workers": workers,
        "variants": sum(len(e["keys"]) for e in entries),
        "candidates": entries,
    }


def _example_keys(base, space: SourceSpace, examples, check: bool) -> dict[int, tuple[list[str], list[str]]]:
    """{candidate index: (key texts of the examples it takes, why it skips the others)}."""
    from ..binding import Signature

    sig = Signature(base.tile_contract())
    bound = []
    for args in examples:
        views = sig.describe(args)
        key = sig.bind(args, views, grid=(0, 0, 0), check_promises=False).key.to_text()
        bound.append((key, symbol_extents(sig, views)))
    out = {}
    for i in range(len(space.configs)):
        keys, skipped = [], []
        for key, extents in bound:
            why = promise_violation(space.promises[i], extents) if check else None
            if why:
                skipped.append(f"{sig.name}: {why}")
            else:
                keys.append(key)
        out[i] = (list(dict.fromkeys(keys)), skipped)
    return out


def _cache_entries(folder: Path) -> list:
    from ..cache import Cache

    return list(Cache(folder).entries())


def load_manifest(folder: Path) -> dict | None:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text())
    if manifest.get("format") != STORE_FORMAT:
        raise ValueError(f"{path}: unknown autotune manifest format {manifest.get('format')!r}")
    return manifest
