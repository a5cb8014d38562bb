"""Mutation testing: plant one-line bugs and check that the tests notice.

For each chosen line of the compiler's decision code (TARGETS below), the
script derives one-line mutants (a comparison flipped or made strict, `and`
for `or`, a dropped `not`, an integer constant off by one, `True` for
`False`, a return of a constant) and runs a fast subset of the tests for
that file against each mutant. A mutant the tests pass is a survivor: a
plausible bug no test would catch.

The sources of the repository are never touched: the mutants live in a
temporary copy (of the working tree, or of a commit with --rev), and the
copy's sources are the ones imported: a `sitecustomize.py` on PYTHONPATH
points the editable install's package mapping (`phobos`, `phobos.passes`,
`phobos.dialect`, `phobos.tools`) at the copy, for pytest and for the
`phobos-opt` processes lit starts, and the script checks that before it runs
anything. It also checks that every test subset passes on the unmutated copy.

    .venv/bin/python scripts/mutate.py                 # every mutant, report survivors
    .venv/bin/python scripts/mutate.py --list          # the mutants, without running them
    .venv/bin/python scripts/mutate.py -k access -n 10 # mutants of matching files, at most 10
    .venv/bin/python scripts/mutate.py --rev HEAD -j 2 # mutants of the last commit, two at a time

Exit status: 0 when every mutant was killed, 1 when some survived.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TIMEOUT_S = 180  # a mutant that makes its tests hang (say an endless loop) counts as killed

PYTEST = ["pytest", "-q", "-x", "-p", "no:cacheprovider"]
LIT = ["lit", "-q"]

AXIS_TESTS = [
    PYTEST + ["test/unit/test_axis_info_facts.py"],
    PYTEST + ["test/unit/test_axis_info_soundness.py", "-k", "exhaustively"],
    LIT + ["test/Analysis", "test/Transforms/tile-elide-masks.mlir"],  # the facts' users: is_true drops masks
]
ACCESS_TESTS = [LIT + ["test/Transforms/tile-elide-masks.mlir"], PYTEST + ["test/unit/test_axis_info_access.py"]]
RUNTIME_TESTS = [PYTEST + ["test/unit/test_runtime.py", "test/unit/test_specialization.py"]]
LAYOUT_TESTS = [PYTEST + ["test/unit/test_layout_coordinates.py"]]
CHECKER_TESTS = [LIT + ["test/Frontend"], PYTEST + ["test/unit/test_frontend_api.py", "test/unit/test_diagnostics.py"]]
MIXED_TESTS = [PYTEST + ["test/unit/test_mixed_precision.py", "-x"]]
# The lowering's plans (issue 30): the pure-Python planners' own tests, then the kernels that use them.
CONVERSION_TESTS = [LIT + ["test/Conversion"]]
FRAGMENT_TESTS = [
    PYTEST + ["test/unit/test_fuzz_mutation_survivors.py"],  # fast, and written against this list's survivors
    PYTEST
    + ["test/unit/test_linear_layout.py", "test/unit/test_register_fragments.py", "test/unit/test_wgmma_plan.py"],
]


@dataclass(frozen=True)
class Target:
    path: str
    tests: list[list[str]]  # commands, run in the copy's root; the first failure kills the mutant
    lines: list[str]  # a fragment that names exactly one line of the file each
    extra: tuple[tuple[str, str], ...] = ()  # (text, replacement) where the rules cannot reach (strings, calls)


TARGETS = [
    Target(
        "python/phobos/analysis/access.py",
        ACCESS_TESTS,
        [
            "return static is not None and 0 <= info.constant and info.constant + extent <= static",
            "if not info.non_negative or not _inside(analysis, t, start, d):",
            "return analysis.known_multiple(start) % extent == 0 and t.extent_multiple[d] % extent == 0",
            "return t.static[d] is not None and c <= t.static[d]",
            "return t.static[d] is not None and other.static[axis] <= t.static[d]",
            "return other.dims[axis] == t.dims[d]",
            "and c > 0",
            'if loop is None or loop.operation.name != "scf.for" or v.arg_number != 0:',
            "drop_mask = mask is not None and analysis.get(mask).is_true()",
            "if aligned < run:",
        ],
    ),
    Target(
        "python/phobos/analysis/lattice.py",
        AXIS_TESTS,
        [
            "return min(abs(value) & -abs(value), MAX_DIVISOR)",
            "return n & -n if n > 0 else 1",
            "return max(own, self.element_divisibility())",
            "return self.constant == 1",
        ],
    ),
    Target("python/phobos/analysis/transfer.py", AXIS_TESTS, []),
    Target(
        "passes/tile_elide_masks.py",
        [LIT + ["test/Transforms/tile-elide-masks.mlir", "test/Transforms/tile-insert-checks.mlir"]],
        [],
    ),
    Target(
        "passes/tile_insert_checks.py",
        [LIT + ["test/Transforms/tile-insert-checks.mlir"], PYTEST + ["test/unit/test_check_mode.py"]],
        [],
    ),
    Target("passes/tile_specialize.py", [LIT + ["test/Transforms/tile-specialize.mlir"]], []),
    Target(
        "python/phobos/runtime/fastpath.py",
        RUNTIME_TESTS,
        ["if not self.sig.tensors or len(args) != len(self.sig.params):"],
        (
            ('f"s{i} % 16 == 0, s{i} % 4 == 0"', 'f"s{i} % 16 == 0"'),
            ('f"s{i} % 16 == 0, s{i} % 4 == 0"', 'f"s{i} % 4 == 0"'),
            ('f"    if type(s{i}) is not int:"', 'f"    if type(s{i}) is not int and type(s{i}) is not bool:"'),
        ),
    ),
    Target(
        "python/phobos/runtime/kernel.py",
        RUNTIME_TESTS,
        [],
        (
            ("layout.append(divisibility_class(v))", "layout.append(v % 16 == 0)"),
            ("layout.append(divisibility_class(v))", "layout.append(v % 4 == 0)"),
        ),
    ),
    Target(
        "python/phobos/contract/specialization.py",
        RUNTIME_TESTS,
        ["if value % c == 0:"],
    ),
    Target("python/phobos/runtime/binding.py", RUNTIME_TESTS, []),
    Target("python/phobos/frontend/checker.py", CHECKER_TESTS, []),
    Target(
        "python/phobos/frontend/types.py",
        MIXED_TESTS,
        [
            "if FLOAT_WIDTH[a] == FLOAT_WIDTH[b]:",
            "return a if FLOAT_WIDTH[a] > FLOAT_WIDTH[b] else b",
            "if INT_WIDTH[a] != INT_WIDTH[b]:",
            "return a if INT_WIDTH[a] > INT_WIDTH[b] else b",
            'return b if a == "index" else a',
        ],
    ),
    Target(
        "python/phobos/frontend/attributes.py",
        MIXED_TESTS,
        [
            "elif blocks is not None and blocks > SM_MAX_CTAS:",
            "if regs is not None and not MIN_REGS <= regs <= MAX_REGS:",
            "if regs is not None and threads * regs > SM_REGISTERS:",
            "if blocks is not None and blocks * threads > SM_MAX_THREADS:",
            "if blocks is not None and regs is not None and blocks * threads * regs > SM_REGISTERS:",
        ],
    ),
    Target(
        "python/phobos/lowering/to_gpu.py",
        LAYOUT_TESTS,
        [],
        (  # a lane's coordinate along a dimension of a layout whose lanes span two dimensions
            ("x = lane if inner_lanes == 1 else", "x = lane if inner_lanes != 1 else"),
            ("if inner_lanes * L.threads_per_warp[d] < 32:", "if inner_lanes * L.threads_per_warp[d] > 32:"),
            ("self.index(32 * inner_warps)", "self.index(32)"),
        ),
    ),
    Target(
        "python/phobos/lowering/shared_plan.py",
        [PYTEST + ["test/unit/test_shared_memory.py", "test/unit/test_fuzz_mutation_survivors.py"], *CONVERSION_TESTS],
        [],
    ),
    Target(
        "python/phobos/lowering/exchange_plan.py",
        [PYTEST + ["test/unit/test_exchange_plan.py", "test/unit/test_fuzz_mutation_survivors.py"], *CONVERSION_TESTS],
        [],
    ),
    Target(
        "python/phobos/lowering/plan_records.py",
        [LIT + ["test/Transforms/tile-plan-records-invalid.ph"], *CONVERSION_TESTS],
        [],
    ),
    Target("python/phobos/lowering/linear_layout.py", FRAGMENT_TESTS, []),
    Target("python/phobos/lowering/fragments.py", FRAGMENT_TESTS, []),
]

# Lines picked by pattern where a file's decisions are spread out: every line that matches one of these
# (outside comments and strings) is a target, in file order, up to `per_file` of them.
_DECISIONS = r"\b(if|elif|while|return)\b.*([<>]=?|!=|==|%|//|\bnot\b|\band\b|\bor\b)"
PATTERNS = {
    "python/phobos/analysis/transfer.py": r"\bgcd\(|\bmin\(|\bmax\(",
    "passes/tile_elide_masks.py": r"\bif\b|\breturn\b",
    "passes/tile_insert_checks.py": _DECISIONS,
    "passes/tile_specialize.py": r"\bif\b",
    "python/phobos/runtime/binding.py": r"\bif\b.*([<>]=?|==|%)",
    "python/phobos/frontend/checker.py": r"\bif\b.*([<>]=?|!=|==)",
    "python/phobos/lowering/shared_plan.py": _DECISIONS,
    "python/phobos/lowering/exchange_plan.py": _DECISIONS,
    "python/phobos/lowering/plan_records.py": _DECISIONS,
    "python/phobos/lowering/linear_layout.py": _DECISIONS,
    "python/phobos/lowering/fragments.py": _DECISIONS,
}

FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}


@dataclass(frozen=True)
class Mutant:
    path: str
    line: int  # 1-based
    original: str
    mutated: str
    what: str
    tests: tuple[tuple[str, ...], ...]

    def name(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _code_tokens(source: str) -> list[tokenize.TokenInfo]:
    return [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type in (tokenize.OP, tokenize.NAME, tokenize.NUMBER)
    ]


def mutants_of_line(lines: list[str], tokens: list[tokenize.TokenInfo], number: int) -> list[tuple[str, str]]:
    """(mutated line, description) for every mutation of line `number` (1-based)."""
    text = lines[number - 1]
    found = []

    def swap(tok, new, what):
        (row, col), (erow, ecol) = tok.start, tok.end
        if row == erow == number:
            found.append((text[:col] + new + text[ecol:], what))

    on_line = [t for t in tokens if t.start[0] == number]
    stripped = text.lstrip()
    if stripped.startswith("return ") and on_line and not stripped.rstrip().endswith(("(", "[", "{", ",")):
        indent = text[: len(text) - len(stripped)]
        value = stripped[len("return ") :].strip()
        for constant in ("True", "False"):
            if value != constant and (" and " in value or " or " in value or re.search(r"[<>=]=|[<>]", value)):
                found.append((f"{indent}return {constant}\n", f"return {constant}"))
    for i, tok in enumerate(on_line):
        s = tok.string
        if tok.type == tokenize.OP and s in FLIP:
            swap(tok, FLIP[s], f"{s} -> {FLIP[s]}")
        elif tok.type == tokenize.NAME and s in ("and", "or"):
            other = "or" if s == "and" else "and"
            swap(tok, other, f"{s} -> {other}")
        elif tok.type == tokenize.NAME and s == "not":
            nxt = on_line[i + 1].string if i + 1 < len(on_line) else ""
            prev = on_line[i - 1].string if i > 0 else ""
            if prev != "is" and nxt != "in":
                (row, col), (_, ecol) = tok.start, on_line[i + 1].start
                if row == number:
                    found.append((text[:col] + text[ecol:], "dropped not"))
        elif tok.type == tokenize.NAME and s in ("True", "False"):
            swap(tok, "False" if s == "True" else "True", f"{s} -> {'False' if s == 'True' else 'True'}")
        elif tok.type == tokenize.NAME and s in ("min", "max"):
            swap(tok, "max" if s == "min" else "min", f"{s} -> {'max' if s == 'min' else 'min'}")
        elif tok.type == tokenize.NUMBER and re.fullmatch(r"\d+", s):
            swap(tok, str(int(s) + 1), f"{s} -> {int(s) + 1}")
    return found


def _existing(target: Target, source: str, per_file: int) -> list[int]:
    """The 1-based numbers of the target's lines in this version of the file."""
    lines = source.splitlines(keepends=True)
    numbers = []
    for fragment in target.lines:
        hits = [i + 1 for i, line in enumerate(lines) if fragment in line]
        if len(hits) != 1:
            print(f"warning: {target.path}: {fragment!r} names {len(hits)} lines; skipped", file=sys.stderr)
            continue
        numbers.append(hits[0])
    pattern = PATTERNS.get(target.path)
    if pattern:
        code_lines = {t.start[0] for t in _code_tokens(source)}
        for i, line in enumerate(lines, 1):
            code = line.split("#")[0]
            if i in code_lines and i not in numbers and re.search(pattern, re.sub(r"(['\"]).*?\1", "", code)):
                numbers.append(i)
            if len(numbers) >= per_file:
                break
    return numbers


def collect(root: Path, select: str | None, per_file: int, per_line: int) -> list[Mutant]:
    found = []
    for target in TARGETS:
        if select and not re.search(select, target.path):
            continue
        source = (root / target.path).read_text()
        lines = source.splitlines(keepends=True)
        tokens = _code_tokens(source)
        tests = tuple(tuple(c) for c in target.tests)
        for number in _existing(target, source, per_file):
            for mutated, what in mutants_of_line(lines, tokens, number)[:per_line]:
                found.append(Mutant(target.path, number, lines[number - 1], mutated, what, tests))
        for text, replacement in target.extra:
            hits = [i for i, line in enumerate(lines) if text in line]
            if len(hits) != 1:
                print(f"warning: {target.path}: {text!r} is on {len(hits)} lines; skipped", file=sys.stderr)
                continue
            line = lines[hits[0]]
            found.append(Mutant(target.path, hits[0] + 1, line, line.replace(text, replacement), replacement, tests))
    return found


# ----------------------------------------------------------------------------- the copy

SITECUSTOMIZE = '''"""Written by scripts/mutate.py: import this copy's sources, not the editable install's."""
import sys

COPY, ORIGINAL = {copy!r}, {original!r}
for _module in list(sys.modules.values()):
    _mapping = getattr(_module, "MAPPING", None)
    if getattr(_module, "__name__", "").startswith("__editable__") and isinstance(_mapping, dict):
        for _name, _path in list(_mapping.items()):
            if _path.startswith(ORIGINAL):
                _mapping[_name] = COPY + _path[len(ORIGINAL):]
'''


def make_copy(rev: str | None, overlay: list[str] = ()) -> Path:
    where = Path(tempfile.mkdtemp(prefix="phobos-mutants-"))
    if rev:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(where, filter="data")
    else:
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True,
            capture_output=True,
        ).stdout.split(b"\0")
        for name in filter(None, (n.decode() for n in listed)):
            source = ROOT / name
            if source.is_file():
                (where / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, where / name)
    for name in overlay:  # files of the working tree on top of a commit (a change not committed yet)
        shutil.copy2(ROOT / name, where / name)
    site = where / ".mutation-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(copy=str(where), original=str(ROOT)))
    return where


def environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy / ".mutation-site"), str(copy / "python")])
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a stale .pyc of a mutant must never be picked up
    env.pop("PHOBOS_CACHE_DIR", None)
    env["PHOBOS_CACHE_DIR"] = str(copy / ".mutation-cache")  # compiled kernels of one mutant stay its own
    return env


def check_imports(copy: Path) -> None:
    """Stop unless the copy's modules are the ones Python imports (in-process and in lit's tools)."""
    modules = ["phobos.analysis.access", "phobos.passes.tile_elide_masks", "phobos.runtime.fastpath", "phobos.dialect"]
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    print(importlib.import_module(m).__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code, *modules], cwd=copy, env=environment(copy), capture_output=True, text=True
    )
    files = out.stdout.split()
    if out.returncode != 0 or len(files) != len(modules) or not all(f.startswith(str(copy)) for f in files):
        sys.exit(f"error: the copy's sources are not the ones imported:\n{out.stdout}{out.stderr}")


def run_tests(copy: Path, tests, timeout: float) -> tuple[bool, str]:
    """(passed, the first failing command) of the test commands in the copy."""
    env = environment(copy)
    deadline = time.monotonic() + timeout
    for command in tests:
        try:
            r = subprocess.run(
                [str(BIN / command[0]), *command[1:]],
                cwd=copy,
                env=env,
                capture_output=True,
                timeout=max(1.0, deadline - time.monotonic()),
            )
        except subprocess.TimeoutExpired:
            return False, " ".join(command) + " (timeout)"
        if r.returncode != 0:
            return False, " ".join(command)
    return True, ""


def run_mutant(copy: Path, m: Mutant) -> tuple[bool, str]:
    path = copy / m.path
    original = path.read_text()
    lines = original.splitlines(keepends=True)
    assert lines[m.line - 1] == m.original, f"{m.name()}: the copy changed under the mutant"
    lines[m.line - 1] = m.mutated
    try:
        path.write_text("".join(lines))
        return run_tests(copy, m.tests, TIMEOUT_S)
    finally:
        path.write_text(original)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", dest="select", help="only targets whose path matches this regular expression")
    ap.add_argument("-n", dest="limit", type=int, default=60, help="at most this many mutants (default 60)")
    ap.add_argument("--per-file", type=int, default=8, help="lines picked by pattern per file (default 8)")
    ap.add_argument("--per-line", type=int, default=2, help="mutants per line (default 2)")
    ap.add_argument("--rev", help="mutate this commit (git archive) instead of the working tree")
    ap.add_argument("--with", dest="overlay", action="append", default=[], help="with --rev: this working file")
    ap.add_argument("--baseline", action="store_true", help="run the test subsets on the unmutated copy and stop")
    ap.add_argument("-j", dest="jobs", type=int, default=1, help="mutants run at once, one copy each")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = ap.parse_args(argv)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(f"{ap.prog}: terminated"))  # then the copies are removed
    copies = [make_copy(args.rev, args.overlay) for _ in range(max(1, args.jobs))]
    try:
        mutants = collect(copies[0], args.select, args.per_file, args.per_line)[: args.limit]
        if args.list:
            for m in mutants:
                print(f"{m.name()}\n    - {m.original.strip()}\n    + {m.mutated.strip()}")
            return 0
        for copy in copies:
            check_imports(copy)
        subsets = sorted({t for m in mutants for t in m.tests})
        ok, failed = run_tests(copies[0], subsets, TIMEOUT_S * len(subsets))
        if not ok:
            sys.exit(f"error: the tests fail without a mutant ({failed}): fix them first")
        print(f"{len(mutants)} mutants; the unmutated copy passes {len(subsets)} test commands", flush=True)
        if args.baseline:
            return 0

        free = list(copies)
        results: list[tuple[Mutant, bool, str]] = []

        def one(m: Mutant):
            copy = free.pop()
            try:
                started = time.monotonic()
                passed, failed = run_mutant(copy, m)
                verdict = "SURVIVED" if passed else f"killed by {failed}"
                print(f"[{time.monotonic() - started:5.1f}s] {m.name()}: {verdict}", flush=True)
                results.append((m, passed, failed))
            finally:
                free.append(copy)

        with ThreadPoolExecutor(len(copies)) as pool:
            list(pool.map(one, mutants))
        survivors = [m for m, passed, _ in results if passed]
        killed = len(results) - len(survivors)
        print(f"\n{len(results)} mutants, {killed} killed, {len(survivors)} survived", end="")
        print(f" (kill rate {100 * killed / len(results):.0f}%)" if results else "")
        for m in survivors:
            print(f"  survivor {m.name()}\n    - {m.original.strip()}\n    + {m.mutated.strip()}")
        return 1 if survivors else 0
    finally:
        for copy in copies:
            shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
