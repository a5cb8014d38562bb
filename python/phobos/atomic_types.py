"""Which element types each atomic operation has on the GPU (NVIDIA PTX `atom`/`red`), shared by the
front end (a located error for a type the hardware lacks) and the lowering (the instruction).

    add    f32, f64, f16 (sm_70; f16x2 where two neighbours share 4 aligned bytes), bf16 (sm_90), i32, i64
    max    i32, i64 (signed), f32, f64 (on the bits: signed max for >= 0, unsigned min for < 0)
    min    as max
    xchg   i32, i64, f32, f64 (atom.exch.b32/b64)
    cas    i32, i64, f32, f64, f16, bf16 (atom.cas.b16/b32/b64)

No atomic exists on i8 or bool. Imports nothing (the front end and the runtime side share it).
"""

from __future__ import annotations

ATOMIC_TYPES: dict[str, tuple[str, ...]] = {
    "add": ("f32", "f64", "f16", "bf16", "i32", "i64"),
    "max": ("i32", "i64", "f32", "f64"),
    "min": ("i32", "i64", "f32", "f64"),
    "xchg": ("i32", "i64", "f32", "f64"),
    "cas": ("i32", "i64", "f32", "f64", "f16", "bf16"),
}
# The first chip (as an sm number) that has the instruction, where it is later than the sm_70 baseline.
MIN_SM: dict[tuple[str, str], int] = {("add", "bf16"): 90}
SEMS = ("relaxed", "acquire", "release", "acq_rel")
SCOPES = ("cta", "gpu", "sys")


def unsupported(kind: str, element: str) -> str | None:
    """Why atomic `kind` on `element` does not exist, or None when it does."""
    have = ATOMIC_TYPES[kind]
    if element in have:
        return None
    return f"the GPU has no atomic_{kind} on {element} (it has {', '.join(have)})"
