"""Command lines for one fuzz input: which tool, which pipeline, which options.

A command is a list of arguments where "{input}" stands for the input file
and "{scratch}" for a folder the run may write into; `stdin` says whether the
input is piped in instead (the file argument is then "-").
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

# Runs a Python file of @phobos.kernel functions as an import does (see its docstring).
RUN_PYTHON = str(Path(__file__).resolve().with_name("run_python.py"))

PHOBOS_PASSES = [
    "tile-verify",
    "tile-specialize",
    "tile-elide-masks",
    "tile-assign-layout",
    "tile-lower-to-gpu",
    "tile-test-print-axis-info",
]
ALIASES = ["tile-to-gpu", "tile-to-gpu", "tile-to-llvm"]
UPSTREAM_PASSES = [
    "canonicalize",
    "cse",
    "symbol-dce",
    "sccp",
    "inline",
    "loop-invariant-code-motion",
    "convert-scf-to-cf",
    "lower-affine",
    "canonicalize{max-iterations=-1}",
    "func.func(canonicalize)",
    "gpu.module(cse)",
]

ODD_VALUES = ["", "0", "-1", "true", "false", "maybe", "1e400", "18446744073709551616", "é", "a b", "{}", "=", ";", ","]
ODD_KEYS = [
    "X=a16.e16x16.s16",
    "X=a16.e16x16.s16;Y=a16.e16x16.s16",
    "X=a1.e1x1.s1;n=4",
    "n=16",
    "X=a3.e5x7.s9",
    "X=a16",
    "Q=a16.e16x16.s16",
    "X=a16.e16x16.s16;X=a1.e1x1.s1",
    "X=",
    "=;=",
    "X=a16.e16x16x16x16.s16",
    "n=-4",
    "n=99999999999999999999",
]
CHIPS = ["sm_90", "sm_80", "sm_70", "sm_100a", "sm_60", "sm_0", "sm_", "gfx90a", "sm_99999999999", ""]
FEATURES = ["+ptx80", "+ptx83", "+ptx60", "+ptx9999", "ptx80", "+", "-ptx80", "+ptx80,+ptx83", ""]
PHOBOS_OPT_FLAGS = [
    ["--mlir-print-ir-after-all"],
    ["--mlir-print-ir-before-all"],
    ["--mlir-print-op-generic"],
    ["--mlir-print-debuginfo"],
    ["--mlir-print-local-scope"],
    ["--allow-unregistered-dialect"],
    ["--emit-bytecode"],
    ["--split-input-file"],
    ["--verify-diagnostics"],
    ["--mlir-elide-elementsattrs-if-larger=2"],
    ["--mlir-elide-elementsattrs-if-larger=-1"],
    ["--mlir-elide-elementsattrs-if-larger=x"],
    ["--output-split-marker=// ====="],
    ["--split-input-file=// ===="],
    ["--mlir-print-ir-after-all", "--mlir-print-ir-tree-dir={scratch}/tree"],
    ["-o", "{scratch}/out.mlir"],
    ["--mlir-print-ir-after-failure"],
    ["--mlir-disable-threading"],
]


@dataclass
class Command:
    tool: str  # "phobos-opt", "phobos" or "python" (run_python.py)
    args: list[str]
    stdin: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The tool and its subcommand, for grouping ("phobos run", "phobos-opt")."""
        if self.tool == "python":
            return "python run_python.py"
        return self.tool if self.tool == "phobos-opt" else f"phobos {self.args[0]}"


def _options(rng, choices):
    """Some of a pass's options, each with a plausible or an odd value."""
    picked = [(name, values) for name, values in choices if rng.random() < 0.5]
    parts = [
        f"{name}={rng.choice(values + ODD_VALUES) if rng.random() < 0.3 else rng.choice(values)}"
        for name, values in picked
    ]
    return "{" + " ".join(parts) + "}" if parts else ""


def _phobos_pass(rng):
    name = rng.choice(PHOBOS_PASSES + ALIASES)
    if name == "tile-specialize":
        return name + _options(rng, [("key", ODD_KEYS), ("kernel", ["scale", "saxpy", "nope", ""])])
    if name == "tile-elide-masks":
        return name + _options(rng, [("remarks", ["true", "false"])])
    if name == "tile-lower-to-gpu" or name in ALIASES:
        options = [("chip", CHIPS), ("features", FEATURES), ("noalias", ["true", "false"])]
        if name in ALIASES:
            options.append(("key", ODD_KEYS))
        return name + _options(rng, options)
    return name


def _mangle(rng, text):
    """A pipeline text with one character dropped, doubled or inserted."""
    at = rng.randrange(len(text) + 1)
    choice = rng.random()
    if choice < 0.3:
        return text[:at] + text[at + 1 :]
    if choice < 0.6:
        return text[:at] + text[at : at + 1] * 2 + text[at + 1 :]
    return text[:at] + rng.choice("(){},= '\"\\") + text[at:]


def phobos_opt(rng: random.Random, text: str) -> Command:
    steps = [
        _phobos_pass(rng) if rng.random() < 0.75 else rng.choice(UPSTREAM_PASSES) for _ in range(rng.randint(1, 3))
    ]
    args = ["{input}"]
    if rng.random() < 0.25 and all("{" not in s and "(" not in s for s in steps):
        args += [f"--{s}" for s in steps]  # one flag per pass
    else:
        pipeline = f"builtin.module({','.join(steps)})"
        if rng.random() < 0.1:
            pipeline = _mangle(rng, pipeline)
        args.append(f"--pass-pipeline={pipeline}")
    if "// -----" in text and rng.random() < 0.8:
        args.append("--split-input-file")
    if "expected-" in text and rng.random() < 0.6:
        args.append("--verify-diagnostics")
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        args += rng.choice(PHOBOS_OPT_FLAGS)
    return _maybe_stdin(rng, Command("phobos-opt", args))


def _defines(rng, text):
    """-D for the @autotune constants of the source, sometimes with odd values."""
    names = re.findall(r"\b([A-Z][A-Z0-9_]*)\s+in\s*\[", text)
    args = []
    for name in names:
        if rng.random() < 0.3:
            args += ["-D", f"{name}={rng.choice(['1', '16', '0', '-8', '3', '1e400', 'x', '99999999999'])}"]
    if rng.random() < 0.05:
        args += ["-D", rng.choice(["NOPE=4", "=4", "X", "TM=", "TM=4=4"])]
    return args


def compile_(rng: random.Random, text: str, kind: str) -> Command:
    args = ["compile", "{input}", f"--emit={rng.choice(['tile', 'tile', 'gpu'])}"]
    if kind == "ph":
        args += _defines(rng, text)
    if rng.random() < 0.3:
        args += ["--key", rng.choice(ODD_KEYS)]
    if rng.random() < 0.15:
        args += ["--chip", rng.choice(CHIPS)]
    if rng.random() < 0.15:
        args += ["--features", rng.choice(FEATURES)]
    if rng.random() < 0.1:
        args += ["--kernel", rng.choice(["scale", "saxpy", "gemm", "nope", ""])]
    if rng.random() < 0.1:
        args.append("--mlir-print-debuginfo")
    return _maybe_stdin(rng, Command("phobos", args))


def check(rng: random.Random, text: str) -> Command:
    return _maybe_stdin(rng, Command("phobos", ["check", "{input}"]))


_PARAM = re.compile(r"(\w+)\s*:\s*(?:tensor<(\w+)>\s*\[([^\]]*)\]|(\w+))")
_SCALARS = {"f16": "1.5", "bf16": "1.5", "f32": "1.5", "f64": "1.5", "i1": "1", "i8": "3", "i32": "3", "i64": "3"}


def kernel_args(rng: random.Random, text: str) -> str:
    """`--args` for the first kernel of the source: small extents (64 or ragged), scalars of the right kind."""
    m = re.search(r"kernel\s+\w+\s*\(([^)]*)\)", text)
    if not m:
        return "f32[64] f32[64] 1.5"
    extents: dict[str, str] = {}
    parts = []
    for _name, dtype, dims, scalar in _PARAM.findall(m.group(1)):
        if dtype:
            shape = []
            for dim in (d.strip() for d in dims.split(",")):
                if not dim.isdigit():
                    dim = extents.setdefault(dim, rng.choice(["64", "64", "128", "37", "1"]))
                shape.append(dim)
            parts.append(f"{dtype}[{','.join(shape)}]")
        else:
            parts.append(_SCALARS.get(scalar, "2"))
    return " ".join(parts)


def run_interpret(rng: random.Random, text: str) -> Command:
    args_text = kernel_args(rng, text)
    if rng.random() < 0.15:
        args_text = rng.choice(
            [args_text.replace("64", "0"), args_text.replace("[", "[-"), args_text + " 1.5", "f99[4]", "", "1e400"]
        )
    args = ["run", "{input}", "--interpret", "--args", args_text] + _defines(rng, text)
    if rng.random() < 0.15:
        args += ["--grid", rng.choice(["1", "2,2", "0", "-1", "1,1,1,1", "x", "", "1,"])]
    if rng.random() < 0.15:
        args += ["--trace", str(rng.choice([0, 1, 10, 12, -1, 10**20]))]
    if rng.random() < 0.1:
        args += ["--seed", rng.choice(["0", "-1", "x", str(2**70)])]
    return _maybe_stdin(rng, Command("phobos", args))


def _maybe_stdin(rng, command: Command) -> Command:
    if rng.random() < 0.1:
        command.args = ["-" if a == "{input}" else a for a in command.args]
        command.stdin = True
    return command


def python_file(rng: random.Random, text: str) -> Command:
    """The decorators check each kernel of the file; half the time each is compiled to tile IR too."""
    return Command("python", [RUN_PYTHON, "{input}"] + (["--tile"] if rng.random() < 0.5 else []))


def command_for(rng: random.Random, kind: str, text: str) -> Command:
    """A command line for an input of `kind` ("ph", "mlir" or "py")."""
    if kind == "py":
        return python_file(rng, text)
    if kind == "mlir":
        return phobos_opt(rng, text) if rng.random() < 0.8 else compile_(rng, text, kind)
    pick = rng.random()
    if pick < 0.35:
        return check(rng, text)
    if pick < 0.75:
        return compile_(rng, text, kind)
    return run_interpret(rng, text)
