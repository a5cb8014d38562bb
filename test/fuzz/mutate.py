"""The seed corpus and the mutations that turn a seed into a fuzz input.

Inputs are `str`; bytes that are not UTF-8 are carried as surrogate escapes
(write them with errors="surrogateescape").
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_TEST_LINE = re.compile(r"^\s*(//|#)\s*(RUN|CHECK|REQUIRES|UNSUPPORTED|XFAIL)\S*:")
_SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Seed:
    path: str  # relative to the repository
    kind: str  # "ph", "mlir" or "py" (a file of @phobos.kernel functions)
    text: str


# The seed inputs besides every .ph and .mlir of test/: the examples, the benchmark kernels, the
# standard library (functions to splice into kernels) and the Python kernels of the decorator.
SEED_PATTERNS = (
    "examples/*.ph",
    "examples/*.mlir",
    "bench/kernels/*.ph",
    "bench/kernels/*.mlir",
    "python/phobos/frontend/stdlib/*.ph",
    "examples/python/*.py",
)


def load_corpus() -> list[Seed]:
    """The seed inputs (SEED_PATTERNS and every test input); test files are split at `// -----`."""
    paths = set()
    for pattern in SEED_PATTERNS:
        paths.update(REPO.glob(pattern))
    for suffix in ("ph", "mlir"):
        paths.update(p for p in (REPO / "test").rglob(f"*.{suffix}") if "Output" not in p.parts)
    seeds = []
    for path in sorted(paths):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        text = "\n".join(line for line in text.splitlines() if not _TEST_LINE.match(line)) + "\n"
        rel = str(path.relative_to(REPO))
        for chunk in _SPLIT.split(text):
            if chunk.strip():
                seeds.append(Seed(rel, path.suffix[1:], chunk))
    return seeds


# ----------------------------------------------------------------------------- pools

NUMBERS = [
    "0", "-1", "1", "2", "3", "7", "17", "1024", "2147483647", "2147483648", "4294967296",
    "9223372036854775807", "9223372036854775808", "18446744073709551616", "100000000000000000000000000000",
    "1e400", "-1e400", "1e-400", "0.0", "-0.0", "1.5", "0x7fffffff", "0xffffffffffffffff", "nan", "inf", "00",
]  # fmt: skip
TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index", "f8E4M3FN", "complex<f32>", "none"]
PH_TYPES = ["f16", "bf16", "f32", "f64", "i8", "u8", "i32", "u32", "i64", "bool", "i16", "u64", "f8"]
PH_WORDS = [
    "kernel", "let", "var", "for", "in", "range", "if", "else", "return", "dot", "sum", "max", "min",
    "ctx", "block", "x", "y", "z", "tensor", "tile", "true", "false", "@aligned", "@autotune", "@launch",
    "@pipeline", "where", "exp", "sqrt", "abs", "cumsum", "transpose", "broadcast", ":+", "..", "M", "N", "K",
    "fn", "import", "std.nn", "while", "break", "continue", "atomic_add", "atomic_max", "atomic_min",
    "atomic_xchg", "atomic_cas", "masked", "padded", "arange", "u8", "u32", "i8", "bool", "<<", ">>", "&", "|",
    "^", "~", "!", "&&", "||", "sem =", "scope =", '"acquire"', '"cta"', "gelu", "softmax_rows", "-> tile<f32>[R]",
    "<T>", "T", "@fastmath", "@persistent", "grid_barrier()", "barrier()", "ctx.block.y", "inf", "-inf",
]  # fmt: skip
PY_WORDS = [
    "@phobos.kernel", "@phobos.fn", "def", "return", "while", "break", "continue", "for", "in", "range", "if",
    "else:", "elif", "span", "ctx.block.x", "tensor[f32, \"N\"]", "tile[f32, 16]", "atomic_add", "masked",
    "padded", "arange", "u8", "u32", "i8", "<<", ">>", "&", "|", "^", "~", "not", "and", "or", "None", "True",
    "lambda", "yield", "global", "nonlocal", "print", "autotune=", "launch=", "aligned=", "*", "**", ":",
]  # fmt: skip
MLIR_WORDS = [
    "func.func", "tile.kernel", "%0", "%arg0", "^bb0", "scf.for", "scf.if", "scf.yield", "arith.constant",
    "memref<?x?xf32>", "tensor<32x128xf32>", "tensor<?xf32>", "tensor<0xf32>", "vector<4xf32>", "dense<0.0>",
    "array<i64: 16>", "#tile.blocked", "unit", "tile.aligned", "tile.dims", "tile.launch", "gpu.module",
    '"tile.load_slice"', '"tile.store_slice"', '"tile.block_id"', '"tile.dot"', '"tile.range"', "loc(unknown)",
    "{", "}", "(", ")", "<", ">", "[", "]", ":", "->", "=", ",", "// -----", "// expected-error {{x}}",
    '"tile.atomic_rmw"', '"tile.atomic_cas"', '"tile.hint"', '"tile.transpose"', '"tile.load"', '"tile.store"',
    "in_bounds", "operandSegmentSizes", "permutation", "divisibility", "vector_width", "padding", "tile.unsigned",
    "scf.while", "scf.condition", "func.call", "func.return", "memref<?xi8>", "tensor<16xi8>",
]  # fmt: skip
# Attribute values of every kind, for an attribute of the wrong kind (the fuzzer of issue 30 found
# casts of mistyped arrays in the structural verifier).
ATTRIBUTE_VALUES = [
    "array<i64: 1, 0>", "array<i64: 16>", "array<i64: 0>", "array<i64>", "array<i32: 1, 1>", "array<i1: true>",
    "array<i1: true, false>", "array<f32: 1.0, 0.0>", "array<f64: 4.0>", "[1, 0]", "[true]", '["M", "N"]', '"x"',
    '""', "unit", "true", "1 : i64", "-1 : i64", "0 : index", "1.5 : f32", "0xFF800000 : f32",
    "99999999999999999999999 : i128", "4294967296 : i33", "{threads = 128 : i64}", "{M = 1.5 : f32}",
    "{TM = array<i64: 32>}", "dense<1> : tensor<2xi64>", "#tile.blocked<array<i64: 1>, array<i64: 32>, "
    "array<i64: 1>, array<i64: 0>>", "@sym", "i32", "affine_map<(d0) -> (d0)>",
]  # fmt: skip
UNICODE = ["é", "α", "𝛼", "\u200b", "\u202e", "\ufeff", "１", "∞", "🔥", "e\u0301", "\r", "\t", "\x0b", "\x0c", "\x00"]
BRACKETS = [("(", ")"), ("[", "]"), ("{", "}"), ("<", ">")]
DEPTHS = [10, 100, 1000, 3000]

_TOKEN = re.compile(r"[A-Za-z_@%^#][\w.$]*|\d[\w.]*|\"[^\"\n]*\"|:\+|->|<<|>>|&&|\|\||[+\-*/&|^]=|\S")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])")
_IDENT = re.compile(r"(?<![\w%@^#])[A-Za-z_]\w*")
_TYPE = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i8|u8|i32|u32|i64|index|bool)\b")
# The start of an attribute entry in MLIR: `{permutation = ` or `, in_bounds = `.
_ATTRIBUTE = re.compile(r"(?:\{|,\s*)([A-Za-z_][\w.]*|\"[^\"\n]*\") = ")
_TENSOR_PARAM = re.compile(r"\b(\w+)\s*:\s*tensor\s*[<\[]")
_LOCAL = re.compile(r"\b(?:let|var)\s+(\w+)|^\s*(\w+)\s*=[^=]", re.MULTILINE)
_ASSIGNMENT = re.compile(r"^(\s*)([A-Za-z_]\w*\[[^\n=]*\])\s*(\+=|=)\s*([^\n]+)$", re.MULTILINE)
_BINARY = re.compile(r"(?<=\s)[+\-*](?=\s)")


# ----------------------------------------------------------------------------- mutations


def _lines(text):
    return text.split("\n")


def delete_lines(rng, text, corpus):
    lines = _lines(text)
    start = rng.randrange(len(lines))
    del lines[start : start + rng.choice([1, 1, 2, 5])]
    return "\n".join(lines)


def duplicate_lines(rng, text, corpus):
    lines = _lines(text)
    start = rng.randrange(len(lines))
    block = lines[start : start + rng.choice([1, 1, 3])]
    lines[start:start] = block * rng.choice([1, 1, 2, 50])
    return "\n".join(lines)


def swap_lines(rng, text, corpus):
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def splice(rng, text, corpus):
    """Lines of another seed of the same language, somewhere in this one."""
    other = _lines(rng.choice(corpus).text)
    start = rng.randrange(len(other))
    lines = _lines(text)
    at = rng.randrange(len(lines) + 1)
    lines[at:at] = other[start : start + rng.randint(1, 8)]
    return "\n".join(lines)


def _token_spans(text):
    return [m.span() for m in _TOKEN.finditer(text)]


def delete_token(rng, text, corpus):
    spans = _token_spans(text)
    if not spans:
        return text
    a, b = rng.choice(spans)
    return text[:a] + text[b:]


def duplicate_token(rng, text, corpus):
    spans = _token_spans(text)
    if not spans:
        return text
    a, b = rng.choice(spans)
    return text[:b] + " " + text[a:b] + text[b:]


def swap_tokens(rng, text, corpus):
    spans = _token_spans(text)
    if len(spans) < 2:
        return text
    i = rng.randrange(len(spans) - 1)
    j = i + 1 if rng.random() < 0.7 else rng.randrange(i + 1, len(spans))
    (a, b), (c, d) = spans[i], spans[j]
    return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]


def insert_word(rng, text, corpus):
    spans = _token_spans(text) or [(0, 0)]
    a, _ = rng.choice(spans)
    kind = corpus[0].kind if corpus else "mlir"
    pool = PH_WORDS if kind == "ph" else PY_WORDS if kind == "py" else MLIR_WORDS
    return text[:a] + rng.choice(pool) + " " + text[a:]


def _replace_match(rng, text, pattern, replacement):
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[: m.start()] + replacement + text[m.end() :]


def change_number(rng, text, corpus):
    return _replace_match(rng, text, _NUMBER, rng.choice(NUMBERS))


def change_type(rng, text, corpus):
    pool = PH_TYPES if corpus and corpus[0].kind != "mlir" else TYPES
    return _replace_match(rng, text, _TYPE, rng.choice(pool))


def change_identifier(rng, text, corpus):
    """One identifier becomes another of the file, or all its uses are renamed."""
    names = _IDENT.findall(text)
    if not names:
        return text
    if rng.random() < 0.5:
        old = rng.choice(names)
        return re.sub(rf"(?<![\w%@^#]){re.escape(old)}\b", rng.choice(names + ["_", "x" * 300]), text)
    return _replace_match(rng, text, _IDENT, rng.choice(names))


def deepen_nesting(rng, text, corpus):
    """A token inside thousands of brackets, or a line under many blocks."""
    depth = rng.choice(DEPTHS)
    lines = _lines(text)
    if corpus and corpus[0].kind == "ph" and rng.random() < 0.4:
        at = rng.randrange(len(lines))
        head = rng.choice(["if true {", "for i in range(0, 1, 1) {", "{"])
        lines[at:at] = [head] * depth + ["}"] * depth
        return "\n".join(lines)
    spans = _token_spans(text)
    if not spans:
        return text
    a, b = rng.choice(spans)
    if rng.random() < 0.2:
        return text[:a] + "-" * depth + text[a:]
    left, right = rng.choice(BRACKETS)
    return text[:a] + left * depth + text[a:b] + right * depth + text[b:]


def truncate(rng, text, corpus):
    return text[: rng.randrange(len(text) + 1)]


def insert_bytes(rng, text, corpus):
    """Random bytes, carried as surrogate escapes where they are not ASCII."""
    at = rng.randrange(len(text) + 1)
    raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return text[:at] + raw.decode("utf-8", errors="surrogateescape") + text[at:]


def insert_unicode(rng, text, corpus):
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(UNICODE) + text[at:]


# ----------------------------------------------------------------------------- grammar-aware mutations
# They put the constructs of the language (functions, while/break/continue/return, atomics,
# gathers and scatters with index tiles, u8/u32 and the bit operators) into a seed, spelled with
# the seed's own tensors and variables, so that most results still parse and reach the checker
# and the compiler.

PH_STATEMENTS = [
    "while {v} < {n} {{ break }}",
    "var w{k} = 0\nwhile w{k} < {n} {{\n  w{k} = w{k} + 1\n  if w{k} == 2 {{ continue }}\n}}",
    "if {v} > 0 {{ return }}",
    "return",
    "break",
    "continue",
    "for q{k} in range({n}) {{\n  if q{k} == 1 {{ break }}\n  {T}[q{k}] = {v}\n}}",
    "while true {{ return }}",
    "atomic_add({T}[{n}], {v})",
    'let old{k} = atomic_max({T}[0 :+ 16], {v}, sem = "acq_rel", scope = "cta")',
    'atomic_min({T}[ctx.block.x], {v}, scope = "sys")',
    "atomic_cas({T}[0], {v}, {v})",
    "atomic_xchg(masked({T}[arange(16)], arange(16) < {n}), {v})",
    'atomic_add(masked({T}[{U}[0 :+ 16]], {U}[0 :+ 16] >= 0), 1, sem = "{sem}")',
    "let g{k} = {T}[arange(16) * 2]",
    "let g{k} = masked({T}[arange(16) + {v}], arange(16) < {n})",
    "let g{k} = {T}[{U}[0 :+ 8], 0 :+ 16]",
    "let g{k} = padded(masked({T}[{U}[0 :+ 16]], {U}[0 :+ 16] > 0), -inf)",
    "{T}[arange(16)] = {v}",
    "masked({T}[arange(16)], arange(16) < {n}) = {v}",
    "{T}[{U}[0 :+ 16]] += {v}",
    "let b{k} = ({v} << 2) ^ ({v} & 255) | ~{v} >> 1",
    "let b{k} = {v} >> {n}",
    "let u{k}: u8 = u8({v})",
    "let u{k} = u32({v}) >> 3 & u32(7)",
    "var t{k}: tile<u8>[16] = 0",
    "let s{k} = gelu(f32({v}))",
    "let s{k} = softmax_rows(f32({T}[0 :+ 4, 0 :+ 32]))",
    "let c{k} = f{k}({v}, 2.0)",
    "grid_barrier()",
    "barrier()",
]
PH_FUNCTIONS = [
    "fn f{k}<T>(x: tile<T>[R], a: f32) -> tile<T>[R] {{\n  let y = f32(x) * a\n  return T(y)\n}}",
    "fn f{k}(x: i32, a: f32) -> i32 {{\n  var r = x\n  while r > 1 {{ r = r >> 1 }}\n  return r\n}}",
    "fn f{k}(x: tile<f32>[R, C], a: f32) -> tile<f32>[R, C] {{\n  return x * a - rowmax(x)\n}}",
    "fn f{k}<T>(x: tile<T>[C], a: f32) -> tile<T>[C] {{\n  return f{k}(x, a)\n}}",
    "fn f{k}(x: u32, a: f32) -> u32 {{\n  if a > 0.0 {{ return x }}\n  return ~x\n}}",
    "import std.nn",
    "import std.nope",
]
ATOMICS = ["atomic_add", "atomic_max", "atomic_min", "atomic_xchg"]
SEMS = ["relaxed", "acquire", "release", "acq_rel", "seq_cst", ""]
BIT_OPERATORS = ["<<", ">>", "&", "|", "^", "&&", "||", "%"]


def _names(text: str) -> dict[str, list[str]]:
    tensors = _TENSOR_PARAM.findall(text) or ["X"]
    local = [a or b for a, b in _LOCAL.findall(text)] or ["1"]
    return {"T": tensors, "U": tensors, "v": local + ["ctx.block.x", "1", "0.5"]}


def _fill(rng, template: str, text: str) -> str:
    names = _names(text)
    return template.format(
        T=rng.choice(names["T"]),
        U=rng.choice(names["U"]),
        v=rng.choice(names["v"]),
        n=rng.choice(["2", "4", "16", "0", "N"]),
        k=rng.randrange(100),
        sem=rng.choice(SEMS),
    )


def _body_lines(lines: list[str]) -> list[int]:
    """Where a statement may go: after a line that opens a block, or among a block's statements."""
    opened = [i + 1 for i, line in enumerate(lines) if line.rstrip().endswith("{")]
    return opened or list(range(len(lines) + 1))


def insert_construct(rng, text, corpus):
    """A statement of the newer language (while, atomics, gathers, bit operators, a call) in a body."""
    lines = _lines(text)
    at = rng.choice(_body_lines(lines))
    indent = re.match(r"\s*", lines[at] if at < len(lines) else "").group(0)
    block = _fill(rng, rng.choice(PH_STATEMENTS), text)
    lines[at:at] = [indent + line for line in block.split("\n")]
    return "\n".join(lines)


def add_function(rng, text, corpus):
    """A function (generic, with loops and exits) or an import before a kernel, and sometimes a call."""
    k = rng.randrange(100)
    definition = rng.choice(PH_FUNCTIONS).format(k=k)
    lines = _lines(text)
    kernels = [  # the first line of a kernel: its first attribute, else `kernel`
        i
        for i, line in enumerate(lines)
        if re.match(r"\s*(@|kernel\b)", line) and not (i and lines[i - 1].lstrip().startswith("@"))
    ]
    at = rng.choice(kernels) if kernels and rng.random() < 0.8 else rng.randrange(len(lines) + 1)
    lines[at:at] = definition.split("\n")
    text = "\n".join(lines)
    if definition.startswith("fn") and rng.random() < 0.7:
        lines = _lines(text)
        starts = [i for i, line in enumerate(lines) if re.match(r"\s*kernel\b", line)]
        bodies = [i for i in _body_lines(lines) if starts and i > starts[0]]
        at = rng.choice(bodies or _body_lines(lines))
        v = rng.choice(_names(text)["v"])
        lines[at:at] = [f"  let c{k} = f{k}({v}, {rng.choice(['2.0', '1', v])})"]
        text = "\n".join(lines)
    return text


def atomicize(rng, text, corpus):
    """An assignment to a tensor element or slice becomes an atomic (or its target `masked`)."""
    matches = list(_ASSIGNMENT.finditer(text))
    if not matches:
        return insert_construct(rng, text, corpus) if corpus and corpus[0].kind == "ph" else text
    m = rng.choice(matches)
    indent, target, _, value = m.groups()
    if rng.random() < 0.3:
        replacement = f"{indent}masked({target}, {rng.choice(['true', value + ' > 0', 'arange(16) < 3'])}) = {value}"
    elif rng.random() < 0.2:
        let = "let " if corpus and corpus[0].kind == "ph" else ""
        replacement = f"{indent}{let}old = atomic_cas({target}, {value}, {value})"
    else:
        keywords = rng.choice(["", f', sem = "{rng.choice(SEMS)}"', ', scope = "cta"', ', scope = "gpu", sem = ""'])
        replacement = f"{indent}{rng.choice(ATOMICS)}({target}, {value}{keywords})"
    return text[: m.start()] + replacement + text[m.end() :]


def gatherize(rng, text, corpus):
    """A slice `s :+ n` becomes an index tile (`arange(n) + s`, or another tensor's elements)."""
    spans = list(re.finditer(r"([^\[\],]+?)\s*:\+\s*(\w+)", text))
    spans += list(re.finditer(r"span\(([^,()]+),\s*(\w+)\)", text))  # the Python spelling of a slice
    if not spans:
        return insert_construct(rng, text, corpus) if corpus and corpus[0].kind == "ph" else text
    m = rng.choice(spans)
    start, extent = m.group(1).strip(), m.group(2)
    other = rng.choice(_names(text)["T"])
    replacement = rng.choice(
        [f"arange({extent}) + {start}", f"{other}[{start} :+ {extent}]", f"(arange({extent}) * 2 + {start})"]
    )
    return text[: m.start()] + " " + replacement + text[m.end() :]


def change_operator(rng, text, corpus):
    """An arithmetic operator becomes a bit operator, or a value is complemented."""
    comments = [m.span() for m in re.finditer(r"(//|#)[^\n]*", text)]
    matches = [m for m in _BINARY.finditer(text) if not any(a <= m.start() < b for a, b in comments)]
    if not matches:
        return text
    m = rng.choice(matches)
    if rng.random() < 0.2:
        return text[: m.end()] + " ~" + text[m.end() :]
    return text[: m.start()] + rng.choice(BIT_OPERATORS) + text[m.end() :]


def change_attribute(rng, text, corpus):
    """An MLIR attribute's value becomes one of another kind (or of another length or width)."""
    matches = list(_ATTRIBUTE.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    end, depth = m.end(), 0
    while end < len(text):
        c = text[end]
        if c in "<[({":
            depth += 1
        elif c in ">])}":
            if depth == 0:
                break
            depth -= 1
        elif c in ",\n" and depth == 0:
            break
        end += 1
    return text[: m.end()] + rng.choice(ATTRIBUTE_VALUES) + text[end:]


# The mutations of every kind of input (weights), then those of one language only.
MUTATIONS = [
    (delete_lines, 3),
    (duplicate_lines, 2),
    (swap_lines, 2),
    (splice, 2),
    (delete_token, 4),
    (duplicate_token, 2),
    (swap_tokens, 3),
    (insert_word, 3),
    (change_number, 5),
    (change_type, 3),
    (change_identifier, 3),
    (deepen_nesting, 2),
    (truncate, 1),
    (insert_bytes, 1),
    (insert_unicode, 1),
]
LANGUAGE_MUTATIONS = {
    "ph": [(insert_construct, 6), (add_function, 3), (atomicize, 3), (gatherize, 3), (change_operator, 2)],
    "py": [(atomicize, 2), (gatherize, 1), (change_operator, 2)],
    "mlir": [(change_attribute, 5)],
}


def mutate(rng: random.Random, seed: Seed, corpus: list[Seed]) -> tuple[str, list[str]]:
    """The seed after one to four mutations, with their names."""
    same_kind = [s for s in corpus if s.kind == seed.kind]
    functions, weights = zip(*(MUTATIONS + LANGUAGE_MUTATIONS.get(seed.kind, [])))
    text, applied = seed.text, []
    for _ in range(min(4, 1 + int(rng.expovariate(1.2)))):
        fn = rng.choices(functions, weights)[0]
        text = fn(rng, text, same_kind) or text
        applied.append(fn.__name__)
    return text, applied
