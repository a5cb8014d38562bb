"""The op classes' accessors are derived from tile.irdl.mlir: every declared
operand, attribute and result is an accessor, and on a parsed op of each kind
they give the right values (a generator that drops or mis-slices a group fails
here)."""

from types import SimpleNamespace

import pytest
from mlir import ir

from phobos.dialect import make_context
from phobos.dialect import tile as T
from phobos.dialect.definition import OPTIONAL, SINGLE, TILE_OPS, VARIADIC, Group, OpDefinition, segment_layout

MODULE = """
func.func @k(%X: memref<?x?xf32>, %F: memref<?xf32>, %i: index, %j: index, %t: tensor<4x8xf32>,
             %row: tensor<1x8xf32>, %o: tensor<16xi32>, %m: tensor<16xi1>, %v: tensor<16xf32>,
             %a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>,
             %x: tensor<16xindex>) attributes {tile.kernel} {
  %0 = "tile.block_id"() {dim = 1 : i64} : () -> index
  %1 = "tile.grid_dim"() {dim = 2 : i64} : () -> index
  %2 = "tile.range"() {start = 3 : i64, end = 19 : i64} : () -> tensor<16xi32>
  %3 = "tile.broadcast"(%row) : (tensor<1x8xf32>) -> tensor<4x8xf32>
  %4 = "tile.transpose"(%t) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %cv = "tile.convert_layout"(%t) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = "tile.load_slice"(%X, %i, %j) : (memref<?x?xf32>, index, index) -> tensor<4x8xf32>
  "tile.store_slice"(%t, %X, %i, %j) {in_bounds = array<i1: true, false>}
      : (tensor<4x8xf32>, memref<?x?xf32>, index, index) -> ()
  %6 = "tile.load"(%F, %o) : (memref<?xf32>, tensor<16xi32>) -> tensor<16xf32>
  %7 = "tile.load"(%F, %o, %m) : (memref<?xf32>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xf32>
  "tile.store"(%v, %F, %o) : (tensor<16xf32>, memref<?xf32>, tensor<16xi32>) -> ()
  "tile.store"(%v, %F, %o, %m) : (tensor<16xf32>, memref<?xf32>, tensor<16xi32>, tensor<16xi1>) -> ()
  %8 = "tile.dot"(%a, %b, %c) : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %9 = "tile.reduce"(%t) {kind = "max", axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  %10 = "tile.scan"(%v) {kind = "sum", axis = 0 : i64} : (tensor<16xf32>) -> tensor<16xf32>
  %11 = "tile.hint"(%o) {divisibility = array<i64: 16>} : (tensor<16xi32>) -> tensor<16xi32>
  %12 = "tile.check_multiple"(%i) {divisor = 16 : i64, symbol = "M"} : (index) -> index
  "tile.check"(%m, %o) {check = "mask", message = "dropped"} : (tensor<16xi1>, tensor<16xi32>) -> ()
  "tile.barrier"() : () -> ()
  "tile.grid_barrier"() : () -> ()
  %13 = "tile.atomic_rmw"(%v, %F, %o, %m) {kind = "add", sem = "relaxed", scope = "gpu"}
      : (tensor<16xf32>, memref<?xf32>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xf32>
  %14 = "tile.atomic_cas"(%v, %13, %F, %o) {sem = "acquire", scope = "cta"}
      : (tensor<16xf32>, tensor<16xf32>, memref<?xf32>, tensor<16xi32>) -> tensor<16xf32>
  %15 = "tile.local_rmw"(%13, %v, %x, %m) {kind = "max"}
      : (tensor<16xf32>, tensor<16xf32>, tensor<16xindex>, tensor<16xi1>) -> tensor<16xf32>
  return
}
"""


class Operand:
    """Expected: the op's operand number `index`."""

    def __init__(self, index):
        self.index = index


class Result:
    """Expected: the op's result number `index`."""

    def __init__(self, index):
        self.index = index


# One entry per tile op of MODULE, in order: the value every declared accessor must give.
EXPECTED = [
    ("tile.block_id", {"dim": 1, "id": Result(0)}),
    ("tile.grid_dim", {"dim": 2, "size": Result(0)}),
    ("tile.range", {"start": 3, "end": 19, "result": Result(0)}),
    ("tile.broadcast", {"source": Operand(0), "result": Result(0)}),
    ("tile.transpose", {"source": Operand(0), "permutation": [1, 0], "result": Result(0)}),
    ("tile.convert_layout", {"source": Operand(0), "result": Result(0)}),
    ("tile.load_slice", {"base": Operand(0), "starts": [Operand(1), Operand(2)], "result": Result(0)}),
    ("tile.store_slice", {"value": Operand(0), "base": Operand(1), "starts": [Operand(2), Operand(3)]}),
    ("tile.load", {"base": Operand(0), "offsets": Operand(1), "mask": None, "result": Result(0)}),
    ("tile.load", {"base": Operand(0), "offsets": Operand(1), "mask": Operand(2), "result": Result(0)}),
    ("tile.store", {"value": Operand(0), "base": Operand(1), "offsets": Operand(2), "mask": None}),
    ("tile.store", {"value": Operand(0), "base": Operand(1), "offsets": Operand(2), "mask": Operand(3)}),
    ("tile.dot", {"lhs": Operand(0), "rhs": Operand(1), "acc": Operand(2), "result": Result(0)}),
    ("tile.reduce", {"source": Operand(0), "kind": "max", "axis": 1, "result": Result(0)}),
    ("tile.scan", {"source": Operand(0), "kind": "sum", "axis": 0, "result": Result(0)}),
    ("tile.hint", {"value": Operand(0), "result": Result(0)}),
    ("tile.check_multiple", {"value": Operand(0), "divisor": 16, "symbol": "M", "result": Result(0)}),
    ("tile.check", {"condition": Operand(0), "value": Operand(1), "check": "mask", "message": "dropped"}),
    ("tile.barrier", {}),
    ("tile.grid_barrier", {}),
    (
        "tile.atomic_rmw",
        {
            "value": Operand(0),
            "base": Operand(1),
            "offsets": Operand(2),
            "mask": Operand(3),
            "kind": "add",
            "sem": "relaxed",
            "scope": "gpu",
            "result": Result(0),
        },
    ),
    (
        "tile.atomic_cas",
        {
            "compare": Operand(0),
            "value": Operand(1),
            "base": Operand(2),
            "offsets": Operand(3),
            "mask": None,
            "sem": "acquire",
            "scope": "cta",
            "result": Result(0),
        },
    ),
    (
        "tile.local_rmw",
        {
            "tile": Operand(0),
            "value": Operand(1),
            "offsets": Operand(2),
            "mask": Operand(3),
            "kind": "max",
            "result": Result(0),
        },
    ),
]


def declared_names(definition: OpDefinition):
    return {g.name for g in definition.operands + definition.results} | set(definition.attributes)


def resolve(op: ir.Operation, expected):
    if isinstance(expected, Operand):
        return op.operands[expected.index]
    if isinstance(expected, Result):
        return op.results[expected.index]
    if isinstance(expected, list):
        return [resolve(op, e) for e in expected]
    return expected


@pytest.fixture(scope="module")
def tile_ops():
    context = make_context()
    with context, ir.Location.unknown():
        module = ir.Module.parse(MODULE)
        body = module.body.operations[0].regions[0].blocks[0]
        yield [op.operation for op in body.operations if op.operation.name.startswith("tile.")]


def test_every_ir_op_has_an_expectation():
    assert {name for name, _ in EXPECTED} == set(TILE_OPS)
    for name, expected in EXPECTED:
        assert set(expected) == declared_names(TILE_OPS[name]), name


@pytest.mark.parametrize("name", sorted(TILE_OPS))
def test_every_declared_name_is_an_accessor(name):
    cls = next(c for c in vars(T).values() if isinstance(c, type) and getattr(c, "OPERATION_NAME", None) == name)
    for accessor in declared_names(TILE_OPS[name]):
        assert isinstance(getattr(cls, accessor), property), f"{cls.__name__}.{accessor}"


def test_parsed_ops_give_the_declared_values(tile_ops):
    assert [op.name for op in tile_ops] == [name for name, _ in EXPECTED]
    for op, (name, expected) in zip(tile_ops, EXPECTED):
        view = op.opview
        assert type(view).OPERATION_NAME == name
        for accessor, value in expected.items():
            got = getattr(view, accessor)
            assert type(got) is type(resolve(op, value)), f"{name}.{accessor}"
            assert got == resolve(op, value), f"{name}.{accessor}"


def test_hand_written_extras(tile_ops):
    by_name = {}
    for op in tile_ops:
        by_name.setdefault(op.name, op.opview)
    assert by_name["tile.load_slice"].in_bounds == [False, False]
    assert by_name["tile.store_slice"].in_bounds == [True, False]
    assert by_name["tile.hint"].facts("divisibility") == [16]
    assert by_name["tile.hint"].facts("contiguity") is None


def test_constructors_and_accessors_agree(tile_ops):
    parsed = [op.opview for op in tile_ops if op.name == "tile.load"][-1]
    base, offsets, mask = parsed.base, parsed.offsets, parsed.mask
    with parsed.context, ir.Location.unknown(), ir.InsertionPoint(parsed):
        unmasked = T.LoadOp(base, offsets)
        masked = T.LoadOp(base, offsets, mask)
    assert (unmasked.base, unmasked.offsets, unmasked.mask) == (base, offsets, None)
    assert (masked.base, masked.offsets, masked.mask) == (base, offsets, mask)


def test_several_flexible_groups_are_sliced_by_segment_sizes():
    definition = OpDefinition("test.op", (Group("a", OPTIONAL), Group("b", SINGLE), Group("c", VARIADIC)), (), ())
    derived = T.accessors(definition)
    with ir.Context():
        for values, sizes, expected in (
            (["b"], [0, 1, 0], (None, "b", [])),
            (["a", "b", "c0", "c1"], [1, 1, 2], ("a", "b", ["c0", "c1"])),
            (["b", "c0"], [0, 1, 1], (None, "b", ["c0"])),
        ):
            attributes = {"operandSegmentSizes": ir.DenseI32ArrayAttr.get(sizes)}
            view = SimpleNamespace(operation=SimpleNamespace(operands=values, results=[], attributes=attributes))
            assert tuple(derived[n].__get__(view) for n in "abc") == expected


def test_one_flexible_group_takes_what_the_single_ones_leave():
    groups = (Group("value", SINGLE), Group("starts", VARIADIC), Group("base", SINGLE))
    assert segment_layout(groups, 4, None) == [range(0, 1), range(1, 3), range(3, 4)]
    optional = (Group("base", SINGLE), Group("mask", OPTIONAL))
    assert segment_layout(optional, 1, None) == [range(0, 1), range(1, 1)]
    with pytest.raises(ValueError):
        segment_layout(optional, 3, None)
    with pytest.raises(ValueError):
        segment_layout((Group("a", OPTIONAL), Group("b", VARIADIC)), 2, None)


def test_a_hand_written_accessor_that_restates_irdl_is_refused():
    class Restating(T._TileOp):
        OPERATION_NAME = "tile.load"

        @property
        def base(self):
            return self.operation.operands[0]

    with pytest.raises(TypeError, match="restates"):
        T._irdl_op(Restating)


PADDED = """
func.func @k(%X: memref<?x?xf32>, %H: memref<?xf16>, %I: memref<?xi8>, %B: memref<?xi1>, %i: index,
             %o: tensor<16xi32>, %m: tensor<16xi1>) attributes {tile.kernel} {
  %0 = "tile.load_slice"(%X, %i, %i) {padding = 0xFF800000 : f32} : (memref<?x?xf32>, index, index) -> tensor<4x8xf32>
  %1 = "tile.load_slice"(%X, %i, %i) : (memref<?x?xf32>, index, index) -> tensor<4x8xf32>
  %2 = "tile.load"(%H, %o, %m) {padding = -2.5 : f16} : (memref<?xf16>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xf16>
  %3 = "tile.load"(%I, %o, %m) {padding = -128 : i8} : (memref<?xi8>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xi8>
  %4 = "tile.load"(%B, %o, %m) {padding = true} : (memref<?xi1>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xi1>
  %5 = "tile.load"(%I, %o, %m) : (memref<?xi8>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xi8>
  return
}
"""


def test_padding_reads_as_a_python_number_or_none():
    with make_context():
        module = ir.Module.parse(PADDED)
        body = module.body.operations[0].regions[0].blocks[0]
        views = [op.opview for op in body.operations if op.operation.name.startswith("tile.")]
        got = [v.padding for v in views]
        assert got == [float("-inf"), None, -2.5, -128, 1, None]
        assert [type(g) for g in got] == [float, type(None), float, int, int, type(None)]


def test_constructors_record_padding_in_the_element_type():
    with make_context():
        module = ir.Module.parse(PADDED)
        body = module.body.operations[0].regions[0].blocks[0]
        x, h, bytes_, flags, i, o, m = body.arguments
        first = next(iter(body.operations))
        with ir.Location.unknown(), ir.InsertionPoint(first):
            sliced = T.LoadSliceOp(x, [i, i], [4, 8], padding=float("-inf"))
            half = T.LoadOp(h, o, m, padding=1e30)  # rounded to f16: infinity
            small = T.LoadOp(bytes_, o, m, padding=-3)
            flag = T.LoadOp(flags, o, m, padding=True)
            plain = T.LoadOp(bytes_, o, m)
            with pytest.raises(ValueError, match="does not fit i8"):
                T.LoadOp(bytes_, o, m, padding=200)
            with pytest.raises(ValueError, match="not an integer"):
                T.LoadOp(bytes_, o, m, padding=0.5)
        assert str(sliced.operation.attributes["padding"]) == "0xFF800000 : f32"
        assert (sliced.padding, half.padding, small.padding, flag.padding, plain.padding) == (
            float("-inf"),
            float("inf"),
            -3,
            1,
            None,
        )
        assert str(small.operation.attributes["padding"]) == "-3 : i8"
