"""Check mode on the device: the check record, the function that fills it, and the sites.

A kernel in check mode (tile.check_mode) verifies each promise the compiler relied
on where it is used. A failed check calls `__phobos_check_fail(site, value)`, which
counts the failure and, for the first failing thread of the launch, records the site,
its CTA and thread and the value in the module's check record (its layout:
phobos.contract.check_record), and then exits the thread (PTX `exit`: barriers waiting only on exited threads
are released, so the rest of the CTA finishes). The function is `noreturn`: LLVM
must not move the access a check guards (a load from a read-only tensor, say)
above the check. The context stays usable: the
runtime reads the record after the launch and raises phobos.PromiseBroken
(runtime/check_record.py), then clears it. The sites (check, message, location)
are recorded on the gpu.func as `phobos.checks` and reach the launch contract.
"""

from __future__ import annotations

import json

from mlir import ir
from mlir.dialects import arith, llvm, scf, vector

from phobos.contract.check_record import (
    CLAIM_CTAS,
    CLAIM_KEYS,
    CLAIM_PROBES,
    CLAIM_SLOTS,
    RECORD,
    RECORD_WORDS,
    VALUE_WORD,
)
from phobos.dialect import kernel as K
from phobos.lowering.ir_helpers import declare_once, gpu_module_block, where

FAIL = "__phobos_check_fail"
POLL = "__phobos_check_poll"
CLAIM = "__phobos_claim"

CHECKS_TEXT = f"""llvm.mlir.global external @{RECORD}(dense<0> : tensor<{RECORD_WORDS}xi32>)
    {{addr_space = 1 : i32, alignment = 8 : i64}} : !llvm.array<{RECORD_WORDS} x i32>

llvm.func internal @{FAIL}(%site: i32, %value: i64) attributes {{no_inline, passthrough = ["noreturn"]}} {{
  %record = llvm.mlir.addressof @{RECORD} : !llvm.ptr<1>
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %count = llvm.getelementptr %record[6] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  %failed = llvm.atomicrmw add %count, %c1 syncscope("device") monotonic : !llvm.ptr<1>, i32
  %pair = llvm.cmpxchg %record, %c0, %c1 syncscope("device") monotonic monotonic : !llvm.ptr<1>, i32
  %first = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
  llvm.cond_br %first, ^record, ^exit
^record:
  %site_at = llvm.getelementptr %record[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  llvm.store %site, %site_at {{alignment = 4 : i64}} : i32, !llvm.ptr<1>
  %x = nvvm.read.ptx.sreg.ctaid.x : i32
  %y = nvvm.read.ptx.sreg.ctaid.y : i32
  %z = nvvm.read.ptx.sreg.ctaid.z : i32
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %x_at = llvm.getelementptr %record[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  %y_at = llvm.getelementptr %record[3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  %z_at = llvm.getelementptr %record[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  %t_at = llvm.getelementptr %record[5] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  llvm.store %x, %x_at {{alignment = 4 : i64}} : i32, !llvm.ptr<1>
  llvm.store %y, %y_at {{alignment = 4 : i64}} : i32, !llvm.ptr<1>
  llvm.store %z, %z_at {{alignment = 4 : i64}} : i32, !llvm.ptr<1>
  llvm.store %t, %t_at {{alignment = 4 : i64}} : i32, !llvm.ptr<1>
  %value_at = llvm.getelementptr %record[{VALUE_WORD}] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
  llvm.store %value, %value_at {{alignment = 8 : i64}} : i64, !llvm.ptr<1>
  llvm.br ^exit
^exit:
  llvm.inline_asm has_side_effects "exit;", "" : () -> ()
  llvm.unreachable
}}

llvm.func internal @{POLL}() attributes {{no_inline}} {{
  %record = llvm.mlir.addressof @{RECORD} : !llvm.ptr<1>
  %flag = llvm.load volatile %record {{alignment = 4 : i64}} : !llvm.ptr<1> -> i32
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %broken = llvm.icmp "ne" %flag, %c0 : i32
  llvm.cond_br %broken, ^exit, ^go_on
^exit:
  llvm.inline_asm has_side_effects "exit;", "" : () -> ()
  llvm.return
^go_on:
  llvm.return
}}"""


# Stores several CTAs may make (tile.claim) claim each element's address for their CTA in an
# open-addressed table of CLAIM_SLOTS (address, CTA + 1) pairs: a claim returns 0, or the CTA + 1
# that holds the address already. A full probe run claims nothing (a miss, never a false
# report). The runtime clears the table after each launch (runtime/check_record.py).
CLAIM_TEXT = f"""llvm.mlir.global external @{CLAIM_KEYS}(dense<0> : tensor<{CLAIM_SLOTS}xi64>)
    {{addr_space = 1 : i32, alignment = 8 : i64}} : !llvm.array<{CLAIM_SLOTS} x i64>
llvm.mlir.global external @{CLAIM_CTAS}(dense<0> : tensor<{CLAIM_SLOTS}xi32>)
    {{addr_space = 1 : i32, alignment = 4 : i64}} : !llvm.array<{CLAIM_SLOTS} x i32>

llvm.func internal @{CLAIM}(%address: i64) -> i32 attributes {{no_inline}} {{
  %keys = llvm.mlir.addressof @{CLAIM_KEYS} : !llvm.ptr<1>
  %ctas = llvm.mlir.addressof @{CLAIM_CTAS} : !llvm.ptr<1>
  %golden = llvm.mlir.constant(-7046029254386353131 : i64) : i64
  %shift = llvm.mlir.constant({64 - CLAIM_SLOTS.bit_length() + 1} : i64) : i64
  %mask = llvm.mlir.constant({CLAIM_SLOTS - 1} : i64) : i64
  %probes = llvm.mlir.constant({CLAIM_PROBES} : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %zero64 = llvm.mlir.constant(0 : i64) : i64
  %zero = llvm.mlir.constant(0 : i32) : i32
  %one32 = llvm.mlir.constant(1 : i32) : i32
  %x = nvvm.read.ptx.sreg.ctaid.x : i32
  %y = nvvm.read.ptx.sreg.ctaid.y : i32
  %z = nvvm.read.ptx.sreg.ctaid.z : i32
  %nx = nvvm.read.ptx.sreg.nctaid.x : i32
  %ny = nvvm.read.ptx.sreg.nctaid.y : i32
  %zy = llvm.mul %z, %ny : i32
  %row = llvm.add %zy, %y : i32
  %rows = llvm.mul %row, %nx : i32
  %linear = llvm.add %rows, %x : i32
  %me = llvm.add %linear, %one32 : i32
  %hashed = llvm.mul %address, %golden : i64
  %first = llvm.lshr %hashed, %shift : i64
  llvm.br ^probe(%first, %zero64 : i64, i64)
^probe(%slot: i64, %n: i64):
  %more = llvm.icmp "ult" %n, %probes : i64
  llvm.cond_br %more, ^try, ^full
^try:
  %key_at = llvm.getelementptr %keys[%slot] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
  %pair = llvm.cmpxchg %key_at, %zero64, %address syncscope("device") monotonic monotonic : !llvm.ptr<1>, i64
  %old = llvm.extractvalue %pair[0] : !llvm.struct<(i64, i1)>
  %free = llvm.icmp "eq" %old, %zero64 : i64
  %same = llvm.icmp "eq" %old, %address : i64
  %ours = llvm.or %free, %same : i1
  llvm.cond_br %ours, ^own, ^next
^next:
  %after = llvm.add %slot, %one : i64
  %wrapped = llvm.and %after, %mask : i64
  %tried = llvm.add %n, %one : i64
  llvm.br ^probe(%wrapped, %tried : i64, i64)
^own:
  %cta_at = llvm.getelementptr %ctas[%slot] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
  %held = llvm.cmpxchg %cta_at, %zero, %me syncscope("device") monotonic monotonic : !llvm.ptr<1>, i32
  %holder = llvm.extractvalue %held[0] : !llvm.struct<(i32, i1)>
  %unheld = llvm.icmp "eq" %holder, %zero : i32
  %mine = llvm.icmp "eq" %holder, %me : i32
  %fine = llvm.or %unheld, %mine : i1
  %result = llvm.select %fine, %zero, %holder : i1, i32
  llvm.return %result : i32
^full:
  llvm.return %zero : i32
}}"""


def in_check_mode(fn: ir.Operation) -> bool:
    return K.CHECK_MODE in fn.attributes


class CheckSites:
    """The check sites of one kernel, in the order the lowering emits them."""

    def __init__(self):
        self.sites: list[dict] = []
        self._index: dict[tuple, int] = {}

    def site(self, check: str, message: str, op: ir.Operation) -> int:
        entry = {"check": check, "message": message, "location": where(op)}
        key = tuple(entry.values())
        if key not in self._index:
            self._index[key] = len(self.sites)
            self.sites.append(entry)
        return self._index[key]

    def annotate(self, func: ir.Operation) -> None:
        """Records the sites on the gpu.func (phobos.checks), for the launch contract."""
        if self.sites:
            func.attributes["phobos.checks"] = ir.StringAttr.get(json.dumps(self.sites))


def _as_i64(value: ir.Value) -> ir.Value:
    i64 = ir.IntegerType.get_signless(64)
    if isinstance(value.type, ir.IndexType):
        return arith.IndexCastOp(i64, value).result
    width = ir.IntegerType(value.type).width
    if width < 64:
        return arith.ExtSIOp(i64, value).result
    return value


def fail_unless(sites: CheckSites, op: ir.Operation, check: str, message: str, ok: ir.Value, value: ir.Value) -> None:
    """Where `ok` (an i1, or a vector of i1 with `value` a vector of integers of its
    length) is false, record the site and the first offending element, and exit."""
    declare_once(gpu_module_block(), FAIL, CHECKS_TEXT)
    site = sites.site(check, message, op)
    i1 = ir.IntegerType.get_signless(1)
    if isinstance(ok.type, ir.VectorType):
        all_ok = vector.ReductionOp(i1, vector.CombiningKind.AND, ok).result
    else:
        all_ok = ok
    broken = arith.XOrIOp(all_ok, arith.ConstantOp(i1, 1).result).result
    branch = scf.IfOp(broken)
    with ir.InsertionPoint(branch.then_block):
        if isinstance(ok.type, ir.VectorType):
            n = ir.VectorType(ok.type).shape[0]
            first = vector.ExtractOp(value, [], [n - 1]).result
            for j in range(n - 2, -1, -1):  # the value of the first element that fails
                good = vector.ExtractOp(ok, [], [j]).result
                first = arith.SelectOp(good, first, vector.ExtractOp(value, [], [j]).result).result
            value = first
        i32 = ir.IntegerType.get_signless(32)
        args = [arith.ConstantOp(i32, site).result, _as_i64(value)]
        llvm.CallOp(None, args, [], [], callee=ir.FlatSymbolRefAttr.get(FAIL))
        scf.YieldOp([])


def claim(sites: CheckSites, op: ir.Operation, address: ir.Value, axis: str) -> None:
    """Claims the element at `address` (index) for this CTA; another CTA's claim is an
    `overlap` failure whose value is that CTA's linear index."""
    declare_once(gpu_module_block(), CLAIM, CLAIM_TEXT)
    i32 = ir.IntegerType.get_signless(32)
    holder = llvm.CallOp(i32, [_as_i64(address)], [], [], callee=ir.FlatSymbolRefAttr.get(CLAIM)).result
    zero = arith.ConstantOp(i32, 0).result
    ok = arith.CmpIOp(arith.CmpIPredicate.eq, holder, zero).result
    other = arith.SubIOp(holder, arith.ConstantOp(i32, 1).result).result
    message = (
        f"no other CTA of the launch stores to an element this store writes (CTAs along grid axis {axis} "
        "may: tile-check-overlap); the value is the linear index (x + y * nx + z * nx * ny) of the CTA "
        "that stored there first"
    )
    fail_unless(sites, op, "overlap", message, ok, other)
