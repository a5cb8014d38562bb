"""Q8_0 prefill on the GPU (issue 25, item 4): `qmma_t` (bench/kernels/q8_qmma.ph, and
q8_qmma_ring.ph's configurations in RING: larger tiles, the K blocks through a @pipeline ring)
beside the f16 GEMM a user would otherwise run (torch.mm, cuBLAS) at the same M x N x K, one
process.

C[M, N] = sum over 32-element blocks b of AS[m, b] WS[b, n] (A[m, b] . W[n, b]), A and W int8,
f32 scales. The result is checked first against the float64 definition (block sums exact in
int64 on the device, scaled in float64) within the f32 bound of q8_reference.py; times are
medians of event-timed runs; "effective TFLOP/s" count 2 M N K for both, so the ratio is the
one the issue names (target: >= 0.8x the f16 GEMM's TFLOP/s at 512 x 4096 x 4096).

    python bench/aot_build.py --only q8_                 # here: the folder (q8_jobs)
    python bench/bench_q8_qmma.py [--shapes 512x4096x4096,...]   # on the GPU machine
"""

from __future__ import annotations

import argparse

import common

SHAPES = [(512, 4096, 4096), (512, 14336, 4096)]
# q8_qmma_ring.ph configurations timed beside q8_qmma.ph (unmeasured: tiles x threads x stages)
RING = [
    {"TM": 128, "TN": 64, "THREADS": 256, "S": 4},
    {"TM": 128, "TN": 128, "THREADS": 256, "S": 4},
    {"TM": 128, "TN": 64, "THREADS": 256, "S": 6},
    {"TM": 64, "TN": 64, "THREADS": 128, "S": 4},
]
BLOCK = 32
U = 2.0**-24


def _reference(torch, a, a_s, w, ws_kn):
    """The float64 definition and the f32 bound's scale, block by block on the device."""
    m, k = a.shape
    ref = torch.zeros(m, w.shape[0], dtype=torch.float64, device="cuda")
    size = torch.zeros_like(ref)
    for b, s in enumerate(range(0, k, BLOCK)):
        dot = a[:, s : s + BLOCK].double() @ w[:, s : s + BLOCK].double().T  # exact: |dot| < 2^20
        scale = a_s[:, b : b + 1].double() * ws_kn[b : b + 1, :].double()
        ref += dot * scale
        size += dot.abs() * scale
    return ref, size


def measure(torch, m: int, n: int, k: int) -> list[dict]:
    kb = -(-k // BLOCK)
    gen = torch.Generator(device="cuda").manual_seed(m * 31 + n * 7 + k)
    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8, generator=gen)
    w = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8, generator=gen)
    a_s = torch.empty(m, kb, device="cuda").uniform_(1e-3, 2e-2, generator=gen)
    ws = torch.empty(kb, n, device="cuda").uniform_(1e-3, 2e-2, generator=gen)
    ref, size = _reference(torch, a, a_s, w, ws)
    flops = 2 * m * n * k
    rows = []
    c = torch.full((m, n), float("nan"), device="cuda")
    kernels = [("phobos q8_qmma", "q8_qmma", None)]
    kernels += [("phobos q8_qmma_ring " + " ".join(f"{k}={v}" for k, v in d.items()), "q8_qmma_ring", d) for d in RING]
    for label, name, defines in kernels:
        folder = common.aot_folder(name, defines)
        if not folder.is_dir():
            print(f"  (no ahead-of-time folder {folder}: run bench/aot_build.py --only q8_)")
            continue
        kernel = common.phobos_kernel(name, defines)
        c.fill_(float("nan"))
        kernel(a, a_s, w, ws, c)
        torch.cuda.synchronize()
        err = ((c.double() - ref).abs() / (size * (k // BLOCK + 3) * U + 1e-30)).nan_to_num(float("inf")).max().item()
        if err > 1.0:  # a wrong result is reported, never timed
            print(f"  WRONG {label}: max error {err:.3g} x the bound; not timed")
            continue
        ms = common.gpu_time_ms(lambda kernel=kernel: kernel(a, a_s, w, ws, c), warmup=3, reps=15)
        rows.append({"impl": label, "ms": ms, "err_over_bound": err})
    x16 = torch.randn(m, k, device="cuda", generator=gen).half()
    w16 = torch.randn(k, n, device="cuda", generator=gen).half()
    c16 = torch.empty(m, n, device="cuda", dtype=torch.float16)
    ms = common.gpu_time_ms(lambda: torch.mm(x16, w16, out=c16), warmup=3, reps=15)
    rows.append({"impl": "cuBLAS f16 mm", "ms": ms})
    for r in rows:
        r.update(size=[m, n, k], TFLOPs=flops / r["ms"] / 1e9)
    return rows


def main():
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join("x".join(map(str, s)) for s in SHAPES))
    ns = parser.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in ns.shapes.split(",")]
    results = [r for s in shapes for r in measure(torch, *s)]
    path = common.save("q8_qmma", {"results": results})
    rows = []
    for r in results:
        f16 = next(x for x in results if x["size"] == r["size"] and x["impl"].startswith("cuBLAS"))
        extra = f"{r['err_over_bound']:.2f}" if "err_over_bound" in r else ""
        rows.append(
            [
                "x".join(map(str, r["size"])),
                r["impl"],
                f"{r['TFLOPs']:.1f}",
                f"{r['TFLOPs'] / f16['TFLOPs']:.3f}",
                extra,
            ]
        )
    print(common.table(rows, ["M x N x K", "impl", "eff. TFLOP/s", "x f16 GEMM", "err/bound"]))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
