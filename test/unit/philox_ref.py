"""The NumPy reference of Philox4x32-10 (Random123), shared by the std.nn tests
(test_stdlib_interp.py in the interpreter, test_stdlib_more_gpu.py on the GPU); no MLIR, so the
GPU machine imports it too. test_stdlib_interp.py checks it against Random123's known answers."""

from __future__ import annotations

import numpy as np

MASK = 0xFFFFFFFF


def philox4x32_10(counters, key):
    """Random123's Philox4x32-10 on four counter words (uint64 arrays or ints holding 32 bits)
    with the key (two words): its four words."""
    mask = np.uint64(MASK)
    c = [np.asarray(w, np.uint64) & mask for w in counters]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c[0]
        p1 = np.uint64(0xCD9E8D57) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & mask, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & mask]
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
    return c
