"""Fuzzing the front end: no input may crash it, hang it or make it build bad IR.

Every input must end in one of two ways: a verified module, or a
`CompileError` whose diagnostics are located and render without error. Any
other exception (a traceback for the user), a run longer than the alarm, or
an "internal compiler error" (the front end built IR that failed
verification) fails the test. Inputs: random token streams, mutations of the
valid programs in examples/ and test/Frontend/, and random text.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phobos.dialect import make_context
from phobos.frontend import CompileError, compile_to_tile_ir

ROOT = Path(__file__).resolve().parents[2]
SEEDS = sorted(ROOT.glob("examples/*.ph")) + sorted(
    p for p in (ROOT / "test" / "Frontend").glob("*.ph") if "not phobos" not in p.read_text()
)
SEED_TEXTS = [p.read_text() for p in SEEDS]

# Lexemes the language knows, plus a few it does not.
VOCABULARY = [
    "kernel",
    "let",
    "var",
    "if",
    "else",
    "for",
    "in",
    "while",
    "true",
    "false",
    "range",
    "ctx",
    "block",
    "grid",
    "x",
    "y",
    "z",
    "tensor",
    "tile",
    "f16",
    "bf16",
    "f32",
    "f64",
    "i8",
    "i32",
    "i64",
    "bool",
    "dot",
    "dot_t",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "abs",
    "tmax",
    "tmin",
    "where",
    "sum",
    "rowsum",
    "rowmax",
    "transpose",
    "cumsum",
    "tril",
    "barrier",
    "grid_barrier",
    "program_id",
    "padded",
    "inf",
    "@autotune",
    "@launch",
    "@aligned",
    "@pipeline",
    "@tensorcore",
    "@persistent",
    "@foo",
    "A",
    "B",
    "M",
    "N",
    "K",
    "TM",
    "TN",
    "a",
    "acc",
    "i",
    "n",
    "0",
    "1",
    "2",
    "3",
    "4",
    "16",
    "32",
    "128",
    "256",
    "1024",
    "0.0",
    "1.5",
    "2e3",
    "99999999999999999999",
    "12ab",
    ":+",
    "+=",
    "-=",
    "*=",
    "==",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    ">",
    "!",
    "=",
    ":",
    ",",
    ";",
    ".",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\n",
    "\n",
    "\n",
    "//",
    "$",
    "\t",
]

ALARM_SECONDS = 10


def _alarm(signum, frame):
    raise TimeoutError(f"the front end took more than {ALARM_SECONDS} s")


class _Alarm:
    """Fails a run that takes longer than ALARM_SECONDS (a hang)."""

    def __enter__(self):
        self.previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(ALARM_SECONDS)

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.previous)


def compile_must_not_crash(source: str) -> None:
    try:
        with _Alarm():
            compile_to_tile_ir(source, "fuzz.ph", context=make_context())
    except CompileError as e:
        report = str(e)
        assert e.diagnostics, "a CompileError without diagnostics"
        for _filename, line, col, severity, message in e.diagnostics:
            assert severity in ("error", "warning", "note")  # warnings made before the error come along
            assert isinstance(line, int) and isinstance(col, int) and line >= 0 and col >= 0
            assert "internal compiler error" not in message, f"the front end built invalid IR:\n{report}\n{source}"
        assert any(d[3] == "error" for d in e.diagnostics), report
        assert re.search(r"^fuzz\.ph:\d+:\d+: error: ", report, re.MULTILINE), report


def _lexemes(text: str) -> list:
    """Tokens and the whitespace between them, so a mutation keeps the layout."""
    return re.findall(
        r"\s+|//[^\n]*|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|:\+|[+\-*]=|[=!<>]=|&&|\|\||.", text
    )


def _kind(lexeme: str) -> str:
    if lexeme[0].isalpha() or lexeme[0] == "_":
        return "name"
    if lexeme[0].isdigit():
        return "number"
    return "punctuation"


@st.composite
def mutated_programs(draw):
    lexemes = _lexemes(draw(st.sampled_from(SEED_TEXTS)))
    for _ in range(draw(st.integers(1, 4))):
        positions = [i for i, lx in enumerate(lexemes) if not lx.isspace() and not lx.startswith("//")]
        if not positions:
            break
        i = draw(st.sampled_from(positions))
        kind = draw(
            st.sampled_from(
                ["delete", "duplicate", "replace", "insert", "swap", "number", "similar", "similar", "similar"]
            )
        )
        if kind == "delete":
            del lexemes[i]
        elif kind == "duplicate":
            lexemes.insert(i, lexemes[i])
        elif kind == "replace":
            lexemes[i] = draw(st.sampled_from(VOCABULARY))
        elif kind == "insert":
            lexemes[i:i] = [draw(st.sampled_from(VOCABULARY)), " "]
        elif kind == "swap":
            j = draw(st.sampled_from(positions))
            lexemes[i], lexemes[j] = lexemes[j], lexemes[i]
        elif kind == "similar":
            # Same kind of lexeme (name, number, operator): usually still parses.
            same = [lx for lx in lexemes if _kind(lx) == _kind(lexemes[i])]
            lexemes[i] = draw(st.sampled_from(same + [lx for lx in VOCABULARY if _kind(lx) == _kind(lexemes[i])]))
        elif kind == "number" and lexemes[i][0].isdigit():
            lexemes[i] = str(draw(st.sampled_from([0, 1, 2, 3, 7, 48, 64, 4096, 2**31, 2**63 - 1])))
    return "".join(lexemes)


# Random programs from the grammar: mostly well formed, often ill typed, so
# they reach the checker and (when they type) the lowering and the verifiers.
LEAVES = [
    "t",
    "u",
    "h",
    "s",
    "n",
    "r",
    "0",
    "1",
    "2",
    "2.5",
    "-inf",
    "true",
    "acc",
    "A[r * 16 :+ 16, 0 :+ 64]",
    "padded(A[r, 0 :+ 64], -inf)",
    "A[r, 0 :+ 64]",
    "A[r, 3]",
    "A[0 :+ 16, 0 :+ 16]",
    "H[0 :+ 64, 0 :+ 16]",
    "V[r :+ 64]",
    "ctx.block.y",
    "ctx.grid.x",
    "program_id(2)",
    "TM",
    "N",
]
UNARY_CALLS = [
    "exp",
    "log",
    "sqrt",
    "tanh",
    "abs",
    "sum",
    "rowsum",
    "rowmax",
    "transpose",
    "cumsum",
    "tril",
    "f16",
    "bf16",
    "f32",
    "i32",
    "-",
    "!",
]
BINARY_CALLS = ["dot", "dot_t", "tmax", "tmin", "sum", "padded"]
BINARY_OPS = ["+", "-", "*", "/", "%", "<", ">=", "==", "!=", "&&", "||"]


def _expressions():
    def extend(inner):
        unary = st.tuples(st.sampled_from(UNARY_CALLS), inner).map(
            lambda p: f"{p[0]}{p[1]}" if p[0] in "-!" else f"{p[0]}({p[1]})"
        )
        binary = st.tuples(inner, st.sampled_from(BINARY_OPS), inner).map(lambda p: f"({p[0]} {p[1]} {p[2]})")
        call2 = st.tuples(st.sampled_from(BINARY_CALLS), inner, inner).map(lambda p: f"{p[0]}({p[1]}, {p[2]})")
        where = st.tuples(inner, inner, inner).map(lambda p: f"where({p[0]}, {p[1]}, {p[2]})")
        return st.one_of(unary, binary, call2, where)

    return st.recursive(st.sampled_from(LEAVES), extend, max_leaves=6)


def _statements(depth: int):
    expr = _expressions()
    simple = st.one_of(
        expr.map(lambda e: f"let v = {e}"),
        expr.map(lambda e: f"var w = {e}"),
        expr.map(lambda e: f"acc = {e}"),
        expr.map(lambda e: f"acc += {e}"),
        expr.map(lambda e: f"s = {e}"),
        expr.map(lambda e: f"B[r * 16 :+ 16, 0 :+ 64] = {e}"),
        expr.map(lambda e: f"B[r, 0] += {e}"),
        st.just("barrier()"),
    )
    if depth == 0:
        return simple
    block = st.lists(_statements(depth - 1), max_size=3).map(lambda ss: "{\n" + "\n".join(ss) + "\n}")
    return st.one_of(
        simple,
        st.tuples(expr, block).map(lambda p: f"for k in range(0, {p[0]}) {p[1]}"),
        st.tuples(expr, block, block).map(lambda p: f"if {p[0]} {p[1]} else {p[2]}"),
        st.tuples(expr, block).map(lambda p: f"while {p[0]} {p[1]}"),
    )


random_programs = st.lists(_statements(2), min_size=1, max_size=6).map(
    lambda ss: (
        "@autotune(TM in [16, 64])\n@launch(128)\n"
        "kernel k(A: tensor<f32>[M, 64], B: tensor<f32>[M, 64], H: tensor<f16>[64, N], V: tensor<f32>[N],"
        " n: i32, s0: f32) {\n"
        "  let r = ctx.block.x\n  let t = A[r * 16 :+ 16, 0 :+ 64]\n  let u = rowsum(t)\n"
        "  let h = H[0 :+ 16, 0 :+ 64]\n  var s = s0\n  var acc: tile<f32>[16, 64] = 0.0\n" + "\n".join(ss) + "\n}\n"
    )
)


# Well-typed random programs (generated by type): every one must compile to
# verified IR, which exercises the lowering of each construct in combination.
def _typed_expressions():
    def leaf(*xs):
        return st.sampled_from(xs)

    base = {
        "F": leaf(
            "t",
            "acc",
            "A[r * 16 :+ 16, 0 :+ 64]",
            "A[ctx.block.y * 16 : ctx.block.y * 16 + 16, :]",
            "padded(A[r * 16 :+ 16, 0 :+ 64], -inf)",
        ),
        "C": leaf("u", "A[0 :+ 16, 0 :+ 1]"),
        "Q": leaf("A[0 :+ 16, 0 :+ 16]"),
        "H": leaf("h", "H[0 :+ 16, 0 :+ 64]"),
        "R": leaf("A[r, 0 :+ 64]", "V[r :+ 64]", "padded(V[r :+ 64], 0.5)"),
        "S": leaf("s", "2.5", "s0", "A[r, 3]"),
        "I": leaf("r", "ctx.block.y", "ctx.grid.x", "program_id(2)", "TM", "N", "3"),
        "N": leaf("n", "i32(r)"),
        "B": leaf("true", "false"),
    }

    def grow(kind, inner):
        F, C, Q, H, R, S, Ix, N, B = (inner[k] for k in "FCQHRSINB")
        ops = {
            "F": [
                st.tuples(F, st.sampled_from("+-*/%"), st.one_of(F, S, C, R)).map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
                st.tuples(S, F).map(lambda p: f"({p[0]} * {p[1]})"),
                F.map(lambda e: f"-{e}"),
                F.map(lambda e: f"exp({e})"),
                F.map(lambda e: f"abs({e})"),
                F.map(lambda e: f"cumsum({e})"),
                H.map(lambda e: f"f32({e})"),
                st.tuples(F, st.one_of(F, S)).map(lambda p: f"tmax({p[0]}, {p[1]})"),
                st.tuples(F, F, F).map(lambda p: f"where({p[0]} > {p[1]}, {p[2]}, 0.0)"),
                st.tuples(Q, F).map(lambda p: f"dot({p[0]}, {p[1]})"),
            ],
            "C": [
                F.map(lambda e: f"rowsum({e})"),
                F.map(lambda e: f"rowmax({e})"),
                st.tuples(C, S).map(lambda p: f"({p[0]} * {p[1]})"),
            ],
            "Q": [
                Q.map(lambda e: f"tril({e})"),
                Q.map(lambda e: f"transpose({e})"),
                st.tuples(F, F).map(lambda p: f"dot_t({p[0]}, {p[1]})"),
                F.map(lambda e: f"dot({e}, transpose({e}))"),
            ],
            "H": [F.map(lambda e: f"f16({e})"), st.tuples(H, H).map(lambda p: f"({p[0]} + {p[1]})")],
            "R": [st.tuples(R, R).map(lambda p: f"({p[0]} - {p[1]})"), R.map(lambda e: f"sqrt(abs({e}))")],
            "S": [
                F.map(lambda e: f"sum({e})"),
                st.tuples(S, st.sampled_from("+-*"), S).map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
                Ix.map(lambda e: f"f32({e})"),
                st.tuples(S, S).map(lambda p: f"tmin({p[0]}, {p[1]})"),
            ],
            "I": [
                st.tuples(Ix, st.sampled_from("+*"), Ix).map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
                Ix.map(lambda e: f"({e} % 7)"),
            ],
            "N": [st.tuples(N, N).map(lambda p: f"({p[0]} - {p[1]})"), S.map(lambda e: f"i32({e})")],
            "B": [
                st.tuples(S, S).map(lambda p: f"{p[0]} < {p[1]}"),
                st.tuples(Ix, Ix).map(lambda p: f"{p[0]} == {p[1]}"),
                st.tuples(N, N).map(lambda p: f"{p[0]} >= {p[1]}"),
                B.map(lambda e: f"!({e})"),
                st.tuples(B, B).map(lambda p: f"({p[0]} && {p[1]})"),
            ],
        }
        return st.one_of(inner[kind], *ops[kind])

    # Two levels of growth over the leaves keeps expressions small.
    level = base
    for _ in range(2):
        level = {k: grow(k, level) for k in base}
    return level


TYPED = _typed_expressions()


def _typed_statements(depth: int):
    E = TYPED
    simple = st.one_of(
        st.sampled_from("FCQHRSINB").flatmap(lambda k: E[k]).map(lambda e: f"let v = {e}"),
        E["F"].map(lambda e: f"acc = {e}"),
        E["F"].map(lambda e: f"acc += {e}"),
        st.tuples(E["Q"], E["F"]).map(lambda p: f"acc += dot({p[0]}, {p[1]})"),
        E["S"].map(lambda e: f"s = {e}"),
        E["I"].map(lambda e: f"j = {e}"),
        E["F"].map(lambda e: f"B[r * 16 :+ 16, 0 :+ 64] = {e}"),
        E["R"].map(lambda e: f"B[r, 0 :+ 64] += {e}"),
        E["S"].map(lambda e: f"B[r, 1] = {e}"),
        st.just("barrier()"),
    )
    if depth == 0:
        return simple
    block = st.lists(_typed_statements(depth - 1), max_size=3).map(lambda ss: "{\n" + "\n".join(ss) + "\n}")
    return st.one_of(
        simple,
        st.tuples(st.one_of(E["I"], E["N"]), block).map(lambda p: f"for k in range(0, {p[0]}, 2) {p[1]}"),
        st.tuples(E["B"], block, block).map(lambda p: f"if {p[0]} {p[1]} else {p[2]}"),
        st.tuples(E["B"], block).map(lambda p: f"if {p[0]} {p[1]}"),
        st.tuples(E["B"], block).map(lambda p: f"while {p[0]} {p[1]}"),
    )


def _number_lets(text: str) -> str:
    """Gives each `let v` its own name (a name is declared once per scope)."""
    counter = iter(range(1 << 30))
    return re.sub(r"\blet v\b", lambda m: f"let v{next(counter)}", text)


typed_programs = st.lists(_typed_statements(2), min_size=1, max_size=5).map(
    lambda ss: _number_lets(
        "@autotune(TM in [16, 64])\n@aligned(M = TM)\n"
        "kernel k(A: tensor<f32>[M, 64], B: tensor<f32>[M, 64], H: tensor<f16>[64, N], V: tensor<f32>[N],"
        " n: i32, s0: f32) {\n"
        "  let r = ctx.block.x\n  let t = A[r * 16 :+ 16, 0 :+ 64]\n  let u = rowsum(t)\n"
        "  let h = H[0 :+ 16, 0 :+ 64]\n  var s = s0\n  var j = r\n  var acc: tile<f32>[16, 64] = 0.0\n"
        + "\n".join(ss)
        + "\n  B[0 :+ 16, 0 :+ 64] = acc + s\n}\n"
    )
)

token_streams = st.lists(st.sampled_from(VOCABULARY), max_size=60).map(" ".join)

# A kernel header in front of random tokens reaches the checker more often.
bodies = st.lists(st.sampled_from(VOCABULARY), max_size=40).map(
    lambda toks: (
        "@autotune(TM in [32])\nkernel k(A: tensor<f32>[M, N], B: tensor<f16>[TM, 64], n: i32, x: f32) {\n"
        + " ".join(toks)
        + "\n}\n"
    )
)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_seeds_compile():
    """The seeds themselves are valid programs (else the mutations test less)."""
    assert len(SEEDS) >= 10
    for path, text in zip(SEEDS, SEED_TEXTS):
        compile_to_tile_ir(text, str(path))


@FUZZ
@given(token_streams)
def test_random_token_streams(source):
    compile_must_not_crash(source)


@FUZZ
@given(bodies)
def test_random_kernel_bodies(source):
    compile_must_not_crash(source)


@settings(FUZZ, max_examples=300)
@given(mutated_programs())
def test_mutated_valid_programs(source):
    compile_must_not_crash(source)


@settings(FUZZ, max_examples=250)
@given(random_programs)
def test_random_programs(source):
    compile_must_not_crash(source)


@settings(FUZZ, max_examples=200)
@given(typed_programs)
def test_well_typed_programs_compile(source):
    try:
        with _Alarm():
            compile_to_tile_ir(source, "typed.ph", context=make_context())
    except CompileError as e:
        pytest.fail(f"a well-typed program was rejected:\n{e}\n{source}")


@FUZZ
@given(st.text(max_size=200))
def test_random_text(source):
    compile_must_not_crash(source)


@pytest.mark.parametrize("depth", [10, 31, 33, 200, 5000])
def test_deep_nesting_is_an_error_not_a_crash(depth):
    for source in (
        "kernel k(x: f32) {\n  let a = " + "(" * depth + "x" + ")" * depth + "\n}\n",
        "kernel k(x: f32) {\n  let a = " + "-" * depth + "x\n}\n",
        "kernel k(x: f32) {\n  let a = x" + " + x" * depth + "\n}\n",
        "kernel k(x: f32) {\n" + "if true {\n" * depth + "}\n" * depth + "}\n",
        "kernel k(x: f32) {\n  let a = exp(" * 1 + "exp(" * depth + "x" + ")" * (depth + 1) + "\n}\n",
    ):
        compile_must_not_crash(source)
