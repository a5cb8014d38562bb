"""Launch each GEMM kernel once on small ragged sizes (for compute-sanitizer runs on the device)."""

from __future__ import annotations

import sys

import common  # noqa: F401  (puts python/ on the path)
import torch

import phobos

SHAPES = [(17, 33, 5), (255, 257, 129)]


def main():
    which = sys.argv[1:] or ["gemm", "gemm_sync", "gemm_aligned", "gemm_nt", "gemm_f16"]
    for name in which:
        k = phobos.load(common.aot_folder(name))
        for m, n, kk in SHAPES if name != "gemm_aligned" else [(256, 512, 128)]:
            dtype = torch.float16 if name == "gemm_f16" else torch.float32
            a = torch.randn(m, kk, device="cuda", dtype=dtype)
            b = (
                torch.randn(n, kk, device="cuda", dtype=dtype)
                if name == "gemm_nt"
                else torch.randn(kk, n, device="cuda", dtype=dtype)
            )
            c = torch.randn(m, n, device="cuda")
            args = (a, b, c) if name in ("gemm_nt", "gemm_f16") else (a, b, c, 1.5, 0.5)
            k(*args)
            torch.cuda.synchronize()
            print(name, m, n, kk, "ok")


if __name__ == "__main__":
    main()
