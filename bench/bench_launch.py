"""Launch overhead from Python: Phobos vs Triton vs bare cuda-bindings, in one process.

A 1024-element saxpy (one CTA) launched many times in a loop on torch tensors,
after warm-up (module loaded, variant cached, argument layout seen): the host
time per launch is what the Python launch path costs. The bare rows launch
the same cubin straight through `cuLaunchKernel` (cuda-bindings), with its
(values, types) parameter form and with a prebuilt parameter array: the floor
under any Python launcher. Target: Phobos at most half of Triton's time.

    python bench/bench_launch.py [--handwritten]
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time

import common


def per_launch_us(fn, n: int = 20000, rounds: int = 7) -> float:
    import torch

    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        samples.append((t1 - t0) / n * 1e6)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--handwritten", action="store_true", help="launch the hand-written saxpy cubin")
    parser.add_argument("-n", type=int, default=20000, help="launches per round")
    ns = parser.parse_args()

    import torch
    import triton_kernels as tk
    from cuda.bindings import driver as cu

    import phobos

    if ns.handwritten:
        k, source = phobos.load(common.ARTIFACTS / "handwritten" / "saxpy"), "hand-written saxpy cubin"
    else:
        k, source = common.phobos_kernel("saxpy", {"BLOCK": 1024}), "bench/kernels/saxpy.ph (BLOCK=1024)"
    n = 1024
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    y0 = y.clone()
    k(x, y, 2.0, sync=True)
    torch.testing.assert_close(y, 2.0 * x + y0)

    rows = {}
    rows["phobos k(x, y, a)"] = per_launch_us(lambda: k(x, y, 2.0), ns.n)
    grid = (1,)
    rows["phobos k[grid](x, y, a)"] = per_launch_us(lambda: k[grid](x, y, 2.0), ns.n)
    one = lambda meta: (1,)  # a callable grid takes the generic (checked, not generated) path
    rows["phobos generic path (callable grid)"] = per_launch_us(lambda: k(x, y, 2.0, grid=one), ns.n)
    try:
        import cupy

        cx, cy = cupy.asarray(x), cupy.asarray(y)
        rows["phobos k(cupy x, y, a)"] = per_launch_us(lambda: k(cx, cy, 2.0), ns.n)
    except ImportError:
        pass

    tk.launch_saxpy(x, y, 2.0, block=1024, warps=8)
    saxpy = tk.saxpy
    rows["triton saxpy[grid](...)"] = per_launch_us(lambda: saxpy[grid](x, y, n, 2.0, BLOCK=1024, num_warps=8), ns.n)

    # the floor: the same cubin through cuLaunchKernel, no argument handling at all
    variant = k._last
    fn = variant.function(phobos.runtime.get_device(0))
    stream = torch.cuda.current_stream().cuda_stream
    values = (x.data_ptr(), n, y.data_ptr(), 2.0)
    types = (ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_float)
    if [a["kind"] for a in variant.contract["abi"]] == ["ptr", "extent", "ptr", "scalar"]:
        rows["bare cuLaunchKernel, (values, types)"] = per_launch_us(
            lambda: cu.cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, stream, (values, types), 0), ns.n)
        buf = ctypes.create_string_buffer(32)
        ctypes.memmove(buf, (ctypes.c_uint64 * 4)(x.data_ptr(), n, y.data_ptr(), 0), 32)
        ctypes.c_float.from_buffer(buf, 24).value = 2.0
        ptrs = (ctypes.c_void_p * 4)(*[ctypes.addressof(buf) + 8 * i for i in range(4)])
        addr = ctypes.addressof(ptrs)
        threads = variant.contract["threads"]
        rows["bare cuLaunchKernel, prebuilt params"] = per_launch_us(
            lambda: cu.cuLaunchKernel(fn, 1, 1, 1, threads, 1, 1, 0, stream, addr, 0), ns.n)
    torch.cuda.synchronize()

    phobos_us = rows["phobos k(x, y, a)"]
    triton_us = rows["triton saxpy[grid](...)"]
    result = {"kernel": source, "elements": n, "launches_per_round": ns.n, "us_per_launch": rows,
              "phobos_over_triton": phobos_us / triton_us, "target": "phobos_over_triton <= 0.5",
              "met": phobos_us / triton_us <= 0.5}
    common.save("launch" + ("_handwritten" if ns.handwritten else ""), result)
    print(f"launch overhead ({source}, {n} elements, host time per launch, median of rounds)")
    print(common.table([(name, f"{us:.2f}") for name, us in rows.items()], ["launcher", "us/launch"]))
    print(f"phobos / triton = {phobos_us / triton_us:.2f} (target <= 0.5: {'met' if result['met'] else 'NOT met'})")


if __name__ == "__main__":
    main()
