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
    kind: str  # "ph" or "mlir"
    text: str


def load_corpus() -> list[Seed]:
    """The examples, the benchmark kernels and every test input; test files are split at `// -----`."""
    paths = set()
    for pattern in ("examples/*.ph", "examples/*.mlir", "bench/kernels/*.ph", "bench/kernels/*.mlir"):
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
PH_WORDS = [
    "kernel", "let", "var", "for", "in", "range", "if", "else", "return", "dot", "sum", "max", "min",
    "ctx", "block", "x", "y", "z", "tensor", "tile", "true", "false", "@aligned", "@autotune", "@launch",
    "@pipeline", "where", "exp", "sqrt", "abs", "cumsum", "transpose", "broadcast", ":+", "..", "M", "N", "K",
]  # fmt: skip
MLIR_WORDS = [
    "func.func", "tile.kernel", "%0", "%arg0", "^bb0", "scf.for", "scf.if", "scf.yield", "arith.constant",
    "memref<?x?xf32>", "tensor<32x128xf32>", "tensor<?xf32>", "tensor<0xf32>", "vector<4xf32>", "dense<0.0>",
    "array<i64: 16>", "#tile.blocked", "unit", "tile.aligned", "tile.dims", "tile.launch", "gpu.module",
    '"tile.load_slice"', '"tile.store_slice"', '"tile.block_id"', '"tile.dot"', '"tile.range"', "loc(unknown)",
    "{", "}", "(", ")", "<", ">", "[", "]", ":", "->", "=", ",", "// -----", "// expected-error {{x}}",
]  # fmt: skip
UNICODE = ["é", "α", "𝛼", "\u200b", "\u202e", "\ufeff", "１", "∞", "🔥", "e\u0301", "\r", "\t", "\x0b", "\x0c", "\x00"]
BRACKETS = [("(", ")"), ("[", "]"), ("{", "}"), ("<", ">")]
DEPTHS = [10, 100, 1000, 3000]

_TOKEN = re.compile(r"[A-Za-z_@%^#][\w.$]*|\d[\w.]*|\"[^\"\n]*\"|:\+|->|\S")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])")
_IDENT = re.compile(r"(?<![\w%@^#])[A-Za-z_]\w*")
_TYPE = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i8|i32|i64|index)\b")


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
    pool = PH_WORDS if corpus and corpus[0].kind == "ph" else MLIR_WORDS
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
    return _replace_match(rng, text, _TYPE, rng.choice(TYPES))


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


def mutate(rng: random.Random, seed: Seed, corpus: list[Seed]) -> tuple[str, list[str]]:
    """The seed after one to four mutations, with their names."""
    same_kind = [s for s in corpus if s.kind == seed.kind]
    functions, weights = zip(*MUTATIONS)
    text, applied = seed.text, []
    for _ in range(min(4, 1 + int(rng.expovariate(1.2)))):
        fn = rng.choices(functions, weights)[0]
        text = fn(rng, text, same_kind) or text
        applied.append(fn.__name__)
    return text, applied
