"""The check record of a check-mode kernel: where the lowering writes a broken promise
(lowering/device_checks.py) and where the runtime reads it (runtime/check_record.py).

A global of the kernel's module, RECORD_WORDS i32 words:

    [0] 1 once a check failed       [1] the site (an index into the contract's `checks`)
    [2..4] the CTA (ctaid.x, y, z)  [5] the thread (tid.x)
    [6] how many checks failed      [VALUE_WORD..+1] the offending value (i64)
"""

RECORD = "__phobos_check"
RECORD_WORDS = 12
VALUE_WORD = 8

# The claim table of stores several CTAs may make (lowering/device_checks.py CLAIM_TEXT): two
# globals of CLAIM_SLOTS words (element addresses, i64; claiming CTA + 1, i32), cleared by the
# runtime after each launch of a kernel with `overlap` checks.
CLAIM_KEYS = "__phobos_claims"
CLAIM_CTAS = "__phobos_claimed_by"
CLAIM_SLOTS = 1 << 16
CLAIM_PROBES = 16
