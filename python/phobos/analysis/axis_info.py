"""Axis-info analysis over tile IR: contiguity, divisibility, constancy.

    analysis = AxisInfoAnalysis(module_or_func)
    info = analysis.get(value)          # AxisInfo, or None for non-integers
    analysis.known_multiple(start)      # an exact integer dividing a scalar

The facts and their meanings are Triton's (see lattice.py); the transfer
rules are in transfer.py. This module walks the IR: every integer or index
scalar and tile (i1 included) gets facts, in program order, through
structured control flow:

  * `scf.for`: the induction variable is lb + k * step; loop-carried values
    start optimistic (their initial value alone) and are joined with what the
    body yields until nothing changes; the results are the fixed point;
  * `scf.if`: results join what both branches yield;
  * other ops with regions: their block arguments and results are unknown.

Entry facts: integer kernel arguments from `tile.divisibility` (launch-time
specialisation); `memref.dim` of a tensor parameter from its static extent,
the `@aligned` promise of its symbol and specialisation (kernel_facts.py);
`tile.block_id`/`tile.grid_dim` are unknown but non-negative (hardware ids);
`tile.hint` replaces what was computed (an unchecked user promise); a
`tile.load` of integers is constant where its offsets and mask are (Triton's
rule); other results are unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd

from mlir import ir
from mlir.dialects import arith, func, memref, scf, tensor

from phobos.dialect import tile as T
from phobos.dialect.tile import GRID_INDEX_OPS, HINT_NAMES, RESHAPE_OPS, is_op
from phobos.nesting import MAX_NESTING

from . import transfer as R
from .kernel_facts import KernelFacts, kernel_facts, lcm, pointer_alignment_facts  # noqa: F401  (re-exported)
from .lattice import AxisInfo, join

__all__ = ["AxisInfo", "AxisInfoAnalysis", "pointer_alignment_facts", "integer_shape"]

_CMP_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CASTS = {  # op class -> signed extension?
    arith.IndexCastOp: True,
    arith.ExtSIOp: True,
    arith.TruncIOp: True,
    arith.IndexCastUIOp: False,
    arith.ExtUIOp: False,
}
# The transfer rule of each binary integer op: rule(a, b, shape, width).
_BINARY: dict[type, Callable] = {
    arith.AddIOp: R.add,
    arith.SubIOp: R.sub,
    arith.MulIOp: R.mul,
    arith.DivSIOp: R.divsi,
    arith.DivUIOp: R.divui,
    arith.RemSIOp: R.remsi,
    arith.RemUIOp: R.remui,
    arith.ShLIOp: R.shli,
    arith.ShRSIOp: R.shrsi,
    arith.ShRUIOp: R.shrui,
    arith.AndIOp: R.andi,
    arith.OrIOp: R.ori,
    arith.XOrIOp: R.xori,
    arith.MinSIOp: lambda a, b, s, w: R.minmax("minsi", a, b, s, w),
    arith.MaxSIOp: lambda a, b, s, w: R.minmax("maxsi", a, b, s, w),
    arith.MinUIOp: lambda a, b, s, w: R.minmax("minui", a, b, s, w),
    arith.MaxUIOp: lambda a, b, s, w: R.minmax("maxui", a, b, s, w),
}
# Ops that are the identity of their operand when both operands are one value.
_IDEMPOTENT = (arith.AndIOp, arith.OrIOp, arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp)
# Ops whose result is 0 when both operands are one value.
_SELF_CANCELLING = (arith.SubIOp, arith.XOrIOp)
# On i1 only the bitwise ops are tracked (the others read i1 as signed).
_I1_BINARY = (arith.AndIOp, arith.OrIOp, arith.XOrIOp)
# Ops whose exact multiple is the gcd of their two operands' (known_multiple).
_GCD_OF_OPERANDS = (
    arith.AddIOp,
    arith.SubIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.MinUIOp,
    arith.MaxUIOp,
)
_FIXED_POINT_LIMIT = 256


def _width(element: ir.Type) -> int | None:
    if isinstance(element, ir.IndexType):
        return 64
    if isinstance(element, ir.IntegerType):
        return element.width
    return None


def integer_shape(t: ir.Type) -> tuple[tuple[int, ...], int] | None:
    """(shape, bit width) of an integer/index scalar ((1,)) or static tile; None otherwise."""
    if isinstance(t, ir.RankedTensorType):
        width = _width(t.element_type)
        if width is None or not t.has_static_shape or t.rank == 0:
            return None
        return tuple(t.shape), width
    width = _width(t)
    return ((1,), width) if width is not None else None


def _multiple_inputs(value: ir.Value) -> list[ir.Value]:
    """The values _exact_multiple may read the multiples of (a superset)."""
    if isinstance(value, ir.BlockArgument):
        parent = value.owner.owner
        if parent is not None and is_op(parent, scf.ForOp) and value.arg_number == 0:
            return [parent.operation.operands[0], parent.operation.operands[2]]
        return []
    op = value.owner
    return list(op.operands if isinstance(op, ir.Operation) else op.operation.operands)


def _int_attr(op, name: str) -> int:
    return ir.IntegerAttr(op.operation.attributes[name]).value


def functions_in(root) -> list[ir.Operation]:
    """`root` itself if it is a func.func, else the func.func ops it holds (not nested in each other)."""
    op = root.operation
    if is_op(op, func.FuncOp):
        return [op]
    functions = []

    def collect(o):
        if is_op(o, func.FuncOp):
            functions.append(o)
            return ir.WalkResult.SKIP
        return ir.WalkResult.ADVANCE

    op.walk(collect, ir.WalkOrder.PRE_ORDER)
    return functions


class AxisInfoAnalysis:
    """Runs the analysis on construction over every func.func in `root`
    (a module, a function, or any op holding functions)."""

    def __init__(self, root):
        self._facts: dict[ir.Value, AxisInfo] = {}
        self._kernels: dict[ir.Operation, KernelFacts] = {}
        self._multiples: dict[ir.Value, int] = {}
        self._depth = 1  # region levels of the op being visited (a kernel body is 1)
        for fn in functions_in(root):
            self._run_function(fn)

    # ------------------------------------------------------------------ queries

    def get(self, value: ir.Value) -> AxisInfo | None:
        """The facts of an integer/index scalar or tile; None for other values."""
        if value in self._facts:
            return self._facts[value]
        shaped = integer_shape(value.type)
        if shaped is None:
            return None
        return AxisInfo.unknown(len(shaped[0]))

    def kernel_facts(self, fn: ir.Operation) -> KernelFacts:
        fn = fn.operation
        if fn not in self._kernels:
            self._kernels[fn] = kernel_facts(fn)
        return self._kernels[fn]

    def tensor_argument(self, value: ir.Value):
        """(function, TensorFacts) when `value` is a memref parameter, else None."""
        if not isinstance(value, ir.BlockArgument):
            return None
        parent = value.owner.owner
        if parent is None or not is_op(parent, func.FuncOp):
            return None
        if value.owner != parent.operation.regions[0].blocks[0]:
            return None
        facts = self.kernel_facts(parent).tensors.get(value.arg_number)
        return (parent.operation, facts) if facts is not None else None

    def known_multiple(self, value: ir.Value) -> int:
        """An exact integer every element of `value` is a multiple of (0: the
        value is 0). Unlike the lattice's powers of two, this knows that
        `block_id * 96` is a multiple of 96."""
        if value not in self._multiples:
            self._fill_multiples(value)
        return self._multiples[value]

    def _fill_multiples(self, root: ir.Value) -> None:
        """known_multiple of `root` and of every value it is computed from, in
        post-order on an explicit stack: a chain of thousands of `v = v + 1`
        must not take thousands of Python frames."""
        stack = [(root, False)]
        while stack:
            value, inputs_done = stack.pop()
            if inputs_done:
                self._multiples[value] = self._multiple_of(value)
            elif value not in self._multiples:
                self._multiples[value] = 1  # until computed: cycles (loop-carried values) stay at 1
                stack.append((value, True))
                stack.extend((v, False) for v in _multiple_inputs(value) if v not in self._multiples)

    def _multiple_of(self, value: ir.Value) -> int:
        info = self.get(value)
        pow2 = info.element_divisibility() if info is not None else 1
        if info is not None and info.constant is not None:
            return abs(info.constant)
        return lcm(self._exact_multiple(value), pow2)

    # ------------------------------------------------------------------ walking

    def _set(self, value: ir.Value, info: AxisInfo | None) -> None:
        if info is not None and integer_shape(value.type) is not None:
            self._facts[value] = info

    def _set_unknown(self, values) -> None:
        for v in values:
            shaped = integer_shape(v.type)
            if shaped is not None:
                self._facts[v] = AxisInfo.unknown(len(shaped[0]))

    def _run_function(self, fn: ir.Operation) -> None:
        if not len(fn.regions[0].blocks):
            return
        facts = self.kernel_facts(fn)
        for block_index, block in enumerate(fn.regions[0].blocks):
            for arg in block.arguments:
                if integer_shape(arg.type) is None:
                    continue
                if block_index == 0 and arg.arg_number in facts.scalar_divisibility:
                    self._set(arg, AxisInfo.scalar(facts.scalar_divisibility[arg.arg_number]))
                else:
                    self._set_unknown([arg])
            self._visit_block(block)

    def _visit_block(self, block: ir.Block) -> None:
        for op in block.operations:
            self._visit(op)

    def _visit(self, op) -> None:
        if len(op.operation.regions):
            if self._depth >= MAX_NESTING:
                # Too deep to walk on the Python stack: knowing nothing is sound
                # (values without facts are unknown); the lowering refuses such kernels.
                self._set_unknown(op.operation.results)
                return
            self._depth += 1
            try:
                self._visit_op(op)
            finally:
                self._depth -= 1
        else:
            self._visit_op(op)

    def _visit_op(self, op) -> None:
        if is_op(op, scf.ForOp):
            self._visit_for(op.operation)
        elif is_op(op, scf.IfOp):
            self._visit_if(op.operation)
        elif len(op.operation.regions):
            for region in op.operation.regions:
                for block in region.blocks:
                    self._set_unknown(block.arguments)
                    self._visit_block(block)
            self._set_unknown(op.operation.results)
        else:
            results = op.operation.results
            if len(results) == 1 and integer_shape(results[0].type) is not None:
                self._set(results[0], self._transfer(op.operation))
            else:
                self._set_unknown(results)

    def _yielded(self, block: ir.Block) -> list[AxisInfo | None]:
        ops = list(block.operations)
        if not ops or not is_op(ops[-1], scf.YieldOp):
            return []
        return [self.get(v) for v in ops[-1].operation.operands]

    def _visit_for(self, op: ir.Operation) -> None:
        lower, step = op.operands[0], op.operands[2]
        inits = list(op.operands)[3:]
        body = op.regions[0].blocks[0]
        iv, carried = body.arguments[0], list(body.arguments)[1:]
        self._set(iv, R.induction_variable(self.get(lower), self.get(step)))
        state = [self.get(v) for v in inits]
        for _ in range(_FIXED_POINT_LIMIT):
            for arg, info in zip(carried, state):
                self._set(arg, info)
            self._visit_block(body)
            yielded = self._yielded(body)
            new = [join(s, y) if s is not None else None for s, y in zip(state, yielded)]
            if new == state:
                break
            state = new
        else:  # no fixed point in time (cannot happen for a finite lattice): give up soundly
            self._set_unknown(carried)
            self._visit_block(body)
            state = [self.get(a) for a in carried]
        for result, info in zip(op.results, state):
            self._set(result, info)

    def _visit_if(self, op: ir.Operation) -> None:
        branches = []
        for region in op.regions:
            if len(region.blocks):
                self._visit_block(region.blocks[0])
                branches.append(self._yielded(region.blocks[0]))
        for i, result in enumerate(op.results):
            info = None
            for yielded in branches:
                info = join(info, yielded[i] if i < len(yielded) else None)
            self._set(result, info if len(branches) == 2 else None)

    # ------------------------------------------------------------------ transfer

    def _transfer(self, op: ir.Operation) -> AxisInfo | None:
        result = op.results[0]
        shape, width = integer_shape(result.type)
        view = op.opview
        operands = list(op.operands)
        if isinstance(view, arith.ConstantOp):
            return self._constant(op, shape, width)
        binary = _BINARY.get(type(view))
        if binary is not None:
            a, b = operands
            if a == b and isinstance(view, _SELF_CANCELLING):
                return R.constant(0, shape)
            if a == b and isinstance(view, _IDEMPOTENT):
                return self.get(a)
            if width == 1 and not isinstance(view, _I1_BINARY):
                return R.elementwise(shape, self.get(a), self.get(b), 1, True)
            return binary(self.get(a), self.get(b), shape, width)
        if isinstance(view, arith.CmpIOp):
            a, b = operands
            predicate = _CMP_PREDICATES[_int_attr(op, "predicate")]
            operand_width = integer_shape(a.type)[1]
            if a == b:
                return R.constant(int(predicate in ("eq", "sle", "sge", "ule", "uge")), shape)
            return R.cmpi(predicate, self.get(a), self.get(b), shape, operand_width)
        if isinstance(view, arith.SelectOp):
            cond, a, b = operands
            if a == b:
                return self.get(a)
            return R.select(
                self.get(cond), self.get(a), self.get(b), shape, not isinstance(cond.type, ir.RankedTensorType)
            )
        signed = _CASTS.get(type(view))
        if signed is not None:
            source = operands[0]
            source_width = integer_shape(source.type)[1]
            return R.cast(self.get(source), source_width, width, signed, shape)
        return self._transfer_shaped(op, view, operands, shape)

    def _transfer_shaped(self, op: ir.Operation, view, operands: list, shape) -> AxisInfo:
        """_transfer for the ops that make, reshape or annotate values (the tile ops among them)."""
        if isinstance(view, T.RangeOp):
            return R.range_(view.start, view.end, shape)
        if isinstance(view, tensor.SplatOp):
            return R.splat(self.get(operands[0]), shape)
        if isinstance(view, T.BroadcastOp):
            source_shape = tuple(ir.RankedTensorType(operands[0].type).shape)
            return R.broadcast(self.get(operands[0]), source_shape, shape)
        if isinstance(view, T.ConvertLayoutOp):
            return self.get(operands[0])  # the same values, held by other threads
        if isinstance(view, T.TransposeOp):
            return R.transpose(self.get(operands[0]), view.permutation, shape)
        if isinstance(view, RESHAPE_OPS):
            return self._reshape(op, shape)
        if isinstance(view, memref.DimOp):
            return self._dim(op)
        if isinstance(view, T.CheckMultipleOp):
            return R.check_multiple(self.get(operands[0]), view.divisor)
        if isinstance(view, GRID_INDEX_OPS):
            return AxisInfo.scalar(1, non_negative=True)
        if isinstance(view, T.HintOp):
            return self._hint(op, shape)
        if isinstance(view, T.LoadOp):
            # One address (and one mask bit) over a group reads one value there.
            offsets = self.get(view.offsets)
            mask = self.get(view.mask) if view.mask is not None else offsets
            return R.elementwise(shape, offsets, mask, 1, False)
        return AxisInfo.unknown(len(shape))

    def _constant(self, op: ir.Operation, shape, width) -> AxisInfo:
        attr = op.attributes["value"]
        if isinstance(attr, ir.BoolAttr):
            return R.constant(int(attr.value), shape)
        if isinstance(attr, ir.IntegerAttr):
            return R.constant(R.wrap(attr.value, width), shape)
        if isinstance(attr, ir.DenseIntElementsAttr):
            if attr.is_splat:
                return R.constant(R.wrap(ir.IntegerAttr(attr.get_splat_value()).value, width), shape)
            return R.dense([R.wrap(v, width) for v in attr], shape)
        return AxisInfo.unknown(len(shape))

    def _reshape(self, op: ir.Operation, shape) -> AxisInfo:
        source = op.operands[0]
        source_shaped = integer_shape(source.type)
        if source_shaped is None:
            return AxisInfo.unknown(len(shape))
        groups = [
            [ir.IntegerAttr(i).value for i in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])
        ]
        rule = R.expand_shape if is_op(op, tensor.ExpandShapeOp) else R.collapse_shape
        return rule(self.get(source), source_shaped[0], shape, groups)

    def _dim(self, op: ir.Operation) -> AxisInfo:
        source, index = op.operands
        axis = self.get(index).constant
        found = self.tensor_argument(source)
        if isinstance(source.type, ir.MemRefType) and axis is not None and 0 <= axis < source.type.rank:
            if not source.type.is_dynamic_dim(axis):
                return R.constant(source.type.get_dim_size(axis), (1,))
            if found is not None:
                multiple = found[1].extent_multiple[axis]
                return AxisInfo.scalar(R.pow2_part(multiple) if multiple else 1, non_negative=True)
        return AxisInfo.scalar(1, non_negative=True)

    def _hint(self, op: ir.Operation, shape) -> AxisInfo:
        facts = {}
        for name in HINT_NAMES:
            values = op.opview.facts(name)
            # malformed hints are tile-verify's business; here they are ignored
            if values is not None and len(values) == len(shape) and all(v > 0 for v in values):
                facts[name] = values
        return R.hint(self.get(op.operands[0]), shape, **facts)

    # ------------------------------------------------------------------ exact multiples

    def _exact_multiple(self, value: ir.Value) -> int:
        """known_multiple's rules on the defining op (before the lattice joins in)."""
        if isinstance(value, ir.BlockArgument):
            parent = value.owner.owner
            if parent is not None and is_op(parent, scf.ForOp) and value.arg_number == 0:
                lower, step = parent.operation.operands[0], parent.operation.operands[2]
                return gcd(self._multiples[lower], self._multiples[step])
            return 1
        op = value.owner
        if not isinstance(op, ir.Operation):
            op = op.operation
        view = op.opview
        operands = list(op.operands)
        m = self._multiples.__getitem__  # every input is done (_fill_multiples)
        if isinstance(view, _GCD_OF_OPERANDS):
            return gcd(m(operands[0]), m(operands[1]))
        if isinstance(view, arith.SelectOp):
            return gcd(m(operands[1]), m(operands[2]))
        if isinstance(view, arith.MulIOp):
            return m(operands[0]) * m(operands[1])
        if isinstance(view, arith.ShLIOp):
            k = self.get(operands[1]).constant
            return m(operands[0]) << k if k is not None and 0 <= k < 63 else m(operands[0])
        if isinstance(view, arith.DivSIOp):
            divisor = self.get(operands[1]).constant
            dividend = m(operands[0])
            if divisor and dividend % divisor == 0:
                return abs(dividend // divisor)
            return 1
        if isinstance(view, (arith.IndexCastOp, arith.ExtSIOp, tensor.SplatOp, T.BroadcastOp)):
            return m(operands[0])
        if isinstance(view, T.CheckMultipleOp):
            return lcm(m(operands[0]), view.divisor)
        if isinstance(view, T.HintOp):  # the hinted divisibility joins in through the lattice
            return m(operands[0])
        if isinstance(view, memref.DimOp):
            axis = self.get(operands[1]).constant
            found = self.tensor_argument(operands[0])
            if found is not None and axis is not None and 0 <= axis < found[1].rank:
                return found[1].extent_multiple[axis]
        return 1
