#!/usr/bin/env python3
"""Phobos's own fuzzer: mutated inputs and command lines through the real tools.

    python test/fuzz/fuzz.py --seed 1 --seconds 120 [--jobs 2] [--keep DIR]
    python test/fuzz/fuzz.py --seed 1 --cases 400          # a fixed set of cases (what CI runs)
    python test/fuzz/fuzz.py --seed 1 --case 123 --verbose # one case again, with its output

Each case takes a seed input (examples/, bench/kernels/, the standard library,
the .ph and .mlir inputs of test/, the @phobos.kernel files of examples/python/),
applies one to four mutations (mutate.py: text and token mutations, and
grammar-aware ones that add functions, loops and exits, atomics, gathers, bit
operators and attributes of the wrong kind), picks a command line for it
(commands.py: phobos-opt with pipelines and flags, phobos check, phobos compile
--emit=tile|gpu, phobos run --interpret, run_python.py for .py), runs it as a
subprocess with a timeout and classifies the result (classify.py). Case N of
seed S is the same on every machine: its random choices come from a generator
seeded with (S, N), whatever the order in which cases finish.

Exits 1 when any run is a traceback, a crash, a hang or an unlocated error,
after printing each failure's reproducer: the input, written to a file under
--keep (default: a new temporary folder), and the command line to rerun it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import random
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from classify import CLASSES, FAILURES, classify, describe_exit, signature
from commands import Command, command_for
from mutate import Seed, load_corpus, mutate

PYTHON_SHARE = 0.05  # of the cases, from a .py seed
MEMORY_LIMIT = 8 << 30  # bytes of address space per run: a runaway allocation fails instead of swapping


@dataclass
class Case:
    index: int
    seed: Seed
    text: str
    mutations: list[str]
    command: Command

    @property
    def suffix(self) -> str:
        return "." + self.seed.kind


@dataclass
class Result:
    case: Case
    cls: str
    returncode: int | None
    stderr: str
    seconds: float


def make_case(seed: int, index: int, corpus: list[Seed]) -> Case:
    rng = random.Random(f"{seed}:{index}")
    python = [s for s in corpus if s.kind == "py"]
    # The Python files are few: they get a share of their own (the decorator's front end).
    source = rng.choice(python) if python and rng.random() < PYTHON_SHARE else rng.choice(corpus)
    text, mutations = (source.text, []) if rng.random() < 0.1 else mutate(rng, source, corpus)
    return Case(index, source, text, mutations, command_for(rng, source.kind, text))


def tool_path(tool: str) -> str:
    """The console script of this interpreter's environment, else the one on PATH."""
    beside = Path(sys.executable).parent / tool
    return str(beside) if beside.exists() else (shutil.which(tool) or tool)


def argv(case: Case, input_path: Path, scratch: Path) -> list[str]:
    args = [a.replace("{input}", str(input_path)).replace("{scratch}", str(scratch)) for a in case.command.args]
    return [tool_path(case.command.tool)] + args


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_case(case: Case, workdir: Path, timeout: float) -> Result:
    scratch = workdir / f"case{case.index}"
    scratch.mkdir()
    input_path = scratch / f"input{case.suffix}"
    data = case.text.encode("utf-8", errors="surrogateescape")
    input_path.write_bytes(data)
    env = dict(os.environ, PHOBOS_CACHE_DIR=str(workdir / "cache"))
    env.pop("PHOBOS_DEBUG", None)
    start = time.monotonic()
    # A session of its own, so a timeout kills the tool and whatever it started (phobos-opt runs mlir-opt).
    proc = subprocess.Popen(
        argv(case, input_path, scratch),
        stdin=subprocess.PIPE if case.command.stdin else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=scratch,
        env=env,
        start_new_session=True,
        preexec_fn=_limit_memory,
    )
    try:
        _, err = proc.communicate(data if case.command.stdin else None, timeout=timeout)
        returncode = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        returncode = None
    seconds = time.monotonic() - start
    stderr = err.decode("utf-8", errors="replace")
    shutil.rmtree(scratch, ignore_errors=True)
    return Result(case, classify(returncode, stderr), returncode, stderr, seconds)


def reproducer(result: Result, keep: Path) -> str:
    """Writes the input and the stderr under `keep`; returns the command line that reruns the case."""
    case = result.case
    stem = keep / f"case{case.index}"
    input_path = stem.with_suffix(case.suffix)
    input_path.write_bytes(case.text.encode("utf-8", errors="surrogateescape"))
    stem.with_suffix(".stderr").write_text(result.stderr)
    line = shlex.join(argv(case, input_path, keep))
    if case.command.stdin:
        line += f" < {shlex.quote(str(input_path))}"
    stem.with_suffix(".sh").write_text(line + "\n")
    return line


def run_cases(args, corpus: list[Seed], workdir: Path):
    """Runs cases in parallel until the count or the time is used up; yields results as they finish."""
    indices = [args.case] if args.case is not None else range(args.cases) if args.cases else _forever()
    deadline = time.monotonic() + args.seconds if args.seconds else None
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = set()
        for index in indices:
            if deadline is not None and time.monotonic() > deadline:
                break
            pending.add(pool.submit(run_case, make_case(args.seed, index, corpus), workdir, args.timeout))
            if len(pending) >= 2 * args.jobs:
                done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                yield from (f.result() for f in done)
        yield from (f.result() for f in concurrent.futures.as_completed(pending))


def _forever():
    index = 0
    while True:
        yield index
        index += 1


def report(results: list[Result], keep: Path, seconds: float) -> int:
    counts = Counter(r.cls for r in results)
    failures = sorted((r for r in results if r.cls in FAILURES), key=lambda r: r.case.index)
    groups = defaultdict(list)
    for r in failures:
        groups[signature(r.cls, r.case.command.name, r.returncode, r.stderr)].append(r)
    for sig, members in sorted(groups.items()):
        print(f"\n== {len(members)} x {sig}")
        for r in members:
            print(f"  case {r.case.index} ({r.case.seed.path}; {', '.join(r.case.mutations) or 'unmutated'}):")
            print(f"    {reproducer(r, keep)}")
        first = members[0]
        tail = [line for line in first.stderr.splitlines() if line.strip()][-6:]
        print(f"  {describe_exit(first.returncode)}; stderr of case {first.case.index} ends:")
        print("\n".join(f"    | {line[:200]}" for line in tail) or "    | (empty)")
    by_tool = Counter((r.case.command.name, r.cls) for r in results)
    print(f"\n== fuzz: {len(results)} cases in {seconds:.0f} s")
    for cls in CLASSES:
        tools = ", ".join(f"{tool} {n}" for (tool, c), n in sorted(by_tool.items()) if c == cls)
        print(f"  {cls:16} {counts[cls]:5}" + (f"   ({tools})" if tools else ""))
    if failures:
        print(f"== {len(failures)} failing cases in {len(groups)} groups; reproducers in {keep}")
        return 1
    print("== fuzz: no failures")
    return 0


def main(argv_=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the seed of every random choice (default: 1)")
    parser.add_argument("--seconds", type=float, help="stop starting cases after this long")
    parser.add_argument("--cases", type=int, help="run cases 0 .. N-1")
    parser.add_argument("--case", type=int, help="run this one case (with --verbose: show its input and output)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default: 2)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a run is a hang (default: 30)")
    parser.add_argument("--keep", type=Path, help="folder for the reproducers (default: a new temporary folder)")
    parser.add_argument("--verbose", action="store_true", help="print one line per case")
    args = parser.parse_args(argv_)
    if args.seconds is None and args.cases is None and args.case is None:
        parser.error("give --seconds, --cases or --case")

    corpus = load_corpus()
    keep = args.keep or Path(tempfile.mkdtemp(prefix="phobos-fuzz-"))
    keep.mkdir(parents=True, exist_ok=True)
    print(f"== fuzz: seed {args.seed}, {len(corpus)} seed inputs, {args.jobs} jobs, timeout {args.timeout:g} s")
    start = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="phobos-fuzz-work-") as work:
        for r in run_cases(args, corpus, Path(work)):
            results.append(r)
            if args.verbose:
                print(f"case {r.case.index:5} {r.cls:15} {r.seconds:5.1f} s  {r.case.command.name}  {r.case.seed.path}")
                if args.case is not None:
                    print(shlex.join(r.case.command.args), "\n--- input\n" + r.case.text + "\n--- stderr\n" + r.stderr)
    status = report(results, keep, time.monotonic() - start)
    if args.keep is None and not any(keep.iterdir()):
        keep.rmdir()
    return status


if __name__ == "__main__":
    sys.exit(main())
