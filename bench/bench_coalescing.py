"""The coalescing experiment: row walk vs column walk over a 4096 x 4096 float32 matrix.

Both kernels read the same 64 MiB, do the same arithmetic (Y = 2 X) and write
the same 64 MiB, in CTAs of 256 elements (65536 CTAs); only the order differs.
The row walk's lanes touch consecutive addresses; the column walk's lanes are
4096 elements (16 KiB) apart, so each lane's load is its own 32-byte sector.
Neighbouring CTAs take neighbouring chunks (row walk) or columns (column walk),
so part of what a column walk throws away is found again in L2. Phobos
(bench/kernels/rowwalk.ph, colwalk.ph) and Triton side by side: both times and
the ratio (a published teaching measurement of the same pair saw 2.4x on an RTX 5070).

    python bench/bench_coalescing.py
"""

from __future__ import annotations

import argparse

import common

M = N = 4096


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    ns = parser.parse_args()

    import torch
    import triton_kernels as tk

    x = torch.randn(M, N, device="cuda")
    y = torch.empty_like(x)
    ref = 2.0 * x
    nbytes = 2 * x.numel() * 4

    def timed(run, label):
        y.fill_(float("nan"))
        run()
        torch.cuda.synchronize()
        if not torch.equal(y, ref):
            raise AssertionError(f"{label} computed a wrong result")
        return common.gpu_time_ms(run, reps=ns.reps)

    rows = {}
    for walk in ("row", "col"):
        folder = common.aot_folder(f"{walk}walk")
        if folder.is_dir():
            import phobos

            k = phobos.load(folder)
            grid = (N // 256, M) if walk == "row" else (N, M // 256)
            rows[("phobos", walk)] = timed(lambda k=k, g=grid: k[g](x, y), f"phobos {walk}walk")
        else:
            print(f"(no ahead-of-time folder {folder}: Phobos skipped)")
        rows[("triton", walk)] = timed(lambda w=walk: tk.launch_walk(w, x, y, block=256, warps=8), f"triton {walk}walk")

    out = {"matrix": [M, N], "dtype": "f32", "bytes": nbytes, "elements_per_cta": 256}
    table = []
    for who in ("phobos", "triton"):
        if (who, "row") in rows:
            r, c = rows[(who, "row")], rows[(who, "col")]
            out[who] = {
                "row_us": r * 1e3,
                "col_us": c * 1e3,
                "row_GBps": nbytes / r / 1e6,
                "col_GBps": nbytes / c / 1e6,
                "col_over_row": c / r,
            }
            table.append(
                (
                    who,
                    f"{r * 1e3:.1f}",
                    f"{c * 1e3:.1f}",
                    f"{nbytes / r / 1e6:.0f}",
                    f"{nbytes / c / 1e6:.0f}",
                    f"{c / r:.2f}x",
                )
            )
    common.save("coalescing", out)
    print(f"coalescing, {M}x{N} f32, Y = 2 X, 256 elements per CTA ({nbytes / 2**20:.0f} MiB moved)")
    print(common.table(table, ["", "row us", "col us", "row GB/s", "col GB/s", "col/row"]))


if __name__ == "__main__":
    main()
