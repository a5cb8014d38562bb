"""The data of the access report (report/explain.py): per kernel, per global load and store,
the width, the facts that limit it, the mask, warp 0's lanes and the 128-byte lines they touch;
plain dataclasses, `KernelReport.to_json()` for tools.

Beside them, what the report's modules share: where an op sits in the source (`_where`), the
accesses of a kernel and their tiles, and `_Before`, an access as it was before
tile-elide-masks rewrote it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from mlir import ir

from phobos.analysis.access import VECTOR_BYTES
from phobos.analysis.axis_info import AxisInfoAnalysis
from phobos.analysis.kernel_facts import TensorFacts, type_facts
from phobos.diagnostics import file_location
from phobos.dialect import tile as T
from phobos.dialect.tile import is_op, ops_of

LINE_BYTES = 128

# The fact behind each kind of width limit (access.py), as the report names it.
FACT_OF_KIND = {
    "base": "alignment of the base",
    "stride": "the row stride",
    "extent": "the extent divisibility",
    "start": "contiguity of the lane-varying index (its start)",
    "contiguity": "contiguity of the lane-varying index",
    "offset-alignment": "contiguity of the lane-varying index (its run starts)",
    "mask": "the mask's constancy",
    "layout": "the kernel's layout",
}


# ----------------------------------------------------------------------------- the report


@dataclass
class Limit:
    """One fact that keeps an access narrower than it could be."""

    kind: str  # a key of FACT_OF_KIND
    fact: str
    bound: int  # the width (elements) this fact allows
    text: str


@dataclass
class MaskDim:
    """Slice form: the mask of one dimension."""

    dim: int
    extent: str  # 'M' or 128
    dropped: bool
    by: list[str] = field(default_factory=list)  # what proves it in bounds (dropped)
    why: str = ""  # the missing fact (kept)


@dataclass
class Mask:
    state: str  # "none" (no mask), "dropped", "kept", "partial" (some slice dimensions keep theirs)
    text: str
    dims: list[MaskDim] = field(default_factory=list)


@dataclass
class Term:
    """A term of an offset expression that varies along the lanes' dimension."""

    text: str
    multiplier: int | None  # None: a runtime value (multiplier_text names it)
    multiplier_text: str
    location: str | None = None


@dataclass
class Lanes:
    """How warp 0's lanes walk the tensor in one request."""

    dim: int | None  # the tile dimension neighbouring lanes walk (None: every lane holds the same elements)
    tensor_dim: int | None  # slice form: the tensor dimension (the same index); offset form: None
    stride: int | None  # elements between neighbouring values of the lane-varying index (None: a runtime value)
    stride_text: str
    lane_step: int  # tile positions between neighbouring lanes' first elements along `dim`
    strided: bool
    terms: list[Term] = field(default_factory=list)  # offset form: the lane-varying terms
    text: str = ""


@dataclass
class Lines:
    touched: int  # 128-byte lines one warp request touches
    ideal: int  # the fewest lines its bytes fit in
    bytes: int  # distinct bytes the request moves
    elements_per_lane: int
    # The request itself: per lane of warp 0, the tile coordinates of the elements of its first
    # chunk, and the element stride per tile dimension the count used (None: a runtime value,
    # each row counted as its own lines); `element_address` places each element.
    lanes: list[list[list[int]]] = field(default_factory=list)
    strides: list[int | None] = field(default_factory=list)


@dataclass
class Access:
    index: int
    op: str
    kind: str  # "load" | "store"
    form: str  # "slice" | "offset"
    location: str  # file:line:col (or "<unknown>")
    filename: str | None
    line: int
    col: int
    tensor: str
    element: str
    elem_bytes: int
    tile: list[int]
    vector_width: int  # elements per access as lowered
    vector_bytes: int
    proven_width: int  # tile-elide-masks' vector_width
    possible_width: int  # what the element size and the tile's last extent allow
    limits: list[Limit] = field(default_factory=list)
    mask: Mask | None = None
    lanes: Lanes | None = None
    lines: Lines | None = None
    notes: list[str] = field(default_factory=list)
    # The layout dimensions the tile occupies, one per tile dimension (lowering/placement.py:
    # None for a unit dimension placed nowhere); None without a layout.
    layout_dims: list[int | None] | None = None

    @property
    def narrow(self) -> bool:
        return self.vector_bytes < VECTOR_BYTES


@dataclass
class SharedBuffer:
    """Hook for the shared-memory planner (filled once it exists)."""

    name: str
    offset: int
    bytes: int
    bank_conflicts: int | None = None
    location: str | None = None


@dataclass
class Barrier:
    """Hook for the barriers the planner keeps or elides (filled once it exists)."""

    location: str
    kept: bool
    why: str = ""


@dataclass
class KernelReport:
    name: str
    location: str
    threads: int
    layout: str | None
    key: str
    assert_coalesced: bool
    accesses: list[Access] = field(default_factory=list)
    shared_buffers: list[SharedBuffer] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    # False where the lowering plans shared memory (tile.dot) that the two lists above do not show yet
    shared_memory_reported: bool = True
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


# ----------------------------------------------------------------------------- helpers


def _where(loc: ir.Location) -> tuple[str, str | None, int, int]:
    found = file_location(loc)
    if found is None:
        return "<unknown>", None, 0, 0
    filename, line, col = found
    return f"{filename}:{line}:{col}", filename, line, col


def _tile_value(op: ir.Operation) -> ir.Value:
    return op.results[0] if is_op(op, *T.LOAD_OPS) else op.operands[0]


def _base(op: ir.Operation) -> ir.Value:
    return op.opview.base


def _tensor(analysis: AxisInfoAnalysis, base: ir.Value) -> TensorFacts:
    found = analysis.tensor_argument(base)
    return found[1] if found is not None else type_facts(ir.MemRefType(base.type))


def _memory_ops(root: ir.Operation) -> list[ir.Operation]:
    return ops_of(root, T.MEMORY_OPS)


@dataclass
class _Before:
    """What an access looked like before tile-elide-masks rewrote it."""

    op: ir.Operation
    name: str  # the op's name, as the report shows it
    kind: str  # "load" | "store"
    form: str  # "slice" | "offset"
    location: ir.Location
    facts: object
    tensor: TensorFacts
    mask: Mask
    offsets: ir.Value | None
