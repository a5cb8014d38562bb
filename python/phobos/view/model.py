"""The data of a `phobos view` page: one compiled variant of a kernel, as a JSON-able dict.

Every fact on the page comes from the compiler or from running the kernel:

  * per access (global load and store): the report of report/explain.py,
    its vector width and missing facts, its mask verdict, its lanes and warp
    0's request with its 128-byte lines; the thread of every tile element
    from the kernel's layout or the dot lowering's copy (threads.py);
  * the grid rule, the @aligned promises and the dot lowering's shared-memory
    plan (buffers at their offsets, barriers kept and elided, pipelined loops):
    the launch contract of `compile_artifact`, whose `shared_memory` is the
    `phobos.shared_plan` the lowering recorded;
  * the boxes of the picked CTA at each step: the interpreter runs the kernel
    on zero-filled tensors of the chosen sizes (trace.py).

A kernel with `@aligned` is built twice, as written and with the promise
dropped (promise.py), over the same sizes, so the page shows both side by
side. The page's script only draws what is here and looks nothing up.
"""

from __future__ import annotations

import math
import re

from phobos.lowering.layout import Blocked

from . import threads as T
from . import trace as TR
from .promise import drop_aligned

FORMAT = 1
RECORD_ALL_CTAS = 16  # grids up to this many CTAs are recorded whole (the page lets you pick any)
STEP_LIMIT = 400  # steps recorded per CTA


class ViewError(Exception):
    """A problem with the options of the view (sizes, CTA): the message names the option."""


# ----------------------------------------------------------------------------- compiling


def _compile(text: str, filename: str, kernel, key, chip, defines):
    """(explain report, contract, program) of one kernel of `text`."""
    from phobos import compiler
    from phobos.compiler.explain import explain_source

    artifact = compiler.compile_artifact(text, kernel=kernel, key=key, chip=chip, defines=defines, source_name=filename)
    name = artifact.contract["kernel"]
    reports = explain_source(text, kernel=name, key=key, chip=chip, defines=defines, source_name=filename)
    report = next(r for r in reports if r.name == name)
    return report, artifact.contract, artifact.program


def layout_words(text: str | None) -> str | None:
    """A blocked layout's text (`#tile.blocked<...>`) in words (Blocked.in_words)."""
    return Blocked.from_text(text).in_words() if text else None


def launch_key(contract: dict, sizes: dict[str, int]) -> str:
    """The key a launch at `sizes` with contiguous, 16-byte aligned tensors would use (what
    numpy, torch and cupy allocate): the variant `phobos view` draws unless told otherwise."""
    from phobos.runtime.aot import like
    from phobos.runtime.binding import Signature

    args = []
    for p in contract["params"]:
        if p["kind"] == "tensor":
            args.append(like(p["dtype"], [s if s is not None else sizes[d] for s, d in zip(p["shape"], p["dims"])]))
        else:
            args.append(1.0 if p["dtype"].startswith(("f", "bf")) else 1)
    sig = Signature(contract)
    return sig.key(args, sig.describe(args)).to_text()


# ----------------------------------------------------------------------------- sizes


def symbols(contract: dict) -> list[str]:
    """The kernel's symbolic tensor dimensions, in parameter order."""
    out = []
    for p in contract["params"]:
        if p["kind"] == "tensor":
            for d, static in zip(p["dims"], p["shape"]):
                if static is None and d not in out:
                    out.append(d)
    return out


def default_sizes(contract: dict, report) -> dict[str, int]:
    """Two tiles along every dimension: a whole multiple where the kernel promises one
    (@aligned), else ragged (a quarter tile short), so the edge CTAs show masked elements."""
    tile = {}
    params = {p["name"]: p for p in contract["params"] if p["kind"] == "tensor"}
    for a in report.accesses:
        p = params.get(a.tensor)
        if p is not None and a.form == "slice":
            for d, extent in zip(p["dims"], a.tile):
                tile[d] = max(tile.get(d, 1), extent)
    for rule in contract.get("grid", []):
        if isinstance(rule, dict):
            tile[rule["symbol"]] = max(tile.get(rule["symbol"], 1), int(rule["tile"]))
    promised = {p["symbol"]: int(p["divisor"]) for p in contract.get("promises", [])}
    sizes = {}
    for s in symbols(contract):
        t = tile.get(s, 64)
        if s in promised:
            d = promised[s]
            sizes[s] = 2 * (-(-max(t, d) // d) * d)
        else:
            sizes[s] = 2 * t - max(1, t // 4) if t > 1 else 3
    return sizes


def parse_sizes(text: str | None) -> dict[str, int]:
    """--dims 'M=200,N=300' -> {"M": 200, "N": 300}."""
    sizes: dict[str, int] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([0-9]+)\s*", item)
        if not m:
            raise ViewError(f"--dims expects NAME=EXTENT[,NAME=EXTENT...], got '{item.strip()}'")
        sizes[m.group(1)] = int(m.group(2))
    return sizes


def parse_position(text: str | None, flag: str, least: int) -> tuple[int, int, int] | None:
    """--cta / --grid 'X[,Y[,Z]]' -> (x, y, z), missing axes 0 (--cta) or 1 (--grid)."""
    if text is None:
        return None
    try:
        value = tuple(int(c) for c in text.split(","))
    except ValueError:
        raise ViewError(f"{flag} expects up to three integers separated by commas, got '{text}'") from None
    if not 1 <= len(value) <= 3 or any(c < least for c in value):
        raise ViewError(f"{flag} expects one to three integers of at least {least}, got '{text}'")
    return value + (least,) * (3 - len(value))


def _sizes(contract, report, given: dict[str, int]) -> dict[str, int]:
    known = symbols(contract)
    for s, v in given.items():
        if s not in known:
            raise ViewError(f"--dims: kernel '{contract['kernel']}' has no dimension '{s}' (it has {', '.join(known)})")
        if v < 1:
            raise ViewError(f"--dims: {s} must be at least 1, got {v}")
    sizes = default_sizes(contract, report)
    sizes.update(given)
    return sizes


def _grid(contract, sizes, given=None) -> tuple[int, int, int]:
    from phobos.runtime.binding import Signature

    try:
        return Signature(contract).grid(sizes, given)
    except ValueError as e:
        message = str(e)
        if "give the grid" in message:
            message = message.split("; give the grid")[0] + "; give it with --grid X[,Y[,Z]]"
        raise ViewError(message) from None


# ----------------------------------------------------------------------------- geometry


def _minus(box_lo, box_hi, in_lo, in_hi) -> list[list[int]]:
    """The parts of the box [box_lo, box_hi) outside [in_lo, in_hi) as disjoint boxes
    [lo..., hi...]; the whole box when they do not meet."""
    in_lo = [max(a, b) for a, b in zip(in_lo, box_lo)]
    in_hi = [min(a, b) for a, b in zip(in_hi, box_hi)]
    if any(lo >= hi for lo, hi in zip(in_lo, in_hi)):
        return [list(box_lo) + list(box_hi)]
    out = []
    lo, hi = list(box_lo), list(box_hi)
    for d in range(len(lo)):  # peel the slabs below and above the inside along each dimension
        if lo[d] < in_lo[d]:
            out.append(lo + hi[:d] + [in_lo[d]] + hi[d + 1 :])
            lo[d] = in_lo[d]
        if in_hi[d] < hi[d]:
            out.append(lo[:d] + [in_hi[d]] + lo[d + 1 :] + hi)
            hi[d] = in_hi[d]
    return out


def _slice_box(event, shape) -> dict:
    lo = list(event.starts)
    hi = [s + n for s, n in zip(event.starts, event.tile)]
    in_lo = [max(a, 0) for a in lo]
    in_hi = [min(b, e) for b, e in zip(hi, shape)]
    inside = math.prod(max(0, b - a) for a, b in zip(in_lo, in_hi))
    total = math.prod(event.tile)
    outside = _minus(lo, hi, in_lo, in_hi) if inside < total else []
    rank = len(lo)
    tile_rects = [[v - lo[i % rank] for i, v in enumerate(r)] for r in outside]
    return {
        "start": lo,
        "extent": list(event.tile),
        "elements": total,
        "masked": total - inside,
        "outside": outside,  # tensor coordinates
        "masked_tile": tile_rects,  # tile coordinates
        "masked_cells": [],
    }


def _offset_box(event, shape) -> dict:
    import numpy as np

    mask = event.mask if event.mask is not None else np.ones(event.offsets.shape, dtype=bool)
    active = event.offsets[mask]
    total = int(event.offsets.size)
    if active.size:
        coords = np.unravel_index(active, shape)
        lo = [int(c.min()) for c in coords]
        hi = [int(c.max()) + 1 for c in coords]
    else:
        lo, hi = [0] * len(shape), [0] * len(shape)
    cells = [int(i) for i in np.flatnonzero(~mask.reshape(-1))[:4096]]
    return {
        "start": lo,
        "extent": [b - a for a, b in zip(lo, hi)],
        "elements": total,
        "masked": total - int(active.size),
        "outside": [],
        "masked_tile": [],
        "masked_cells": cells,  # flat tile indices the mask turns off (the first 4096)
    }


# ----------------------------------------------------------------------------- text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _range_text(lo: int, hi: int) -> str:
    return f"{lo}..{hi - 1}" if hi - lo > 1 else str(lo)


def _box_text(box: dict, tensor: dict, kind: str) -> str:
    lo, ext = box["start"], box["extent"]
    hi = [a + n for a, n in zip(lo, ext)]
    shape = " x ".join(str(s) for s in tensor["shape"])
    if len(lo) == 2:
        where = f"rows {_range_text(lo[0], hi[0])}, columns {_range_text(lo[1], hi[1])}"
    else:
        where = ", ".join(f"dim {d} {_range_text(a, b)}" for d, (a, b) in enumerate(zip(lo, hi)))
    text = f"box: {where} of '{tensor['name']}' ({shape})"
    if box["masked"]:
        what = "read as zero" if kind == "load" else "not written"
        text += f"; {box['masked']} of {box['elements']} elements masked ({what})"
    else:
        text += "; every element inside"
    return text


def _location_of(what: str) -> str | None:
    """The file:line:col a plan entry ends with ("the copy of the lhs tile at f.ph:10:13")."""
    m = re.search(r" at (\S+:\d+:\d+)$", what)
    return m.group(1) if m else None


def _loop_variable(lines: list[str], line: int, col: int) -> str:
    if 1 <= line <= len(lines):
        m = re.match(r"for\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b", lines[line - 1][col - 1 :])
        if m:
            return m.group(1)
    return "the loop index"


# ----------------------------------------------------------------------------- one variant


class _Variant:
    def __init__(self, vid, title, report, contract, program, sizes, lines, chip, grid):
        self.vid, self.title, self.grid = vid, title, grid
        self.report, self.contract, self.program = report, contract, program
        self.sizes, self.lines, self.chip = sizes, lines, chip
        self.layout = Blocked.from_text(report.layout) if report.layout else None
        self.shared = contract.get("shared_memory") or {"bytes": 0, "buffers": [], "barriers": [], "pipeline": []}
        self.tensors = []
        for i, p in enumerate(contract["params"]):
            if p["kind"] == "tensor":
                shape = [s if s is not None else sizes[d] for s, d in zip(p["shape"], p["dims"])]
                self.tensors.append(
                    {"name": p["name"], "param": i, "dims": p["dims"], "shape": shape, "dtype": p["dtype"]}
                )
        self.by_param = {t["param"]: t for t in self.tensors}
        self.maps: dict = {}
        self.map_ids: dict = {}

    # ------------------------------------------------------------------ static facts

    def buffers(self) -> list[dict]:
        out = []
        for b in self.shared.get("buffers", []):
            entry = dict(b)
            entry["stage_bytes"] = b["bytes"] // max(1, b["stages"])
            out.append(entry)
        return out

    def barriers(self) -> list[dict]:
        return [dict(b, location=_location_of(b["at"])) for b in self.shared.get("barriers", [])]

    def pipelines(self) -> dict[str, dict]:
        return {p["loop"]: p for p in self.shared.get("pipeline", []) if p.get("applied")}

    def _map(self, kind: str, tile, extra, build, *args) -> str:
        """The id of the thread map `build(*args)`, built once per (kind, tile, extra)."""
        key = (kind, tuple(tile), extra)
        if key not in self.map_ids:
            self.map_ids[key] = f"m{len(self.map_ids)}"
            self.maps[self.map_ids[key]] = build(*args)
        return self.map_ids[key]

    def accesses(self) -> list[dict]:
        staged = {b["where"]: i for i, b in enumerate(self.shared.get("buffers", []))}
        out = []
        for a in self.report.accesses:
            buffer = staged.get(a.location) if a.kind == "load" else None
            entry = {
                "index": a.index,
                "kind": a.kind,
                "op": a.op,
                "form": a.form,
                "location": a.location,
                "line": a.line,
                "col": a.col,
                "tensor": a.tensor,
                "tile": a.tile,
                "element": a.element,
                "elem_bytes": a.elem_bytes,
                "vector_width": a.vector_width,
                "vector_bytes": a.vector_bytes,
                "vector": f"{_plural(a.vector_width, 'element')} ({_plural(a.vector_bytes, 'byte')}) per access",
                "narrow": a.narrow,
                "limits": [{"fact": x.fact, "text": x.text} for x in a.limits],
                "mask": {"state": a.mask.state, "text": a.mask.text} if a.mask else None,
                "lanes": a.lanes.text if a.lanes else None,
                "strided": bool(a.lanes and a.lanes.strided),
                "buffer": buffer,
                "mapping": None,
                "map": None,
                "request": None,
            }
            if buffer is not None:
                threads = self.report.threads
                entry["mapping"] = "copy"
                entry["map"] = self._map("copy", a.tile, a.vector_width, T.copy_map, a.tile, a.vector_width, threads)
                lines = T.copy_request(a.tile, a.vector_width, threads, a.elem_bytes)
                entry["request"] = T.request(lines, a.elem_bytes)
            elif self.layout is not None and a.layout_dims is not None:
                dims = tuple(a.layout_dims)
                entry["mapping"] = "layout"
                entry["map"] = self._map("layout", a.tile, dims, T.layout_map, self.layout, a.tile, list(dims))
                if a.lines is not None:
                    entry["request"] = T.request(a.lines, a.elem_bytes)
            out.append(entry)
        return out

    # ------------------------------------------------------------------ steps

    def steps(self, events, accesses, loops, tagged) -> list[dict]:
        buffers = self.buffers()
        barriers = self.barriers()
        pipelines = self.pipelines()
        loop_loc = {lp.index: f"{lp.loc[0]}:{lp.loc[1]}:{lp.loc[2]}" for lp in loops}
        out = []
        for e in events:
            loc = f"{e.loc[0]}:{e.loc[1]}:{e.loc[2]}"
            step = {
                "kind": e.kind,
                "location": loc,
                "line": e.loc[1],
                "access": e.access,
                "loops": [{"loop": i.loop, "index": i.index, "count": i.count, "value": i.value} for i in e.loops],
                "box": None,
                "shared": [],
                "barriers": [j for j, b in enumerate(barriers) if b["location"] == loc],
                "readout": [],
            }
            context = ""
            if e.loops:
                inner = e.loops[-1]
                where = loop_loc.get(inner.loop, "")
                var = _loop_variable(self.lines, *[int(x) for x in where.rsplit(":", 2)[1:]]) if where else ""
                context = f"iteration {inner.index + 1} of {inner.count} of the loop at {where} ({var} = {inner.value})"
            pipe = pipelines.get(loop_loc.get(e.loops[-1].loop)) if e.loops else None
            stage = (e.loops[-1].index % pipe["stages"]) if pipe else 0
            text = step["readout"]
            if e.kind == "iteration":
                text.append(context)
                if pipe:
                    s, it = pipe["stages"], e.loops[-1]
                    line = (
                        f"pipelined: a {s}-stage cp.async ring (lowering/ops/pipelined_for.py); this iteration's dots "
                        f"read stage {it.index % s}"
                    )
                    if it.index + s - 1 < it.count:
                        line += f"; its copies fill stage {(it.index + s - 1) % s} for iteration {it.index + s}"
                    text.append(line)
                    for b, buf in enumerate(buffers):
                        if buf["where"] in pipe["loads"]:
                            step["shared"].append({"buffer": b, "stage": it.index % s, "use": "read"})
            elif e.kind == "dot":
                text.append(f"dot at {loc}" + (f", {context}" if context else ""))
                reads = [b for b, buf in enumerate(buffers) if buf["name"].endswith(f"of the dot at {loc}")]
                for b in reads:
                    stages = buffers[b]["stages"]
                    step["shared"].append({"buffer": b, "stage": stage % stages, "use": "read"})
                    text.append(f"reads '{buffers[b]['name']}' (stage {stage % stages} of {stages}) from shared memory")
                if not reads:
                    text.append("reads its operands from registers")
            else:
                self._access_step(step, e, accesses, buffers, pipe, stage, context, tagged)
            for j in step["barriers"]:
                b = barriers[j]
                text.append(f"barrier before {b['at']}: {'kept' if b['kept'] else 'elided'} ({b['reason']})")
            out.append(step)
        return out

    def _access_step(self, step, e, accesses, buffers, pipe, stage, context, tagged) -> None:
        a = accesses[e.access]
        data = tagged[e.access]
        if data["name"] != a["op"] or tuple(data.get("loc") or ())[1:] != (a["line"], a["col"]):
            raise RuntimeError(
                f"phobos view: access {e.access} of the program ({data['name']} at {data.get('loc')}) is not the "
                f"report's ({a['op']} at {a['location']})"
            )
        tensor = self.by_param[e.tensor]
        box = _slice_box(e, tensor["shape"]) if e.starts is not None else _offset_box(e, tensor["shape"])
        box["tensor"] = tensor["name"]
        step["box"] = box
        text = step["readout"]
        tile = "x".join(str(s) for s in a["tile"])
        text.append(
            f"{a['kind']} of '{a['tensor']}' at {a['location']} (tile {tile} x {a['element']})"
            + (f", {context}" if context else "")
        )
        text.append(_box_text(box, tensor, a["kind"]))
        vector = f"vector: {a['vector']}"
        if a["narrow"]:
            vector += ", narrower than 16 bytes" + (
                ": missing " + ", ".join(x["fact"] for x in a["limits"]) if a["limits"] else ""
            )
        text.append(vector)
        if a["mask"]:
            text.append(f"mask: {a['mask']['text']}")
        if a["mapping"] == "copy":
            text.append(
                f"threads: the dot lowering's cooperative copy (lowering/shared_region.py): chunk q of "
                f"{_plural(a['vector_width'], 'element')} goes to thread q mod {self.report.threads}"
            )
        elif a["lanes"]:
            text.append(f"lanes: {'strided' if a['strided'] else 'coalesced'}: {a['lanes']}")
        r = a["request"]
        if r:
            extra = r["touched"] - r["ideal"]
            text.append(
                f"lines: warp 0's request touches {_plural(r['touched'], '128-byte line')} (ideal {r['ideal']}) "
                f"for {r['bytes']} bytes" + (f": {extra} extra" if extra > 0 else "")
            )
        if a["buffer"] is not None:
            b = buffers[a["buffer"]]
            s = stage % b["stages"]
            lo = b["offset"] + s * b["stage_bytes"]
            step["shared"].append({"buffer": a["buffer"], "stage": s, "use": "write"})
            line = (
                f"shared memory: copied into '{b['name']}', stage {s} of {b['stages']}, "
                f"bytes {lo}..{lo + b['stage_bytes'] - 1}"
            )
            if pipe:
                line += f" (copied ahead by the {pipe['stages']}-stage cp.async ring)"
            text.append(line)

    # ------------------------------------------------------------------ the whole variant

    def build(self, picked, record_all: bool) -> dict:
        grid = list(_grid(self.contract, self.sizes, self.grid))
        accesses = self.accesses()
        tagged_program, tagged, _, _ = TR.tag_program(self.program)
        args = TR.zero_arguments(self.contract, self.sizes)
        positions = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
        wanted = positions if record_all else [picked]
        refused = None
        ctas = []
        try:
            trace = TR.record(tagged_program, self.contract, args, ctas=wanted, limit=STEP_LIMIT, grid=self.grid)
        except (ValueError, TypeError) as e:  # the launch's own checks: a broken promise, an empty grid
            refused = str(e)
            trace = None
        notes = list(self.report.notes)
        if trace is not None:
            for pos in wanted:
                steps = self.steps(trace.events.get(pos, []), accesses, trace.loops, tagged)
                ctas.append({"cta": list(pos), "steps": steps, "truncated": trace.truncated.get(pos, 0)})
            sizes = ", ".join(f"{k} = {v}" for k, v in self.sizes.items())
            notes += [f"at {sizes}, {message}" for message in trace.uncovered]
        r = self.report
        return {
            "id": self.vid,
            "title": self.title,
            "kernel": r.name,
            "location": r.location,
            "key": r.key,
            "threads": r.threads,
            "layout": r.layout,
            "layout_words": layout_words(r.layout),
            "chip": self.chip,
            "promises": self.contract.get("promises", []),
            "grid": grid,
            "grid_rule": self.contract.get("grid"),
            "tensors": self.tensors,
            "accesses": accesses,
            "maps": self.maps,
            "shared": {
                "bytes": self.shared.get("bytes", 0),
                "buffers": self.buffers(),
                "pipeline": self.shared.get("pipeline", []),
            },
            "barriers": self.barriers(),
            "refused": refused,
            "ctas": ctas,
            "picked": next((i for i, c in enumerate(ctas) if tuple(c["cta"]) == tuple(picked)), 0),
            "summary": self.summary(grid),
            "notes": notes,
        }

    def summary(self, grid) -> str:
        r = self.report
        shape = " x ".join(str(g) for g in (grid[:2] if grid[2] == 1 else grid))
        names = ", ".join(t["name"] for t in self.tensors)
        smem = self.shared.get("bytes", 0)
        ruler = (
            f"shared memory as a byte ruler of {smem} bytes with each buffer at its planned offset, "
            "the barriers kept and elided, "
            if smem
            else "no shared memory (none planned), "
        )
        return (
            f"The {r.name} kernel{' with @aligned dropped' if self.vid == 'dropped' else ''}, stepped through as "
            f"the compiler built it for {self.chip} (key {r.key or 'generic'}): a {shape} grid of CTAs with "
            f"{r.threads} threads each. The drawing shows the tensors {names} in global memory with the picked "
            f"CTA's current boxes, {ruler}and how the CTA's threads and warp 0's lanes take part. "
            "The readout below describes each step."
        )


# ----------------------------------------------------------------------------- the page's data


def _shown(path: str) -> str:
    """A path relative to the current directory where it lies inside it (as the user types it)."""
    import os

    if path.startswith("<") or not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def build(
    text: str,
    filename: str,
    *,
    kernel: str | None = None,
    key: str | None = None,
    chip: str | None = None,
    defines: dict | None = None,
    sizes: dict[str, int] | None = None,
    cta=None,
    grid=None,
    compare: bool = True,
) -> dict:
    """The model of the page for `text` (the source of `filename`): the variant as written
    and, for a .ph kernel with @aligned, the one without it. Without `key`, the variant a
    launch at the drawn sizes with contiguous, 16-byte aligned tensors uses (launch_key).
    Compile errors are the compiler's CompileError; bad sizes or CTAs a ViewError."""
    from phobos.target import DEFAULT_CHIP

    chip = chip or DEFAULT_CHIP
    report, contract, program = _compile(text, filename, kernel, key, chip, defines)
    name = contract["kernel"]
    lines = text.split("\n")
    sizes = _sizes(contract, report, dict(sizes or {}))
    notes = []
    if key is None:
        key = launch_key(contract, sizes) or None
        if key is not None:  # the generic variant was only the way to the sizes and the parameters
            report, contract, program = _compile(text, filename, name, key, chip, defines)
        notes.append(
            f"drawn: the variant a launch at these sizes with contiguous, 16-byte aligned tensors uses "
            f"(key {key or 'generic'}); --key or --args draw another"
        )
    given_grid = grid
    grid = _grid(contract, sizes, given_grid)
    if math.prod(grid) == 0:
        raise ViewError(f"the grid for these sizes is empty ({' x '.join(map(str, grid))}): choose larger --dims")
    picked = tuple(cta) if cta is not None else tuple(g - 1 for g in grid)
    if any(c >= g for c, g in zip(picked, grid)):
        raise ViewError(f"--cta {','.join(map(str, picked))} is outside the grid {' x '.join(map(str, grid))}")
    record_all = math.prod(grid) <= RECORD_ALL_CTAS
    promises = ", ".join(f"{p['symbol']} = {p['divisor']}" for p in contract.get("promises", []))
    title = f"with @aligned({promises})" if promises else "as written (no @aligned promise)"
    variants = [_Variant("written", title, report, contract, program, sizes, lines, chip, given_grid)]
    dropped = None
    if compare and filename.endswith(".ph") and promises:
        dropped = drop_aligned(text, filename, name)
    if dropped is not None:
        d_report, d_contract, d_program = _compile(dropped.text, filename, name, key, chip, defines)
        variants.append(
            _Variant("dropped", "@aligned dropped", d_report, d_contract, d_program, sizes, lines, chip, given_grid)
        )
    if not record_all:
        notes.append(f"the grid has {math.prod(grid)} CTAs: only CTA {picked} is stepped through (--cta picks another)")
    return {
        "format": FORMAT,
        "file": _shown(filename),
        "kernel": name,
        "chip": chip,
        "key": key or "",
        "bindings": contract.get("bindings", {}),
        "sizes": sizes,
        "cta": list(picked),
        "source": lines,
        "dropped": (
            {"attribute": dropped.attribute, "start": list(dropped.start), "end": list(dropped.end)}
            if dropped
            else None
        ),
        "variants": [v.build(picked, record_all) for v in reversed(variants)],
        "notes": notes,
    }
