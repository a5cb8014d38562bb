"""phobos explain, tile-explain and @assert_coalesced (tile-check-coalesced).

These tests pin the compiler's decisions as the report states them: a change
in what tile-elide-masks, tile-assign-layout or the lowering decide for these
kernels makes them fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from phobos.cli.driver import main as phobos_main
from phobos.compiler import compile_stages
from phobos.compiler.explain import explain_source, render_text
from phobos.frontend import CompileError
from phobos.opt.driver import main as opt_main

ROOT = Path(__file__).resolve().parents[2]
SCALE = str(ROOT / "examples" / "scale.ph")
COLWALK = str(ROOT / "bench" / "kernels" / "colwalk.ph")
KEY16 = "X=a16.e16x16.s16;Y=a16.e16x16.s16"
_LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


def only(reports):
    assert len(reports) == 1
    return reports[0]


# ----------------------------------------------------------------------------- widths


def test_key_a16_gives_16_byte_vectors():
    r = only(explain_source(SCALE, key=KEY16))
    assert [a.vector_width for a in r.accesses] == [4, 4]
    for a in r.accesses:
        assert a.vector_bytes == 16 and a.limits == [] and not a.narrow
    assert "4 elements (16 bytes) per access" in render_text([r])


def test_without_key_the_missing_facts_are_named():
    r = only(explain_source(SCALE))
    load, store = r.accesses
    assert (load.kind, load.tensor, store.kind, store.tensor) == ("load", "X", "store", "Y")
    for a in r.accesses:
        assert a.vector_width == 4  # realigned rows: 16-byte vectors on the aligned middle of each row
        kinds = {x.kind for x in a.limits}
        assert kinds == {"base", "stride"}, a.limits
        facts = {x.fact for x in a.limits}
        assert facts == {"alignment of the base", "the row stride"}
    text = render_text([r])
    assert "missing (alignment of the base): the base of 'X' is not known to be 16-byte aligned" in text
    assert "missing (the row stride): the stride of dimension 0 of 'X'" in text


def test_only_the_base_missing():
    r = only(explain_source(SCALE, key="X=a1.e16x16.s16;Y=a16.e16x16.s16"))
    x, y = r.accesses
    assert [lim.kind for lim in x.limits] == ["base"] and x.vector_width == 1
    # the layout holds 4 elements per thread (Y's store proved 4), the load of X issues single elements
    assert y.vector_width == 4 and y.limits == []


def test_report_agrees_with_the_lowered_code():
    gpu = compile_stages(SCALE, key=KEY16, until="gpu")["gpu"]
    assert "vector<4xf32>" in gpu
    generic = compile_stages(SCALE, until="gpu")["gpu"]
    # The generic variant's pitches are not known to be aligned: its rows are realigned, as the report says.
    assert "vector<4xf32>" in generic
    for a in only(explain_source(SCALE)).accesses:
        assert a.vector_width == 4 and any(n.startswith("realigned rows (tile-realign-rows)") for n in a.notes)
    for a in only(explain_source(SCALE, key=KEY16)).accesses:
        assert not any("realigned" in n for n in a.notes)


def test_locations_are_the_source_positions():
    r = only(explain_source(SCALE))
    text = Path(SCALE).read_text().splitlines()
    for a in r.accesses:
        assert a.filename == SCALE and a.location == f"{SCALE}:{a.line}:{a.col}"
        assert a.tensor in text[a.line - 1]
    assert r.location.startswith(f"{SCALE}:")


# ----------------------------------------------------------------------------- masks


def test_masks_dropped_by_aligned():
    r = only(explain_source(SCALE))
    for a in r.accesses:
        assert a.mask.state == "dropped"
        assert [m.by for m in a.mask.dims] == [["@aligned(M = 32)"], ["@aligned(N = 128)"]]


SAXPY = """@autotune(BLOCK in [1024])
kernel saxpy(X: tensor<f32>[N], Y: tensor<f32>[N], a: f32) {
  let start = ctx.block.x * BLOCK
  Y[start :+ BLOCK] += a * X[start :+ BLOCK]
}
"""


def test_mask_kept_and_why(tmp_path):
    path = tmp_path / "saxpy.ph"
    path.write_text(SAXPY)
    r = only(explain_source(str(path)))
    for a in r.accesses:
        assert a.mask.state == "kept"
        assert "the extent 'N' is not known to be a multiple of 1024" in a.mask.dims[0].why
        assert "extent" in {x.kind for x in a.limits}


def test_mask_dropped_by_the_key(tmp_path):
    path = tmp_path / "k.ph"
    path.write_text(
        "kernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  let s = ctx.block.x * 16\n  Y[s :+ 16] = X[s :+ 16]\n}\n"
    )
    generic = only(explain_source(str(path)))
    assert all(a.mask.state == "kept" for a in generic.accesses)
    keyed = only(explain_source(str(path), key="X=a16.e16.s;Y=a16.e16.s"))
    for a in keyed.accesses:
        assert a.mask.state == "dropped"
        assert a.mask.dims[0].by == [
            "the specialisation key ('X' extent 0 a multiple of 16)",
            "the specialisation key ('Y' extent 0 a multiple of 16)",
        ]
        assert a.vector_width == 4


def test_mask_dropped_by_a_literal_extent(tmp_path):
    path = tmp_path / "k.ph"
    path.write_text(
        "kernel k(X: tensor<f32>[M, 128], Y: tensor<f32>[M, 128]) {\n"
        "  let r = ctx.block.x * 8\n"
        "  Y[r :+ 8, :] = X[r :+ 8, :]\n"
        "}\n"
    )
    r = only(explain_source(str(path)))
    for a in r.accesses:
        assert a.mask.state == "partial"
        assert not a.mask.dims[0].dropped and "'M'" in a.mask.dims[0].why
        assert a.mask.dims[1].dropped and a.mask.dims[1].by == ["the constant start 0 inside the literal extent 128"]


# ----------------------------------------------------------------------------- lanes and lines


def test_contiguous_lanes_and_lines():
    r = only(explain_source(SCALE, key=KEY16))
    for a in r.accesses:
        assert not a.lanes.strided and a.lanes.dim == 1 and a.lanes.stride == 1
        assert a.lanes.lane_step == 4
        assert (a.lines.touched, a.lines.ideal, a.lines.bytes) == (4, 4, 512)


def test_column_walk_is_strided():
    r = only(explain_source(COLWALK))
    for a in r.accesses:
        assert a.lanes.strided and a.lanes.dim == 0 and a.lanes.stride is None
        assert "stride of dimension 0" in a.lanes.stride_text and "(N elements" in a.lanes.stride_text
        assert (a.lines.touched, a.lines.ideal) == (32, 1)


def _colwalk_asserted(tmp_path) -> Path:
    path = tmp_path / "colwalk.ph"
    path.write_text("@assert_coalesced\n" + Path(COLWALK).read_text())
    return path


def test_assert_coalesced_strided_is_a_located_error(tmp_path):
    path = _colwalk_asserted(tmp_path)
    with pytest.raises(CompileError) as e:
        compile_stages(str(path), until="gpu")
    records = e.value.records
    assert len(records) == 2
    for d in records:
        assert d.filename == str(path) and d.line == 11
        assert "@assert_coalesced" in d.message
        assert "the index along dimension 0" in d.message
        assert "multiplied by the stride of dimension 0" in d.message
        assert "32 128-byte lines (ideal 1)" in d.message


def test_assert_coalesced_cli_error_no_traceback(tmp_path, capsys):
    path = _colwalk_asserted(tmp_path)
    assert phobos_main(["compile", str(path), "--emit=gpu"]) == 1
    err = capsys.readouterr().err
    assert _LOCATED.search(err) and "Traceback" not in err and "internal" not in err


def test_assert_coalesced_contiguous_compiles(tmp_path):
    path = tmp_path / "rowwalk.ph"
    path.write_text("@assert_coalesced\n" + (ROOT / "bench" / "kernels" / "rowwalk.ph").read_text())
    assert "gpu.func" in compile_stages(str(path), until="gpu")["gpu"]
    r = only(explain_source(str(path)))
    assert r.assert_coalesced and not any(a.lanes.strided for a in r.accesses)


OFFSETS_STRIDED = """func.func @cols(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]})
    attributes {tile.kernel, tile.assert_coalesced} {
  %c1 = arith.constant 1 : index
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %r = "tile.range"() {start = 0 : i64, end = 128 : i64} : () -> tensor<128xi32>
  %ni = arith.index_cast %n : index to i32
  %ns = tensor.splat %ni : tensor<128xi32>
  %o = arith.muli %r, %ns : tensor<128xi32>
  %x = "tile.load"(%X, %o) {operandSegmentSizes = array<i32: 1, 1, 0>}
      : (memref<?x?xf32>, tensor<128xi32>) -> tensor<128xf32>
  "tile.store"(%x, %X, %o) {operandSegmentSizes = array<i32: 1, 1, 1, 0>}
      : (tensor<128xf32>, memref<?x?xf32>, tensor<128xi32>) -> ()
  return
}
"""


def test_offset_form_names_the_term_and_multiplier(tmp_path):
    path = tmp_path / "cols.mlir"
    path.write_text(OFFSETS_STRIDED)
    with pytest.raises(CompileError) as e:
        compile_stages(str(path), until="gpu")
    messages = [d.message for d in e.value.records]
    assert len(messages) == 2
    for m in messages:
        assert "the lane-varying term (tile.range [0, 128) at " in m
        assert "is multiplied by N" in m


def test_offset_form_constant_multiplier(tmp_path):
    text = OFFSETS_STRIDED.replace(
        "%ns = tensor.splat %ni : tensor<128xi32>", "%ns = arith.constant dense<4> : tensor<128xi32>"
    )
    path = tmp_path / "cols4.mlir"
    path.write_text(text)
    r = only(explain_source(str(path)))
    for a in r.accesses:
        assert a.lanes.strided and a.lanes.stride == 4
        assert [(t.text, t.multiplier) for t in a.lanes.terms] == [("tile.range [0, 128)", 4)]
        assert (a.lines.touched, a.lines.ideal) == (4, 1)  # 32 lanes 16 bytes apart: 512 bytes, 128 used


# ----------------------------------------------------------------------------- hooks and data


def test_hooks_for_shared_memory_and_barriers_are_empty():
    r = only(explain_source(SCALE))
    data = r.to_json()
    assert data["shared_buffers"] == [] and data["barriers"] == []
    json.dumps(data)


# ----------------------------------------------------------------------------- the command line


def test_cli_text_and_json(capsys):
    assert phobos_main(["explain", SCALE, "--key", KEY16]) == 0
    out = capsys.readouterr().out
    assert f"{SCALE}:12:11: load of 'X'" in out and "16 bytes" in out
    assert phobos_main(["explain", SCALE, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["accesses"][0]["vector_width"] == 4  # realigned rows


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["explain", SCALE, "--kernel", "nope"], "has no kernel 'nope'"),
        (["explain", SCALE, "--key", "X=zz"], "--key"),
        (["explain", "/nonexistent.ph"], "cannot read"),
        (["explain", SCALE, "-D", "TM=7"], "not in the @autotune space"),
    ],
)
def test_cli_errors_are_not_tracebacks(argv, needle, capsys):
    assert phobos_main(argv) == 1
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and "internal compiler error" not in err


def test_cli_source_error_is_located(tmp_path, capsys):
    path = tmp_path / "bad.ph"
    path.write_text("kernel k(X: tensor<f32>[N]) {\n  Z[0 :+ 4] = 1.0\n}\n")
    assert phobos_main(["explain", str(path)]) == 1
    err = capsys.readouterr().err
    assert _LOCATED.search(err) and "Traceback" not in err


# ----------------------------------------------------------------------------- phobos-opt


def test_tile_explain_remarks_and_unchanged_ir(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("PHOBOS_CONTAINMENT", "off")
    src = ROOT / "examples" / "scale.mlir"
    assert opt_main([str(src), "--pass-pipeline=builtin.module(tile-verify)"]) == 0
    plain = capfd.readouterr().out
    assert opt_main([str(src), "--pass-pipeline=builtin.module(tile-verify,tile-explain)"]) == 0
    captured = capfd.readouterr()
    assert captured.out == plain
    assert "remark: kernel 'scale': 256 threads" in captured.err
    assert re.search(r"scale\.mlir:\d+:\d+: remark: tile\.load_slice of 'X': 4 elements \(16 bytes\)", captured.err)


@pytest.mark.parametrize("pass_", ["tile-explain", "tile-check-coalesced"])
def test_passes_alone_on_hostile_input(pass_, tmp_path, capfd, monkeypatch):
    from test_passes_defend import HOSTILE, PLAIN

    monkeypatch.setenv("PHOBOS_CONTAINMENT", "off")
    for name, text in sorted(HOSTILE.items()):
        path = tmp_path / f"{name}.mlir"
        path.write_text(text.replace("attributes {tile.kernel", "attributes {tile.assert_coalesced, tile.kernel"))
        code = opt_main([str(path), f"--pass-pipeline=builtin.module({pass_})"])
        err = capfd.readouterr().err
        assert code == 1, (name, err)
        assert _LOCATED.search(err), (name, err)
        assert "internal error" not in err and "Traceback" not in err, (name, err)
    for name, text in sorted(PLAIN.items()):
        path = tmp_path / f"{name}.mlir"
        path.write_text(text)
        code = opt_main([str(path), f"--pass-pipeline=builtin.module({pass_})"])
        err = capfd.readouterr().err
        assert code == 0, (name, err)
        assert "Traceback" not in err, (name, err)


def test_dot_operands_are_staged_not_pictured():
    r = only(explain_source(str(ROOT / "examples" / "gemm_fp32.ph")))
    a, b, c_load, c_store = r.accesses
    for staged in (a, b):
        assert staged.lanes is None and staged.lines is None
        assert any(n.startswith("staged: the dot lowering copies this tile") for n in staged.notes)
    assert c_load.lanes is not None and not c_load.lanes.strided
    # the planner's buffers and barrier decisions, as the lowering made them
    assert r.shared_memory_reported
    assert [b.name.split(" of ")[0] for b in r.shared_buffers] == ["lhs", "rhs"]
    assert r.shared_buffers[0].offset == 0 and r.shared_buffers[1].offset >= r.shared_buffers[0].bytes
    kept = [b for b in r.barriers if b.kept]
    assert len(kept) == 1 and "pipelined loop" in kept[0].location
