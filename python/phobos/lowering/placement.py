"""Where each tile of a kernel sits in the kernel's layout.

The kernel has one blocked layout of rank R (the largest tile rank). A tile of
rank r <= R occupies r of the R layout dimensions (`dims`, increasing); the
others are unit dimensions, so the tile is held like an R-rank tile with
extent 1 there (Triton's slice layouts). Its *placed shape* is that R-rank
shape; the lowering computes registers from it.

Rank-R tiles sit at dims 0..R-1. Values that must share a placement are
unified: the operands and results of elementwise ops, broadcasts, hints and
memory ops, loop-carried values and branch results. `tensor.expand_shape`
and `tensor.collapse_shape` (which add or remove unit dimensions) relate the
placements of their source and result, and so does `tile.reduce` (its result
keeps the source's dims less the reduced one); `tile.transpose` moves data
between threads, so its source and result are placed independently. What
stays unknown is aligned to the trailing dimensions, as NumPy broadcasting
does. Where a tile has extent 1 its placement does not matter (every thread
holds that coordinate), so two placements that give the same placed shape are
the same. A tile that would need two
placements (one 1-D range used both as rows and as columns) needs a layout
conversion: tile-convert-layouts inserts a tile.convert_layout (placed on
its own, like a transpose) where this analysis reports a PlacementConflict.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func, scf, tensor

from phobos.dialect import tile as T
from phobos.dialect.tile import is_op
from phobos.lowering.errors import LoweringError


class PlacementConflict(LoweringError):
    """One value needed in two placements: `value` (an operand or result of
    `op`) was placed as `old` and `op` needs it as `new`. tile-convert-layouts
    resolves it with a tile.convert_layout; reaching the lowering, it is an error."""

    def __init__(self, op: ir.Operation, value: ir.Value, old, new):
        super().__init__(
            op,
            f"this tile would be needed in two layouts (its dimensions placed as {list(old)} and as "
            f"{list(new)}) and no tile.convert_layout moves it (tile-convert-layouts inserts them)",
        )
        self.value = value


def _tile(value: ir.Value) -> ir.RankedTensorType | None:
    t = value.type
    return t if isinstance(t, ir.RankedTensorType) else None


def _known_tile(value: ir.Value) -> ir.RankedTensorType:
    """The type of a value known to be a tile (one `_note` collected, or a reshape's)."""
    t = _tile(value)
    assert t is not None, "not a tile"
    return t


class _UnionFind:
    def __init__(self):
        self.parent: dict[ir.Value, ir.Value] = {}

    def find(self, v: ir.Value) -> ir.Value:
        self.parent.setdefault(v, v)
        root = v
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[v] != root:
            self.parent[v], v = root, self.parent[v]
        return root

    def union(self, a: ir.Value, b: ir.Value) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _group_positions(op: ir.Operation, small: ir.RankedTensorType, big: ir.RankedTensorType) -> list[int]:
    """For a reshape between `small` and `big` that only adds/removes unit
    dims: the position in `big` of each dimension of `small`."""
    groups = [list(ir.ArrayAttr(g)) for g in ir.ArrayAttr(op.attributes["reassociation"])]
    groups = [[ir.IntegerAttr(i).value for i in g] for g in groups]
    positions = []
    for i, group in enumerate(groups):
        extent = small.shape[i]
        real = [j for j in group if big.shape[j] != 1]
        if len(real) > 1 or (real and big.shape[real[0]] != extent):
            raise LoweringError(
                op, "reshapes other than adding or removing unit dimensions are not supported by tile-lower-to-gpu yet"
            )
        positions.append(real[0] if real else group[-1])
    return positions


def _tile_types(kernel: ir.Operation) -> list[ir.RankedTensorType]:
    found = []

    def visit(op):
        for v in list(op.results) + list(op.operands):
            if _tile(v) is not None:
                found.append(_tile(v))
        return ir.WalkResult.ADVANCE

    kernel.walk(visit)
    return found


def _needs_2d(kernel: ir.Operation) -> bool:
    found = []

    def visit(op):
        if is_op(op, T.DotOp, T.TransposeOp):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    kernel.walk(visit)
    return bool(found)


def layout_rank(kernel: ir.Operation) -> int:
    """The rank of the kernel's layout: its largest tile rank, except that a
    kernel with 2-D work (a dot or a transpose) whose higher-rank tiles all have
    unit dimensions to spare (`Q[h, i :+ BM, 0 :+ D]` reads a [1, BM, D] tile)
    gets a 2-D layout, and those unit dimensions are placed nowhere."""
    types = _tile_types(kernel)
    top = max((t.rank for t in types), default=0)
    if top > 2 and _needs_2d(kernel):
        if all(sum(1 for s in t.shape if s == 1) >= t.rank - 2 for t in types if t.rank > 2):
            return 2
    return top


def kept_positions(shape, rank: int) -> list[int]:
    """The dimensions of `shape` left when its leading unit dimensions are
    dropped until at most `rank` remain."""
    kept = list(range(len(shape)))
    i = 0
    while len(kept) > rank and i < len(kept):
        if shape[kept[i]] == 1:
            del kept[i]
        else:
            i += 1
    return kept


def unit_dims_dropped(shape, rank: int) -> tuple[int, ...]:
    """`shape` with its leading unit dimensions dropped until it has at most `rank` dimensions."""
    return tuple(shape[j] for j in kept_positions(shape, rank))


class Placement:
    """Computes `dims` for every tile value of one kernel (None for a unit
    dimension placed nowhere, see layout_rank)."""

    def __init__(self, kernel: ir.Operation):
        self.kernel = kernel
        self.uf = _UnionFind()
        self.reshapes: list[tuple[ir.Operation, ir.Value, ir.Value, list[int]]] = []
        self.reductions: list[tuple[ir.Operation, ir.Value, ir.Value, int]] = []
        self.values: list[ir.Value] = []
        self.rank = 0
        self._collect(kernel.regions[0])
        self.rank = layout_rank(kernel)
        self.dims: dict[ir.Value, tuple[int | None, ...]] = {}
        self._solve()

    # ------------------------------------------------------------------ constraints

    def _note(self, v: ir.Value) -> None:
        t = _tile(v)
        if t is not None:
            self.values.append(v)
            self.rank = max(self.rank, t.rank)
            self.uf.find(v)

    def _same(self, values) -> None:
        tiles = [v for v in values if _tile(v) is not None]
        for a, b in zip(tiles, tiles[1:]):
            if _known_tile(a).rank == _known_tile(b).rank:
                self.uf.union(a, b)

    def _collect(self, region: ir.Region) -> None:
        for block in region.blocks:
            for arg in block.arguments:
                self._note(arg)
            for op in [o.operation for o in block.operations]:
                for r in op.results:
                    self._note(r)
                self._constrain(op)
                for inner in op.regions:
                    self._collect(inner)

    def _constrain(self, op: ir.Operation) -> None:
        if is_op(op, tensor.ExpandShapeOp, tensor.CollapseShapeOp):
            src, res = op.operands[0], op.results[0]
            small, big = (src, res) if is_op(op, tensor.ExpandShapeOp) else (res, src)
            positions = _group_positions(op, _tile(small), _tile(big))
            self.reshapes.append((op, small, big, positions))
        elif is_op(op, scf.ForOp):
            body = op.regions[0].blocks[0]
            inits = list(op.operands)[3:]
            yields = list(list(body.operations)[-1].operands)
            for init, arg, y, res in zip(inits, list(body.arguments)[1:], yields, op.results):
                self._same([init, arg, y, res])
        elif is_op(op, scf.WhileOp):
            # what enters each region, what it passes on and what leaves the loop share a placement
            before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
            passed = list(list(before.operations)[-1].operands)[1:]  # scf.condition's, after its flag
            yields = list(list(after.operations)[-1].operands)
            for init, arg, y in zip(op.operands, before.arguments, yields):
                self._same([init, arg, y])
            for p, arg, res in zip(passed, after.arguments, op.results):
                self._same([p, arg, res])
        elif is_op(op, scf.IfOp):
            for region in op.regions:
                if len(region.blocks):
                    yields = list(list(region.blocks[0].operations)[-1].operands)
                    for y, res in zip(yields, op.results):
                        self._same([y, res])
        elif is_op(op, T.ReduceOp):
            if _tile(op.results[0]) is not None:
                axis = ir.IntegerAttr(op.attributes["axis"]).value
                self.reductions.append((op, op.operands[0], op.results[0], axis))
        elif is_op(op, scf.YieldOp, scf.ConditionOp, func.ReturnOp, T.CheckMultipleOp):
            pass
        elif is_op(op, T.TransposeOp, T.ConvertLayoutOp):
            pass  # a transpose or a layout conversion moves data between threads: placed independently
        elif is_op(op, *T.LOCAL_OPS):
            # through shared memory: the local tile and its update in one placement, the updates in another
            self._same([op.operands[0], op.results[0]])
            self._same(list(op.operands)[1:])
        else:
            # Elementwise ops, broadcasts, hints, memory ops: all tiles of an
            # op share one placement (their shapes differ only in unit dims).
            self._same(list(op.operands) + list(op.results))

    # ------------------------------------------------------------------ solving

    def _assign(self, v: ir.Value, dims: tuple[int | None, ...], op: ir.Operation | None) -> bool:
        root = self.uf.find(v)
        old = self.dims.get(root)
        if old is None:
            self.dims[root] = dims
            return True
        if old != dims and self._shape(v, old) != self._shape(v, dims):
            raise PlacementConflict(op if op is not None else self.kernel, v, old, dims)
        return False

    def _solve(self) -> None:
        R = self.rank
        for v in self.values:
            if _known_tile(v).rank == R:
                self._assign(v, tuple(range(R)), v.owner if isinstance(v, ir.OpResult) else None)
        changed = True
        while changed:
            changed = False
            for op, small, big, positions in self.reshapes:
                big_dims = self.dims.get(self.uf.find(big))
                small_dims = self.dims.get(self.uf.find(small))
                if big_dims is not None:
                    changed |= self._assign(small, tuple(big_dims[p] for p in positions), op)
                elif small_dims is not None:
                    derived = self._widen_reshaped(small, small_dims, positions, _known_tile(big).shape)
                    if derived is None:
                        raise LoweringError(op, "cannot place the reshaped tile in the kernel's layout")
                    changed |= self._assign(big, derived, op)
            for op, src, res, axis in self.reductions:
                src_dims = self.dims.get(self.uf.find(src))
                if src_dims is not None:
                    changed |= self._assign(res, src_dims[:axis] + src_dims[axis + 1 :], op)
        for v in self.values:
            root = self.uf.find(v)
            if root not in self.dims:
                t = _known_tile(v)
                if t.rank <= R:
                    self.dims[root] = tuple(range(R - t.rank, R))
                else:
                    kept = kept_positions(t.shape, R)
                    self.dims[root] = tuple(kept.index(j) if j in kept else None for j in range(t.rank))

    def _widen_reshaped(self, small, small_dims, positions, big_shape) -> tuple[int | None, ...] | None:
        """Dims of the bigger tile of a reshape: the smaller tile's dims where they stay
        in increasing order, else only those of its extents other than 1. A dimension
        of extent 1 is held whole by every thread wherever it sits, so moving it keeps
        the placed shape. (rowsum of a [1, C] tile at layout dims 0, 2: the [1] sum sits
        at dim 0, and its expansion to [1, 1] puts that dimension after a new one,
        which no layout dim below 0 can take.)"""
        kept = dict(zip(positions, small_dims))
        derived = self._widen(kept, big_shape)
        if derived is None:
            extents = _known_tile(small).shape
            derived = self._widen({p: d for p, d, e in zip(positions, small_dims, extents) if e != 1}, big_shape)
        return derived

    def _widen(self, known: dict[int, int | None], big_shape) -> tuple[int | None, ...] | None:
        """Dims of the bigger tile: the `known` ones (position -> layout dim), the
        other dims filled with free layout dims in increasing order (or placed
        nowhere when none is left); None when they cannot increase."""
        free = [d for d in range(self.rank) if d not in known.values()]
        result = []
        for j in range(len(big_shape)):
            if j in known:
                result.append(known[j])
            else:
                placed = [d for d in result if d is not None]
                lower = placed[-1] if placed else -1
                candidates = [d for d in free if d > lower and d not in result]
                if candidates:
                    result.append(candidates[0])
                elif big_shape[j] == 1:
                    result.append(None)
                else:
                    return None
        placed = [d for d in result if d is not None]
        return tuple(result) if all(a < b for a, b in zip(placed, placed[1:])) else None

    # ------------------------------------------------------------------ queries

    def dims_of(self, v: ir.Value) -> tuple[int | None, ...]:
        return self.dims[self.uf.find(v)]

    def placed_shape(self, v: ir.Value) -> tuple[int, ...]:
        """The R-rank shape the tile is held as (unit extents where it has no dim)."""
        return self._shape(v, self.dims_of(v))

    def _shape(self, v: ir.Value, dims: tuple[int | None, ...]) -> tuple[int, ...]:
        shape = [1] * self.rank
        for d, extent in zip(dims, _known_tile(v).shape):
            if d is not None:
                shape[d] = extent
        return tuple(shape)
