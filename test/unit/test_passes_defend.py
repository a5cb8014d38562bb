"""Every Phobos pass, run on its own, answers ill-formed but parseable input
with a located error: exit code 1, an `error:` at a source position, and no
traceback or `internal error`.

The inputs break one thing each: a kernel or argument attribute of the wrong
type or length, a fact a pass records (in_bounds, vector_width, tile.layout),
a shape the verifier refuses, or a function the passes cannot treat as a
kernel. Each runs through phobos-opt in-process, once per pass, without
tile-verify in front of it.
"""

from __future__ import annotations

import re

import pytest

from phobos.opt.driver import main

X = 'tile.name = "X", tile.dims = ["M", "N"]'
Y = 'tile.name = "Y", tile.dims = ["M", "N"]'
T2 = "memref<?x?xf32>"

_COPY = f"""
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) {{LOAD}} : ({T2}, index, index) -> tensor<32x128xf32>
  "tile.store_slice"(%x, %Y, %c0, %c0) : (tensor<32x128xf32>, {T2}, index, index) -> ()
"""


def kernel(attrs: str = "", x: str = X, x_type: str = T2, body: str | None = None, load: str = "") -> str:
    """A copy kernel X -> Y with one part replaced."""
    fn_attrs = "tile.kernel" + (f", {attrs}" if attrs else "")
    text = body if body is not None else _COPY.replace("{LOAD}", load)
    return f"func.func @k(%X: {x_type} {{{x}}}, %Y: {T2} {{{Y}}}) attributes {{{fn_attrs}}} {{\n{text}\n  return\n}}\n"


def hinted(hint: str) -> str:
    body = f"""
  %r = "tile.range"() {{start = 0 : i64, end = 128 : i64}} : () -> tensor<128xi32>
  %h = "tile.hint"(%r) {{{hint}}} : (tensor<128xi32>) -> tensor<128xi32>
  %o = arith.index_cast %h : tensor<128xi32> to tensor<128xindex>
  %x = "tile.load"(%X, %o) {{operandSegmentSizes = array<i32: 1, 1, 0>}} : ({T2}, tensor<128xindex>) -> tensor<128xf32>
"""
    return kernel(body=body)


def scalar(attrs: str) -> str:
    return f'func.func @k(%X: i32 {{tile.name = "X", {attrs}}}) attributes {{tile.kernel}} {{\n  return\n}}\n'


HOSTILE = {
    # kernel attributes
    "launch-string": kernel('tile.launch = {threads = "x"}'),
    "launch-not-dict": kernel("tile.launch = 256 : i64"),
    "launch-float": kernel("tile.launch = {threads = 1.5 : f32}"),
    "launch-threads-33": kernel("tile.launch = {threads = 33 : i64}"),
    "aligned-float": kernel("tile.aligned = {M = 1.5 : f32}"),
    "aligned-array": kernel("tile.aligned = [32]"),
    "aligned-string": kernel('tile.aligned = {M = "32"}'),
    "bindings-string": kernel('tile.bindings = {TM = "a"}'),
    "autotune-int": kernel("tile.autotune = {TM = 32 : i64}"),
    "autotune-array-attr": kernel("tile.autotune = {TM = [32, 64]}"),
    "autotune-not-dict": kernel("tile.autotune = [1]"),
    "flag-not-unit": kernel("tile.pipeline = 3 : i64"),
    "layout-string": kernel('tile.layout = "x"'),
    "layout-int": kernel("tile.layout = 3 : i64"),
    # argument attributes
    "dims-ints": kernel(x='tile.name = "X", tile.dims = [1, 2]'),
    "dims-string": kernel(x='tile.name = "X", tile.dims = "MN"'),
    "dims-short": kernel(x='tile.name = "X", tile.dims = ["M"]'),
    "name-int": kernel(x='tile.name = 3 : i64, tile.dims = ["M", "N"]'),
    "divisibility-length": kernel(x=f"{X}, tile.divisibility = array<i64: 16>"),
    "divisibility-array-attr": kernel(x=f"{X}, tile.divisibility = [16, 16]"),
    "divisibility-not-pow2": kernel(x=f"{X}, tile.divisibility = array<i64: 16, 3>"),
    "scalar-divisibility-length": scalar("tile.divisibility = array<i64: 4, 4>"),
    "scalar-divisibility-float": scalar("tile.divisibility = 4.0 : f32"),
    "stride-divisibility-length": kernel(x=f"{X}, tile.stride_divisibility = array<i64: 16, 16>"),
    "ptr-align-string": kernel(x=f'{X}, tile.ptr_align = "a"'),
    "ptr-align-not-pow2": kernel(x=f"{X}, tile.ptr_align = 12 : i64"),
    "ptr-align-float": kernel(x=f"{X}, tile.ptr_align = 1.5 : f32"),
    # facts recorded by passes
    "in-bounds-length": kernel(load="{in_bounds = array<i1: true>}"),
    "in-bounds-array-attr": kernel(load="{in_bounds = [true, true]}"),
    "vector-width-string": kernel(load='{vector_width = "4"}'),
    "vector-width-not-pow2": kernel(load="{vector_width = 3 : i64}"),
    "vector-width-zero": kernel(load="{vector_width = 0 : i64}"),
    # hints
    "hint-array-attr": hinted("divisibility = [16]"),
    "hint-length": hinted("contiguity = array<i64: 128, 1>"),
    # shapes the verifier refuses
    "slice-few-starts": kernel(
        body=f"""
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0) : ({T2}, index) -> tensor<32x128xf32>
"""
    ),
    "slice-dynamic-tile": kernel(
        body=f"""
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) : ({T2}, index, index) -> tensor<?x128xf32>
"""
    ),
    "dot-shapes": kernel(
        body=f"""
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%X, %c0, %c0) : ({T2}, index, index) -> tensor<32x16xf32>
  %d = "tile.dot"(%a, %a, %a) : (tensor<32x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
"""
    ),
    "offsets-float": kernel(
        body=f"""
  %o = arith.constant dense<0.0> : tensor<128xf32>
  %x = "tile.load"(%X, %o) {{operandSegmentSizes = array<i32: 1, 1, 0>}} : ({T2}, tensor<128xf32>) -> tensor<128xf32>
"""
    ),
    # parameters and functions
    "memref-rank-0": kernel(x='tile.name = "X", tile.dims = []', x_type="memref<f32>", body=""),
    "memref-complex": kernel(x_type="memref<?x?xcomplex<f32>>", body=""),
    "memref-not-strided": kernel(x_type="memref<?x?xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>>", body=""),
    "memref-shared-memory": kernel(x_type="memref<?x?xf32, 3>", body=""),
    "memref-column-major": kernel(x_type="memref<?x?xf32, strided<[1, ?]>>", body=""),
    "tensor-parameter": kernel(x='tile.name = "X"', x_type="tensor<4xf32>", body=""),
    "declaration": 'func.func private @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) '
    "attributes {tile.kernel}\n",
    "results": 'func.func @k(%X: i32 {tile.name = "X"}) -> i32 attributes {tile.kernel} {\n  return %X : i32\n}\n',
    "not-func": "llvm.func @k() attributes {tile.kernel} {\n  llvm.return\n}\n",
}

PASSES = [
    "tile-verify",
    "tile-specialize{key=X=a16.e16x16.s16}",
    "tile-elide-masks",
    "tile-assign-layout",
    "tile-plan-dots",
    "tile-pipeline",
    "tile-allocate-shared",
    "tile-insert-barriers",
    "tile-lower-to-gpu",
    "tile-test-print-axis-info",
]

_LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("pass_", PASSES)
def test_pass_alone_gives_a_located_error(name, pass_, tmp_path, capfd, monkeypatch):
    # In-process: what is tested is the passes, not the crash containment around them.
    monkeypatch.setenv("PHOBOS_CONTAINMENT", "off")
    path = tmp_path / f"{name}.mlir"
    path.write_text(HOSTILE[name])
    code = main([str(path), f"--pass-pipeline=builtin.module({pass_})"])
    err = capfd.readouterr().err
    assert code == 1, err
    assert _LOCATED.search(err), err
    assert "internal error" not in err and "Traceback" not in err, err


def plain(x_attrs: str, x_type: str = T2) -> str:
    """A function that is not a kernel, reading X: the analyses still see it."""
    return (
        f"func.func @f(%X: {x_type} {{{x_attrs}}}) {{\n"
        "  %c0 = arith.constant 0 : index\n"
        f'  %x = "tile.load_slice"(%X, %c0, %c0) : ({x_type}, index, index) -> tensor<32x128xf32>\n'
        "  return\n}\n"
    )


# Not kernels, so no kernel rule applies: the passes analyse them or leave them alone.
PLAIN = {
    "name-int": plain("tile.name = 3 : i64"),
    "dims-ints": plain("tile.dims = [1, 2]"),
    "divisibility-array-attr": plain("tile.divisibility = [16, 16]"),
    "ptr-align-string": plain('tile.ptr_align = "a"'),
    "not-strided": plain('tile.name = "X"', "memref<?x?xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>>"),
}


@pytest.mark.parametrize("name", sorted(PLAIN))
@pytest.mark.parametrize("pass_", PASSES)
def test_pass_on_a_plain_function_raises_nothing(name, pass_, tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("PHOBOS_CONTAINMENT", "off")
    path = tmp_path / f"{name}.mlir"
    path.write_text(PLAIN[name])
    code = main([str(path), f"--pass-pipeline=builtin.module({pass_})"])
    err = capfd.readouterr().err
    assert code == 0, err
    assert "internal error" not in err and "Traceback" not in err, err
