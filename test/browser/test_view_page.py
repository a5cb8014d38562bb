"""phobos view's page in headless Chromium: what the DOM shows is what the compiler decided.

Each test writes a page with `phobos view`, opens it through file:// and reads
the drawing back through the DOM: the picked CTA's boxes (data-start,
data-masked of the current box), the shared-memory ruler's entries, the
barriers, the lanes of warp 0 and the step readouts, while clicking through
the steps. The expected values are computed here from the compiler's own
output (the launch contract with its shared-memory plan and bindings, the
explain report) and from the kernels' slices, not copied from the page.

Screenshots go to pytest's temporary folder; with PHOBOS_SCREENSHOTS=docs they
replace docs/view-gemm.png and docs/view-gemm-ragged.png (docs/view.md).
"""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path

import pytest

from phobos.cli.driver import main as phobos_main
from phobos.compiler import compile_artifact
from phobos.compiler.explain import explain_source
from phobos.view.promise import drop_aligned

ROOT = Path(__file__).resolve().parents[2]
GEMM = ROOT / "bench" / "kernels" / "gemm.ph"
GEMM_ALIGNED = ROOT / "bench" / "kernels" / "gemm_aligned.ph"
KEY16 = "A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16"


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@functools.cache
def report(path: Path, key: str | None = None, dropped: bool = False):
    text = path.read_text()
    if dropped:
        text = drop_aligned(text, rel(path)).text
    return explain_source(text, key=key, source_name=rel(path))[0]


@functools.cache
def contract(path: Path, key: str | None = None) -> dict:
    return compile_artifact(path.read_text(), key=key, source_name=rel(path)).contract


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The pages of the tests, written by the command line (from the repository root, so the
    locations read bench/kernels/...)."""
    out = tmp_path_factory.mktemp("view")
    made = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for name, argv in {
            "gemm": [rel(GEMM), "--key", "", "--dims", "M=224,N=224,K=14"],  # the generic variant, as report(GEMM)
            "aligned": [rel(GEMM_ALIGNED), "--key", KEY16, "--dims", "M=256,N=256,K=16"],
        }.items():
            path = out / f"{name}.html"
            assert phobos_main(["view", *argv, "-o", str(path)]) == 0
            made[name] = path
    finally:
        os.chdir(cwd)
    return made


def open_page(page, path: Path):
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready=true]")
    return page


def expected_steps(sizes: dict, b: dict, cta) -> list[tuple]:
    """(kind, tensor, start) of each step of a CTA of the gemm kernels, from their slices."""
    pm, pn = cta[0], cta[1]
    out = []
    for kt in range(0, sizes["K"], b["TILE_K"]):
        out += [("iteration", None, None), ("load", "A", [pm * b["TILE_M"], kt])]
        out += [("load", "B", [kt, pn * b["TILE_N"]]), ("dot", None, None)]
    corner = [pm * b["TILE_M"], pn * b["TILE_N"]]
    return out + [("load", "C", corner), ("store", "C", corner)]


def masked(start, extent, shape) -> int:
    inside = math.prod(max(0, min(s + n, e) - max(s, 0)) for s, n, e in zip(start, extent, shape))
    return math.prod(extent) - inside


def panel(page, vid: str):
    return page.locator(f"section.variant[data-variant={vid}]")


def readout(p) -> list[str]:
    return p.locator(".readout p").all_inner_texts()


def screenshot(page, name: str, tmp_path: Path) -> Path:
    folder = ROOT / "docs" if os.environ.get("PHOBOS_SCREENSHOTS") == "docs" else tmp_path
    path = folder / name
    page.set_viewport_size({"width": 1440, "height": 1500})
    page.screenshot(path=str(path), full_page=False)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    return path


# ----------------------------------------------------------------------------- stepping


def test_steps_boxes_masks_and_readouts_match_the_compiler(page, pages, tmp_path):
    open_page(page, pages["gemm"])
    p = panel(page, "written")
    c, r = contract(GEMM), report(GEMM)
    sizes = {"M": 224, "N": 224, "K": 14}
    b = c["bindings"]
    grid = [-(-sizes["M"] // b["TILE_M"]), -(-sizes["N"] // b["TILE_N"]), 1]
    assert p.get_attribute("data-cta") == ",".join(str(g - 1) for g in grid)  # the default pick: the last CTA
    shapes = {"A": [sizes["M"], sizes["K"]], "B": [sizes["K"], sizes["N"]], "C": [sizes["M"], sizes["N"]]}
    by_location = {a.location: a for a in r.accesses}
    want = expected_steps(sizes, b, [g - 1 for g in grid])
    assert p.locator(".count").inner_text() == f"step 1 of {len(want)}"
    for i, (kind, tensor, start) in enumerate(want):
        assert p.get_attribute("data-step") == str(i)
        lines = readout(p)
        if kind == "iteration":
            assert f"(kt = {i // 4 * b['TILE_K']})" in lines[0]
        elif kind == "dot":
            assert lines[0].startswith("dot at ")
        else:
            a = next(a for a in by_location.values() if a.kind == kind and a.tensor == tensor)
            assert lines[0].startswith(f"{kind} of '{tensor}' at {a.location}")
            text = "\n".join(lines)
            assert f"{a.vector_width} element" in text and a.mask.text in text
            box = p.locator(f"svg.tensor[data-tensor={tensor}] rect.box.current")
            assert box.get_attribute("data-start") == ",".join(map(str, start))
            assert box.get_attribute("data-extent") == ",".join(map(str, a.tile))
            assert int(box.get_attribute("data-masked")) == masked(start, a.tile, shapes[tensor])
            assert p.locator("pre.source .line.current").get_attribute("data-line") == str(a.line)
            if a.lines is not None:  # the kernel's own layout: warp 0's request as explain counts it
                assert p.locator("svg.lanes rect.lane").count() == 32 * a.lines.elements_per_lane
                assert p.locator("svg.lanes rect.line").count() == a.lines.touched
                assert p.locator("svg.lanes rect.line.extra").count() == a.lines.touched - a.lines.ideal
            if masked(start, a.tile, shapes[tensor]):
                assert p.locator("svg.lanes rect.masked").count() > 0
                if i == 5:  # A in the last iteration: masked rows and columns
                    screenshot(page, "view-gemm-ragged.png", tmp_path)
        if i < len(want) - 1:
            p.locator("button.next").click()
    assert p.locator("button.next").is_disabled()
    p.locator("button.first").click()
    assert p.get_attribute("data-step") == "0" and p.locator("button.prev").is_disabled()


def test_picking_another_cta_redraws_its_boxes(page, pages):
    open_page(page, pages["gemm"])
    p = panel(page, "written")
    b = contract(GEMM)["bindings"]
    p.locator('rect.cta[data-cta="0,1,0"]').click()
    assert p.get_attribute("data-cta") == "0,1,0" and "CTA (0, 1, 0)" in p.locator(".cta-label").inner_text()
    p.locator("button.next").click()  # the load of A in the first iteration
    box = p.locator("svg.tensor[data-tensor=A] rect.box.current")
    assert box.get_attribute("data-start") == "0,0" and box.get_attribute("data-masked") == "0"
    p.locator("button.next").click()  # B: the CTA's columns
    assert p.locator("svg.tensor[data-tensor=B] rect.box.current").get_attribute("data-start") == f"0,{b['TILE_N']}"


# ----------------------------------------------------------------------------- shared memory and barriers


def test_ruler_and_barriers_are_the_plan_of_the_contract(page, pages):
    open_page(page, pages["gemm"])
    p = panel(page, "written")
    plan = contract(GEMM)["shared_memory"]
    assert p.locator("svg.ruler").get_attribute("data-bytes") == str(plan["bytes"])
    entries = p.locator("g.smem-buffer")
    assert entries.count() == len(plan["buffers"])
    for i, buf in enumerate(plan["buffers"]):
        g = entries.nth(i)
        assert g.get_attribute("data-name") == buf["name"]
        assert g.get_attribute("data-offset") == str(buf["offset"])
        assert g.get_attribute("data-bytes") == str(buf["bytes"])
        assert g.locator("rect.stage").count() == buf["stages"]
    items = p.locator("ul.barriers li.barrier")
    assert items.count() == len(plan["barriers"])
    for i, bar in enumerate(plan["barriers"]):
        li = items.nth(i)
        assert li.get_attribute("data-at") == bar["at"]
        assert ("kept" if bar["kept"] else "elided") in li.get_attribute("class")
        assert bar["reason"] in li.inner_text()
    # the second iteration's copy of A lands in stage 1 of A's buffer; the dot reads that stage
    stages = plan["pipeline"][0]["stages"]
    a = next(x for x in report(GEMM).accesses if x.tensor == "A")
    a_buffer = next(i for i, buf in enumerate(plan["buffers"]) if buf["where"] == a.location)
    p.locator("input.slider").fill("5")
    assert p.get_attribute("data-step") == "5" and readout(p)[0].startswith("load of 'A'")
    written = p.locator("rect.stage.write")
    assert written.count() == 1 and written.get_attribute("data-stage") == str(1 % stages)
    assert entries.nth(a_buffer).locator("rect.stage.write").count() == 1
    p.locator("button.next").click()
    p.locator("button.next").click()  # the dot
    assert p.locator("rect.stage.read").count() == len(plan["buffers"])
    current = p.locator("ul.barriers li.current")
    assert current.count() == sum(1 for bar in plan["barriers"] if bar["at"].startswith("the dot's reads"))


# ----------------------------------------------------------------------------- @aligned side by side


def test_with_and_without_aligned_side_by_side(page, pages, tmp_path):
    open_page(page, pages["aligned"])
    assert page.locator("section.variant").evaluate_all("els => els.map(e => e.dataset.variant)") == [
        "dropped",
        "written",
    ]
    for vid, dropped in (("dropped", True), ("written", False)):
        r = report(GEMM_ALIGNED, KEY16, dropped)
        rows = panel(page, vid).locator("table.accesses tbody tr")
        assert rows.count() == len(r.accesses)
        for i, a in enumerate(r.accesses):
            assert rows.nth(i).get_attribute("data-mask") == a.mask.state
            assert rows.nth(i).get_attribute("data-width") == str(a.vector_width)
    attribute = drop_aligned(GEMM_ALIGNED.read_text(), rel(GEMM_ALIGNED)).attribute
    assert panel(page, "dropped").locator("pre.source del").inner_text() == attribute
    assert panel(page, "written").locator("pre.source del").count() == 0
    for _ in range(5):
        page.locator("header button.both-next").click()
    for vid, dropped in (("dropped", True), ("written", False)):
        p = panel(page, vid)
        assert p.get_attribute("data-step") == "5"
        a = next(x for x in report(GEMM_ALIGNED, KEY16, dropped).accesses if x.tensor == "A")
        assert readout(p)[0].startswith(f"load of 'A' at {a.location}") and f"mask: {a.mask.text}" in readout(p)
    screenshot(page, "view-gemm.png", tmp_path)
