"""Element types and kernel parameter types of the builder, and their names in the language."""

from __future__ import annotations

from mlir import ir


class ScalarType:
    """A scalar element type by name (`f32`, `i32`, ...), built in the active context."""

    _BUILDERS = {
        "f16": lambda: ir.F16Type.get(),
        "bf16": lambda: ir.BF16Type.get(),
        "f32": lambda: ir.F32Type.get(),
        "f64": lambda: ir.F64Type.get(),
        "f8e4m3": lambda: ir.Float8E4M3FNType.get(),  # storage and conversion only (phobos.fp8)
        "f8e5m2": lambda: ir.Float8E5M2Type.get(),
        "i1": lambda: ir.IntegerType.get_signless(1),
        "bool": lambda: ir.IntegerType.get_signless(1),
        "i8": lambda: ir.IntegerType.get_signless(8),
        "u8": lambda: ir.IntegerType.get_signless(8),  # unsigned: the ops say so (phobos.elements.UNSIGNED)
        "i16": lambda: ir.IntegerType.get_signless(16),
        "i32": lambda: ir.IntegerType.get_signless(32),
        "u32": lambda: ir.IntegerType.get_signless(32),
        "i64": lambda: ir.IntegerType.get_signless(64),
        "index": lambda: ir.IndexType.get(),
    }

    def __init__(self, name: str):
        if name not in self._BUILDERS:
            raise ValueError(f"unknown scalar type '{name}'; expected one of {', '.join(self._BUILDERS)}")
        self.name = name

    def mlir(self) -> ir.Type:
        return self._BUILDERS[self.name]()

    def __repr__(self) -> str:
        return self.name


f16, bf16, f32, f64 = ScalarType("f16"), ScalarType("bf16"), ScalarType("f32"), ScalarType("f64")
f8e4m3, f8e5m2 = ScalarType("f8e4m3"), ScalarType("f8e5m2")
i1, i8, i16, i32, i64 = ScalarType("i1"), ScalarType("i8"), ScalarType("i16"), ScalarType("i32"), ScalarType("i64")
index = ScalarType("index")


class Tensor:
    """A global tensor parameter: `Tensor(f32, "M", "N")` is a row-major
    `memref<?x?xf32>` whose extents are the symbols M and N (an int gives a
    static extent). `static` gives symbols a compile-time extent (e.g. an
    @autotune constant): the memref dimension is static, the symbol stays
    in tile.dims."""

    def __init__(self, element: ScalarType, *dims: str | int, static: dict[str, int] | None = None):
        if not dims:
            raise ValueError("a tensor parameter needs at least one dimension")
        self.element = element
        self.dims = list(dims)
        self.static = dict(static or {})

    def mlir(self) -> ir.Type:
        dynamic = ir.ShapedType.get_dynamic_size()
        shape = [d if isinstance(d, int) else self.static.get(d, dynamic) for d in self.dims]
        return ir.MemRefType.get(shape, self.element.mlir())

    def dim_names(self) -> list[str]:
        return [str(d) for d in self.dims]


def element_type_of(t: ir.Type) -> ir.Type:
    return ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t


def is_float(t: ir.Type) -> bool:
    return isinstance(element_type_of(t), ir.FloatType)


def is_fp8(t: ir.Type) -> bool:
    return isinstance(element_type_of(t), (ir.Float8E4M3FNType, ir.Float8E5M2Type))


def refuse_fp8(what: str, *values) -> None:
    """Raises TypeError where one of `values` (IR values) holds fp8 elements: fp8 is for storage and conversion."""
    for v in values:
        t = getattr(v, "type", None)
        if t is not None and is_fp8(t):
            raise TypeError(
                f"{what} is not defined on {element_name(t)} values: fp8 types are for storage and conversion; "
                f"convert to f32 first (tb.cast(x, tb.f32))"
            )


def is_tile(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType)


def element_name(t: ir.Type) -> str:
    """The language's name of the element type of `t` (`i1` is `bool`)."""
    e = element_type_of(t)
    if isinstance(e, ir.IndexType):
        return "index"
    if isinstance(e, ir.IntegerType):
        return "bool" if e.width == 1 else f"i{e.width}"
    if isinstance(e, ir.Float8E4M3FNType):
        return "f8e4m3"
    if isinstance(e, ir.Float8E5M2Type):
        return "f8e5m2"
    return str(e)


def as_mlir_element(to: ScalarType | ir.Type | str) -> ir.Type:
    """An element type given as a ScalarType, a name or an MLIR type."""
    if isinstance(to, str):
        to = ScalarType(to)
    return to.mlir() if isinstance(to, ScalarType) else element_type_of(to)


def with_element(t: ir.Type, element: ir.Type) -> ir.Type:
    """`t`'s shape (a tile's, or none for a scalar) with another element type."""
    return ir.RankedTensorType.get(list(ir.RankedTensorType(t).shape), element) if is_tile(t) else element
