"""phobos view's data model (python/phobos/view), without a browser.

The expected values come from the compiler's own output (the explain report,
the launch contract and its shared-memory plan, the @autotune bindings) and
from the kernels' semantics (a slice `pm * TILE_M :+ TILE_M` starts at the
block id times the tile), never from strings copied from the page.
"""

from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path

import pytest

from phobos.cli.driver import main as phobos_main
from phobos.compiler import compile_artifact
from phobos.compiler.explain import explain_source
from phobos.lowering.layout import Blocked
from phobos.view import build_model, render_page
from phobos.view import threads as T
from phobos.view.model import ViewError, default_sizes
from phobos.view.page import DATA_ID
from phobos.view.promise import drop_aligned

ROOT = Path(__file__).resolve().parents[2]
GEMM = ROOT / "bench" / "kernels" / "gemm.ph"
GEMM_ALIGNED = ROOT / "bench" / "kernels" / "gemm_aligned.ph"
SCALE = ROOT / "examples" / "scale.ph"
GEMM_FP32 = ROOT / "examples" / "gemm_fp32.ph"
COLWALK = ROOT / "bench" / "kernels" / "colwalk.ph"
KEY16 = "A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16"


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@functools.cache
def model(path: Path, key: str | None = None, dims: tuple = (), cta=None) -> dict:
    text = path.read_text()
    # key None: the generic variant, which the reports below are compiled for (the page's own
    # default, the variant a launch at the drawn sizes uses, is tested in test_view_defaults.py)
    return build_model(text, rel(path), key=key if key is not None else "", sizes=dict(dims) or None, cta=cta)


@functools.cache
def contract(path: Path, key: str | None = None, text: str | None = None) -> dict:
    return compile_artifact(text or path.read_text(), key=key, source_name=rel(path)).contract


def variant(m: dict, vid: str) -> dict:
    return next(v for v in m["variants"] if v["id"] == vid)


def picked_steps(v: dict) -> list[dict]:
    return v["ctas"][v["picked"]]["steps"]


# ----------------------------------------------------------------------------- the promise dropped


def test_drop_aligned_blanks_the_attribute_and_keeps_every_position():
    text = GEMM_ALIGNED.read_text()
    d = drop_aligned(text, "gemm_aligned.ph")
    assert d is not None and d.attribute == "@aligned(M = TILE_M, N = TILE_N, K = TILE_K)"
    assert len(d.text) == len(text) and d.text.count("\n") == text.count("\n")
    assert "@aligned(" not in d.text
    line = text.split("\n")[d.start[0] - 1]
    assert line[d.start[1] - 1 : d.end[1] - 1] == d.attribute
    # everything but the attribute is untouched
    assert [c for c, o in zip(d.text, text) if c != o] == [" "] * sum(1 for c in d.attribute if c != " ")


def test_drop_aligned_over_several_lines_and_without_a_promise():
    text = "@aligned(M = 32,\n         N = 128)\nkernel k(X: tensor<f32>[M, N]) {\n  X[0 :+ 32, 0 :+ 128] = 1.0\n}\n"
    d = drop_aligned(text, "k.ph")
    assert d is not None and d.start == (1, 1) and d.end == (2, 18) and d.text.count("\n") == text.count("\n")
    assert d.text.split("\n")[2] == text.split("\n")[2]
    assert drop_aligned(GEMM.read_text(), "gemm.ph") is None


# ----------------------------------------------------------------------------- sizes


def test_default_sizes_keep_promises_and_are_ragged_without_them():
    c = contract(GEMM_ALIGNED)
    r = explain_source(GEMM_ALIGNED.read_text(), source_name=rel(GEMM_ALIGNED))[0]
    sizes = default_sizes(c, r)
    for p in c["promises"]:
        assert sizes[p["symbol"]] % p["divisor"] == 0
    c2 = contract(GEMM)
    r2 = explain_source(GEMM.read_text(), source_name=rel(GEMM))[0]
    sizes2 = default_sizes(c2, r2)
    b = c2["bindings"]
    for symbol, tile in (("M", b["TILE_M"]), ("N", b["TILE_N"]), ("K", b["TILE_K"])):
        assert sizes2[symbol] % tile != 0 and tile < sizes2[symbol] < 2 * tile


# ----------------------------------------------------------------------------- threads


def test_layout_map_gives_every_element_the_thread_the_layout_places_there():
    r = explain_source(str(SCALE))[0]
    layout = Blocked.from_text(r.layout)
    a = r.accesses[0]
    m = T.layout_map(layout, a.tile, a.layout_dims)
    assert m["replicas"] == 1 and -1 not in m["owner"]
    rows, cols = a.tile
    for tid in (0, 1, 31, 32, 255):
        for i in layout.coordinates(0, rows, tid):
            for j in layout.coordinates(1, cols, tid):
                assert m["owner"][i * cols + j] == tid
    assert sorted(set(m["owner"])) == list(range(layout.threads))


def test_copy_map_is_the_dot_lowerings_chunk_rule():
    m = T.copy_map([128, 8], 4, 256)
    for (r, c), tid in {(0, 0): 0, (0, 4): 1, (1, 0): 2, (127, 4): 255}.items():
        assert m["owner"][r * 8 + c] == tid
    m = T.copy_map([128, 128], 4, 128)  # 4096 chunks over 128 threads: chunk q to thread q mod 128
    assert m["owner"][32 * 128 + 0] == (32 * 32) % 128 and m["owner"][0] == m["owner"][4 * 128] == 0


def test_requests_count_the_lines_explain_counts():
    for path, key in ((SCALE, None), (SCALE, "X=a16.e16x16.s16;Y=a16.e16x16.s16"), (COLWALK, None), (GEMM, None)):
        for a in explain_source(str(path), key=key)[0].accesses:
            if a.lines is None:
                continue
            req = T.request(a.lines, a.elem_bytes)
            assert len(req["lines"]) == req["touched"] == a.lines.touched
            assert sum(1 for line in req["lines"] if line["extra"]) == max(0, a.lines.touched - a.lines.ideal)
            assert [len(lane) for lane in req["lanes"]] == [a.lines.elements_per_lane] * len(req["lanes"])


# ----------------------------------------------------------------------------- the steps of a CTA


def expected_gemm_steps(sizes: dict, b: dict, cta) -> list[tuple]:
    """(kind, tensor, start) of every step of a CTA of the gemm kernels, from the kernel's text."""
    pm, pn, _ = cta
    out = []
    for kt in range(0, sizes["K"], b["TILE_K"]):
        out += [
            ("iteration", None, None),
            ("load", "A", [pm * b["TILE_M"], kt]),
            ("load", "B", [kt, pn * b["TILE_N"]]),
            ("dot", None, None),
        ]
    corner = [pm * b["TILE_M"], pn * b["TILE_N"]]
    return out + [("load", "C", corner), ("store", "C", corner)]


def masked(start, extent, shape) -> int:
    inside = math.prod(max(0, min(s + n, e) - max(s, 0)) for s, n, e in zip(start, extent, shape))
    return math.prod(extent) - inside


def test_gemm_steps_boxes_and_masks_follow_the_kernel():
    m = model(GEMM)
    v = variant(m, "written")
    b = contract(GEMM)["bindings"]
    assert v["grid"][:2] == [-(-m["sizes"]["M"] // b["TILE_M"]), -(-m["sizes"]["N"] // b["TILE_N"])]
    assert len(v["ctas"]) == math.prod(v["grid"])  # a small grid: every CTA is recorded
    shapes = {t["name"]: t["shape"] for t in v["tensors"]}
    for c in v["ctas"]:
        steps = c["steps"]
        want = expected_gemm_steps(m["sizes"], b, c["cta"])
        assert [(s["kind"], s["box"]["tensor"] if s["box"] else None) for s in steps] == [w[:2] for w in want]
        for s, (_, tensor, start) in zip(steps, want):
            if tensor is None:
                continue
            assert s["box"]["start"] == start
            assert s["box"]["masked"] == masked(start, s["box"]["extent"], shapes[tensor])
    edge = next(c for c in v["ctas"] if c["cta"] == m["cta"])
    assert m["cta"] == [g - 1 for g in v["grid"]] and any(s["box"] and s["box"]["masked"] for s in edge["steps"])


def test_step_readouts_carry_the_reports_decisions():
    m = model(GEMM)
    v = variant(m, "written")
    report = explain_source(GEMM.read_text(), source_name=rel(GEMM))[0]
    for s in picked_steps(v):
        if s["access"] is None:
            continue
        a = report.accesses[s["access"]]
        text = "\n".join(s["readout"])
        assert s["location"] == a.location and f"{a.kind} of '{a.tensor}' at {a.location}" in s["readout"][0]
        assert f"{a.vector_width} element" in text and a.mask.text in text
        for limit in a.limits:
            assert limit.fact in text


def test_iterations_name_the_loop_variable_and_the_pipeline_stage():
    m = model(GEMM)
    v = variant(m, "written")
    pipe = v["shared"]["pipeline"][0]
    iterations = [s for s in picked_steps(v) if s["kind"] == "iteration"]
    b = contract(GEMM)["bindings"]
    assert len(iterations) == -(-m["sizes"]["K"] // b["TILE_K"])
    for i, s in enumerate(iterations):
        head = s["readout"][0]
        assert f"iteration {i + 1} of {len(iterations)}" in head and f"(kt = {i * b['TILE_K']})" in head
        assert f"read stage {i % pipe['stages']}" in s["readout"][1]


# ----------------------------------------------------------------------------- shared memory and barriers


def test_the_ruler_and_barriers_are_the_contracts_plan():
    for path in (GEMM, GEMM_ALIGNED):
        v = variant(model(path), "written")
        plan = contract(path)["shared_memory"]
        assert v["shared"]["bytes"] == plan["bytes"] > 0
        assert [(b["name"], b["offset"], b["bytes"]) for b in v["shared"]["buffers"]] == [
            (b["name"], b["offset"], b["bytes"]) for b in plan["buffers"]
        ]
        assert [(b["at"], b["kept"], b["reason"]) for b in v["barriers"]] == [
            (b["at"], b["kept"], b["reason"]) for b in plan["barriers"]
        ]
        # each staged load writes its buffer's stage; the dot reads the same stage
        for s in picked_steps(v):
            for use in s["shared"]:
                buf = v["shared"]["buffers"][use["buffer"]]
                assert 0 <= use["stage"] < buf["stages"]
                if s["kind"] == "load":
                    assert buf["where"] == s["location"] and use["use"] == "write"


def test_no_shared_memory_for_elementwise_kernels():
    v = variant(model(SCALE), "written")
    assert v["shared"]["bytes"] == 0 and v["barriers"] == []
    assert all(a["mapping"] == "layout" and a["request"] for a in v["accesses"])


# ----------------------------------------------------------------------------- with and without @aligned


def test_aligned_kernel_is_shown_with_and_without_its_promise():
    m = model(GEMM_ALIGNED)
    assert [v["id"] for v in m["variants"]] == ["dropped", "written"]
    written, dropped = variant(m, "written"), variant(m, "dropped")
    assert written["promises"] and not dropped["promises"]
    text = drop_aligned(GEMM_ALIGNED.read_text(), rel(GEMM_ALIGNED)).text
    without = explain_source(text, source_name=rel(GEMM_ALIGNED))[0]
    assert [a["mask"]["state"] for a in dropped["accesses"]] == [a.mask.state for a in without.accesses]
    assert all(a["mask"]["state"] == "dropped" for a in written["accesses"])
    assert any(a["mask"]["state"] != "dropped" for a in dropped["accesses"])
    # the same sizes, the same CTA, the same boxes
    boxes = [[s["box"] for s in picked_steps(v)] for v in (written, dropped)]
    assert boxes[0] == boxes[1]


def test_sizes_that_break_the_promise_are_refused_by_the_launch_check():
    m = model(SCALE, dims=(("M", 100),))
    written, dropped = variant(m, "written"), variant(m, "dropped")
    assert written["refused"] and "M" in written["refused"] and written["ctas"] == []
    assert dropped["refused"] is None and any(s["box"]["masked"] for c in dropped["ctas"] for s in c["steps"])


def test_a_key_widens_the_vectors_in_both_variants():
    m = model(GEMM_ALIGNED, key=KEY16)
    r = explain_source(GEMM_ALIGNED.read_text(), key=KEY16, source_name=rel(GEMM_ALIGNED))[0]
    written = variant(m, "written")
    assert [a["vector_width"] for a in written["accesses"]] == [a.vector_width for a in r.accesses]
    assert written["key"] == r.key and max(a["vector_bytes"] for a in written["accesses"]) == 16


# ----------------------------------------------------------------------------- the page


def page_data(html: str) -> dict:
    m = re.search(rf'<script type="application/json" id="{DATA_ID}">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_the_page_is_self_contained_and_embeds_the_model():
    m = model(GEMM_FP32)
    html = render_page(m)
    assert page_data(html) == json.loads(json.dumps(m))
    lowered = html.lower()
    for needle in ("<link", "<script src", "@import", "url(http", "<iframe", "<img"):
        assert needle not in lowered
    assert re.findall(r"https?://[^\s\"')]+", html) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only


def test_source_text_cannot_close_the_data_script(tmp_path):
    text = SCALE.read_text().replace("// scale:", "// </script><script>alert(1)</script> scale:")
    html = render_page(build_model(text, "scale.ph"))
    assert html.count("</script>") == 2 and page_data(html)["source"][0].startswith("// </script>")


def test_kernel_without_grid_rule_needs_a_grid():
    path = ROOT / "bench" / "kernels" / "scale_gaps.ph"
    with pytest.raises(ViewError, match="--grid"):
        build_model(path.read_text(), rel(path))
    m = build_model(path.read_text(), rel(path), grid=(2, 1, 1))  # (2, 2, 1) would race: y does not pick tiles
    assert m["variants"][0]["grid"] == [2, 1, 1]


# ----------------------------------------------------------------------------- the command line


def test_cli_writes_the_page(tmp_path):
    out = tmp_path / "scale.html"
    assert phobos_main(["view", str(SCALE), "-o", str(out), "--dims", "M=64,N=256", "--cta", "1,0"]) == 0
    data = page_data(out.read_text())
    assert data["sizes"] == {"M": 64, "N": 256} and data["cta"] == [1, 0, 0]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["/nonexistent.ph"], "cannot read"),
        ([str(SCALE), "--kernel", "nope"], "has no kernel 'nope'"),
        ([str(SCALE), "--key", "X=zz"], "--key"),
        ([str(SCALE), "--dims", "M=abc"], "--dims expects"),
        ([str(SCALE), "--dims", "Q=3"], "no dimension 'Q'"),
        ([str(SCALE), "--cta", "7,7"], "outside the grid"),
        ([str(SCALE), "--cta", "x"], "--cta expects"),
        ([str(SCALE), "-D", "TM=7"], "not in the @autotune space"),
        ([str(ROOT / "test" / "Analysis" / "explain.ph")], "choose one with --kernel"),
    ],
)
def test_cli_errors_are_not_tracebacks(argv, needle, capsys, tmp_path):
    assert phobos_main(["view", *argv, "-o", str(tmp_path / "x.html")]) == 1
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and "internal compiler error" not in err
    assert not (tmp_path / "x.html").exists()


def test_three_dimensional_tiles_with_a_unit_dimension_placed_nowhere():
    path = ROOT / "examples" / "attention.ph"
    r = explain_source(str(path))[0]
    assert any(None in a.layout_dims for a in r.accesses)  # 1 x BM x D tiles in a 2-D layout
    staged = [a for a in r.accesses if any(n.startswith("staged:") for n in a.notes)]
    assert {a.tensor for a in staged} == {"K", "V"}  # copied into shared memory by the dots: no lanes of their own
    assert all(a.lines is not None and a.lines.touched >= a.lines.ideal for a in r.accesses if a not in staged)
    m = model(path)
    v = variant(m, "written")
    b = contract(path)["bindings"]
    for c in v["ctas"]:
        x, y, _ = c["cta"]
        loads_q = [s for s in c["steps"] if s["box"] and s["box"]["tensor"] == "Q"]
        assert [s["box"]["start"] for s in loads_q] == [[y, x * b["BM"], 0]]
        keys = [s["box"]["start"] for s in c["steps"] if s["box"] and s["box"]["tensor"] == "K"]
        assert keys == [[y, j, 0] for j in range(0, m["sizes"]["S"], b["BN"])]
