"""Prints the short table of the latest benchmark results in a folder (default bench/results)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import common


def load(folder: Path, name: str):
    path = folder / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def main():
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else common.ROOT / "bench" / "results"
    rows = []
    log = folder / "gpu_tests.log"
    if log.exists():
        last = [line for line in log.read_text().splitlines() if re.search(r"\d+ (passed|failed)", line)]
        rows.append(("GPU tests", last[-1].strip("= ") if last else "?", ""))
    for suffix in ("", "_handwritten"):
        launch = load(folder, "launch" + suffix)
        if launch:
            us = launch["us_per_launch"]
            rows.append(
                (
                    f"launch{suffix} (us/launch)",
                    f"phobos {us['phobos k(x, y, a)']:.2f}, triton {us['triton saxpy[grid](...)']:.2f}, "
                    f"ratio {launch['phobos_over_triton']:.2f}",
                    "met" if launch["met"] else "NOT met",
                )
            )
        bw = load(folder, "bandwidth" + suffix)
        if bw:
            rows.append(("copy bandwidth", f"{bw['copy_GBps']:.0f} GB/s", ""))
            for e in bw["cases"]:
                if "phobos_vs_copy" in e:
                    rows.append(
                        (
                            f"{e['case']}{suffix}",
                            f"{e['phobos_vs_copy']:.3f} x copy, {e['phobos_vs_triton']:.3f} x triton speed",
                            "met" if e["met"] else "NOT met",
                        )
                    )
    co = load(folder, "coalescing")
    if co:
        for who in ("phobos", "triton"):
            if who in co:
                c = co[who]
                rows.append(
                    (
                        f"coalescing {who}",
                        f"row {c['row_us']:.1f} us, col {c['col_us']:.1f} us, col/row {c['col_over_row']:.2f}x",
                        "",
                    )
                )
    comp = load(folder, "compile")
    if comp:
        for name, c in comp.items():
            if isinstance(c, dict) and "cold_first_launch_s" in c:
                rows.append(
                    (
                        f"compile {name}",
                        f"cold {c['cold_first_launch_s']:.2f} s, warm {c['warm_in_process_ms']:.1f} ms "
                        f"(new process {c['warm_new_process_s'] * 1e3:.0f} ms)",
                        "",
                    )
                )
    print(common.table(rows, ["what", "result", "target"]))


if __name__ == "__main__":
    main()
