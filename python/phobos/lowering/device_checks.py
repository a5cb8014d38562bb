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

from phobos.contract.check_record import RECORD, RECORD_WORDS, VALUE_WORD
from phobos.dialect import kernel as K
from phobos.lowering.ir_helpers import declare_once, gpu_module_block, where

FAIL = "__phobos_check_fail"
POLL = "__phobos_check_poll"

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
