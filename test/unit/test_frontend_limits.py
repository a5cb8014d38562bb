"""Deep but legal nesting and extreme literals: every phase either handles
them or refuses them with a located error, never a RecursionError.

The inputs are generated here: long `else if` chains, deeply nested blocks,
long and deeply bracketed expressions, long chains of statements, literals
past what Python converts, and `.mlir` kernels with deeply nested regions.
`phobos check` and `phobos compile` must agree (the same limits), so each
`.ph` case runs through both, as the CLI does, in a child process.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from phobos.frontend import CompileError, check_source, compile_to_tile_ir
from phobos.nesting import MAX_NESTING

BIN = Path(sys.executable).parent
HEADER = "kernel k(A: tensor<f32>[M], n: i32, x: f32) {\n"
LOCATED = re.compile(r"^k\.(ph|mlir):[1-9]\d*:[1-9]\d*: error: \S", re.M)


def kernel(body: str) -> str:
    return HEADER + body + "\n}\n"


def else_if_chain(branches: int, innermost: str = "v = 1.0") -> str:
    """`var v` set by an if with `branches` cases (so branches - 1 `else if`s)."""
    text = "if n == 0 { v = 0.0 }"
    for i in range(1, branches):
        text += f" else if n == {i} {{ {innermost if i == branches - 1 else 'v = 2.0'} }}"
    return kernel(f"  var v = 0.0\n  {text} else {{ v = 3.0 }}\n  A[0 :+ 32] = v")


class Result:
    def __init__(self, returncode: int, stderr: str):
        self.returncode, self.stderr = returncode, stderr


def run_cli(tool: str, *args: str, source: str, tmp_path: Path, suffix: str = ".ph") -> Result:
    """`tool args k.ph` in `tmp_path`: phobos in this process (as fast as the
    API, through the CLI's own error handling), phobos-opt in a child."""
    (tmp_path / f"k{suffix}").write_text(source)
    if tool == "phobos":
        return _in_process([*args, f"k{suffix}"], tmp_path)
    done = subprocess.run([str(BIN / tool), *args, f"k{suffix}"], capture_output=True, text=True, cwd=tmp_path)
    return Result(done.returncode, done.stderr)


def _in_process(argv: list[str], cwd: Path) -> Result:
    from phobos.cli.driver import main

    previous, stderr, stdout = os.getcwd(), io.StringIO(), io.StringIO()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
            code = main(argv)
    finally:
        os.chdir(previous)
    return Result(code, stderr.getvalue())


def assert_ok(result: Result) -> None:
    assert result.returncode == 0, result.stderr[:2000]
    assert "error" not in result.stderr, result.stderr[:2000]


def assert_located(result: Result, message: str) -> None:
    shown = result.stderr[:2000]
    assert result.returncode == 1, shown
    assert "Traceback" not in result.stderr and "internal" not in result.stderr, shown
    assert LOCATED.search(result.stderr), shown
    assert message in result.stderr, shown


def check_and_compile(source: str, tmp_path: Path, stages=("tile", "gpu")) -> list[Result]:
    """The results of `phobos check` and `phobos compile --emit=STAGE`."""
    results = [run_cli("phobos", "check", source=source, tmp_path=tmp_path)]
    for stage in stages:
        results.append(run_cli("phobos", "compile", f"--emit={stage}", source=source, tmp_path=tmp_path))
    return results


# ----------------------------------------------------------------------------- accepted up to the limit


ACCEPTED = {
    # The longest chain: its innermost block is at the limit.
    "else-if-chain": else_if_chain(MAX_NESTING - 1),
    "else-if-chain-with-loop": else_if_chain(MAX_NESTING - 3, "for i in range(0, 4) { v = v + 1.0 }"),
    "nested-ifs": kernel("  var v = 0.0\n  " + "if n > 0 { " * 23 + "v = v + 1.0" + " }" * 23 + "\n  A[0 :+ 32] = v"),
    "nested-loops": kernel(
        "  var v = ctx.block.x\n  "
        + "".join(f"for i{j} in range(0, 2) {{ v = v + 32\n" for j in range(23))
        + "}" * 23
        + "\n  A[v :+ 32] = x"
    ),
    "long-sum": kernel("  A[0 :+ 32] = " + " + ".join(["x"] * 64)),
    "many-statements": kernel("  var v = ctx.block.x\n" + "  v = v + 1\n" * 5000 + "  A[v :+ 32] = x"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_deep_but_legal_programs_compile(name, tmp_path):
    for result in check_and_compile(ACCEPTED[name], tmp_path):
        assert_ok(result)


# ----------------------------------------------------------------------------- refused with a located error


REFUSED = {
    "else-if-chain-2000": (else_if_chain(2000), f"'else if' is nested more deeply than {MAX_NESTING} levels"),
    "else-if-chain-one-too-many": (
        else_if_chain(MAX_NESTING),
        f"'else if' is nested more deeply than {MAX_NESTING} levels",
    ),
    "block-in-long-chain": (
        else_if_chain(MAX_NESTING - 1, "if n > 0 { v = 5.0 }"),
        f"blocks are nested more deeply than {MAX_NESTING} levels",
    ),
    "nested-blocks-2000": (kernel("  " + "if true { " * 2000 + "}" * 2000), "blocks are nested too deeply"),
    "nested-loops-2000": (
        kernel("  " + "".join(f"for i{j} in range(0, 2) {{ " for j in range(2000)) + "}" * 2000),
        "blocks are nested too deeply",
    ),
    "nested-whiles-2000": (kernel("  " + "while n > 0 { " * 2000 + "}" * 2000), "blocks are nested too deeply"),
    "sum-10000": (kernel("  A[0 :+ 32] = " + " + ".join(["x"] * 10000)), "expression is nested too deeply"),
    "parens-5000": (kernel("  let a = " + "(" * 5000 + "x" + ")" * 5000), "expression is nested too deeply"),
    "calls-5000": (kernel("  let a = " + "exp(" * 5000 + "x" + ")" * 5000), "expression is nested too deeply"),
    "negations-5000": (kernel("  let a = " + "-" * 5000 + "x"), "expression is nested too deeply"),
    "subscripts-5000": (
        kernel("  let a = " + "A[" * 5000 + "0" + " :+ 32]" * 5000),
        "expression is nested too deeply",
    ),
    "integer-5000-digits": (kernel("  let a = " + "9" * 5000), "integer literal 99999999999999999999..."),
    "float-overflow": (kernel("  A[0 :+ 32] = x * 1e400"), "float literal 1e400 is too large"),
    "float-5000-digits": (kernel("  let a = " + "9" * 5000 + ".5"), "is too large (the largest finite float"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_too_deep_or_too_large_is_a_located_error(name, tmp_path):
    source, message = REFUSED[name]
    # Front-end errors come before any stage: one stage stands for all.
    results = check_and_compile(source, tmp_path, stages=("gpu",))
    for result in results:
        assert_located(result, message)
    # The same limit in every command: the same report.
    assert len({r.stderr for r in results}) == 1


def test_the_api_reports_the_same_error_in_process():
    source, message = REFUSED["else-if-chain-2000"]
    for run in (check_source, compile_to_tile_ir):
        with pytest.raises(CompileError) as info:
            run(source, "k.ph")
        (diagnostic,) = info.value.diagnostics
        assert diagnostic[1] == 3 and diagnostic[2] > 1 and message in diagnostic[4]


# ----------------------------------------------------------------------------- .mlir input


def nested_mlir(levels: int, kind: str) -> str:
    """A tile kernel whose innermost op lies `levels` scf.if or scf.for regions deep."""
    head = (
        'func.func @k(%A: memref<?xf32> {tile.dims = ["M"], tile.name = "A"}, %n: i32 {tile.name = "n"},'
        ' %x: f32 {tile.name = "x"}) attributes {tile.kernel} {\n'
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c2 = arith.constant 2 : index\n"
        "  %zero = arith.constant 0 : i32\n  %cond = arith.cmpi sgt, %n, %zero : i32\n"
    )
    if kind == "for":
        body = "".join(f"scf.for %i{k} = %c0 to %c2 step %c1 {{\n" for k in range(levels)) + "}\n" * levels
    else:
        body = "".join("scf.if %cond {\n" for _ in range(levels)) + "}\n" * levels
    return head + body + "  return\n}\n"


@pytest.mark.parametrize("kind", ["if", "for"])
def test_mlir_nested_to_the_limit_lowers(kind, tmp_path):
    # MAX_NESTING - 1 regions: their terminators (and any op inside) are at the limit.
    source = nested_mlir(MAX_NESTING - 1, kind)
    assert_ok(run_cli("phobos-opt", "--tile-to-gpu", source=source, tmp_path=tmp_path, suffix=".mlir"))
    assert_ok(run_cli("phobos", "compile", "--emit=gpu", source=source, tmp_path=tmp_path, suffix=".mlir"))


@pytest.mark.parametrize("kind", ["if", "for"])
@pytest.mark.parametrize("levels", [MAX_NESTING, 500])  # 1000: the MLIR parser's own limit
def test_mlir_nested_too_deeply_is_a_located_error(kind, levels, tmp_path):
    source = nested_mlir(levels, kind)
    message = f"nested more deeply than {MAX_NESTING} levels"
    assert_located(run_cli("phobos-opt", "--tile-to-gpu", source=source, tmp_path=tmp_path, suffix=".mlir"), message)
    result = run_cli("phobos", "compile", "--emit=gpu", source=source, tmp_path=tmp_path, suffix=".mlir")
    assert_located(result, message)


def test_axis_info_survives_deep_regions_and_long_chains():
    """The analysis alone (other passes call it before the lowering refuses):
    it gives up soundly below the limit instead of overflowing."""
    from mlir import ir

    from phobos.dialect import make_context

    context = make_context()
    with context, ir.Location.unknown(context):
        _deep_and_long(context)


def _deep_and_long(context) -> None:
    from mlir import ir

    from phobos.analysis import AxisInfoAnalysis

    module = ir.Module.parse(nested_mlir(2000, "for"), context)
    AxisInfoAnalysis(module)
    chain = "".join(f"  %v{i + 1} = arith.addi %v{i}, %c32 : index\n" for i in range(5000))
    text = (
        "func.func @k(%n: index) attributes {tile.kernel} {\n  %c32 = arith.constant 32 : index\n"
        f"  %v0 = arith.muli %n, %c32 : index\n{chain}  return\n}}\n"
    )
    module = ir.Module.parse(text, context)
    fn = module.body.operations[0]
    last = list(fn.regions[0].blocks[0].operations)[-2].result
    assert AxisInfoAnalysis(module).known_multiple(last) == 32
