"""The kernels of bench_stdlib.py: each op written with the standard library (std_<op>_<type>.ph)
and the same computation written out by hand (hand_<op>_<type>.ph), in f32 and f16.

    python bench/stdlib_kernels.py          # (re)writes bench/kernels/{std,hand}_*.ph

The hand-written body is the library function's body with the names filled in, so the two differ
only in the call: test_stdlib_bench_kernels.py requires their PTX to be identical (inlining
leaves nothing behind), and bench_stdlib.py times both on the H200 next to torch.compile.
R rows of 4096 columns (N <= BN) per CTA, W threads: R > 1 shares the block reductions' barriers
and the weight rows' reads among R rows (layer norm's two dependent reductions gain most).
"""

from __future__ import annotations

from pathlib import Path

KERNELS = Path(__file__).resolve().parent / "kernels"
OPS = ("softmax", "layernorm", "rmsnorm", "gelu_bias", "rotary")
TYPES = ("f32", "f16")
HEADER = "@autotune(BN in [4096], W in [512, 256, 128, 1024], R in [1, 2, 4])\n@launch(W)\n"

SIGNATURE = {
    "softmax": "X: tensor<{t}>[M, N], Y: tensor<{t}>[M, N]",
    "layernorm": "X: tensor<{t}>[M, N], Wt: tensor<f32>[N], B: tensor<f32>[N], Y: tensor<{t}>[M, N], eps: f32",
    "rmsnorm": "X: tensor<{t}>[M, N], Wt: tensor<f32>[N], Y: tensor<{t}>[M, N], eps: f32",
    "gelu_bias": "X: tensor<{t}>[M, N], B: tensor<{t}>[N], Y: tensor<{t}>[M, N]",
    # rows of D = 2 H features: the rotate-half form on the two halves; C, S: [M, H] angles' cos, sin
    "rotary": "X: tensor<{t}>[M, D], C: tensor<f32>[M, H], S: tensor<f32>[M, H], Y: tensor<{t}>[M, D]",
}

STD = {
    "softmax": "  Y[r :+ 1, 0 :+ BN] = softmax_rows(padded(X[r :+ 1, 0 :+ BN], -inf))\n",
    "layernorm": "  Y[r :+ 1, 0 :+ BN] = layer_norm_rows(X[r :+ 1, 0 :+ BN], Wt[0 :+ BN], B[0 :+ BN], i32(N), eps)\n",
    "rmsnorm": "  Y[r :+ 1, 0 :+ BN] = rms_norm_rows(X[r :+ 1, 0 :+ BN], Wt[0 :+ BN], i32(N), eps)\n",
    "gelu_bias": "  Y[r :+ 1, 0 :+ BN] = gelu(X[r :+ 1, 0 :+ BN] + B[0 :+ BN])\n",
    "rotary": (
        "  let h = BN / 2\n"
        "  let x1 = X[r :+ 1, 0 :+ BN / 2]\n"
        "  let x2 = X[r :+ 1, h :+ BN / 2]\n"
        "  let c = C[r :+ 1, 0 :+ BN / 2]\n"
        "  let s = S[r :+ 1, 0 :+ BN / 2]\n"
        "  Y[r :+ 1, 0 :+ BN / 2] = rotary_first(x1, x2, c, s)\n"
        "  Y[r :+ 1, h :+ BN / 2] = rotary_second(x1, x2, c, s)\n"
    ),
}

HAND = {
    "softmax": (
        "  let v = f32(padded(X[r :+ 1, 0 :+ BN], -inf))\n"
        "  let e = exp(v - rowmax(v))\n"
        "  Y[r :+ 1, 0 :+ BN] = e / rowsum(e)\n"
    ),
    "layernorm": (
        "  let x = X[r :+ 1, 0 :+ BN]\n"
        "  let w = Wt[0 :+ BN]\n"
        "  let b = B[0 :+ BN]\n"
        "  let n = i32(N)\n"
        "  let v = f32(x)\n"
        "  let valid = iota(BN) < n\n"
        "  let mean = rowsum(where(valid, v, 0.0)) / f32(n)\n"
        "  let d = where(valid, v - mean, 0.0)\n"
        "  let variance = rowsum(d * d) / f32(n)\n"
        "  Y[r :+ 1, 0 :+ BN] = d * rsqrt(variance + eps) * f32(w) + f32(b)\n"
    ),
    "rmsnorm": (
        "  let x = X[r :+ 1, 0 :+ BN]\n"
        "  let w = Wt[0 :+ BN]\n"
        "  let n = i32(N)\n"
        "  let v = where(iota(BN) < n, f32(x), 0.0)\n"
        "  Y[r :+ 1, 0 :+ BN] = v * rsqrt(rowsum(v * v) / f32(n) + eps) * f32(w)\n"
    ),
    "gelu_bias": (
        "  let v = f32(X[r :+ 1, 0 :+ BN] + B[0 :+ BN])\n"
        "  Y[r :+ 1, 0 :+ BN] = 0.5 * v * (1.0 + erf(v * 0.7071067811865476))\n"
    ),
    "rotary": (
        "  let h = BN / 2\n"
        "  let x1 = X[r :+ 1, 0 :+ BN / 2]\n"
        "  let x2 = X[r :+ 1, h :+ BN / 2]\n"
        "  let c = C[r :+ 1, 0 :+ BN / 2]\n"
        "  let s = S[r :+ 1, 0 :+ BN / 2]\n"
        "  Y[r :+ 1, 0 :+ BN / 2] = f32(x1) * f32(c) - f32(x2) * f32(s)\n"
        "  Y[r :+ 1, h :+ BN / 2] = f32(x2) * f32(c) + f32(x1) * f32(s)\n"
    ),
}


def name(impl: str, op: str, t: str) -> str:
    return f"{impl}_{op}_{t}"


def source(impl: str, op: str, t: str) -> str:
    body = (STD if impl == "std" else HAND)[op]
    what = "with the standard library" if impl == "std" else "written out by hand"
    return (
        f"// {op} ({t}) {what}: bench/stdlib_kernels.py writes this file, bench_stdlib.py times it.\n"
        + HEADER
        + f"kernel {name(impl, op, t)}({SIGNATURE[op].format(t=t)}) {{\n  let r = ctx.block.x * R\n"
        + body.replace("r :+ 1", "r :+ R")
        + "}\n"
    )


def main() -> None:
    for impl in ("std", "hand"):
        for op in OPS:
            for t in TYPES:
                (KERNELS / f"{name(impl, op, t)}.ph").write_text(source(impl, op, t), encoding="utf-8")


if __name__ == "__main__":
    main()
