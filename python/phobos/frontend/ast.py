"""The syntax tree of a `.ph` program.

Every node carries the source position of the token a diagnostic about it
should point at (`line`, `col`, 1-based, and the token's `length` for the
underline). The checker annotates expressions in place: `ty` (a
`phobos.frontend.types` type) and `const` (the value of a compile-time
constant, else None); names also get `symbol` (the declaration they resolve
to). to_tile_ir reads those annotations and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Pos:
    line: int
    col: int
    length: int = 1
    file: str | None = None  # set for source other than the file being compiled (the standard library)


@dataclass(eq=False)
class Node:
    pos: Pos


# ----------------------------------------------------------------------------- types


@dataclass(eq=False)
class DimRef(Node):
    """One dimension in a type: a symbol name or an integer literal."""

    name: str | None = None
    value: int | None = None

    def text(self) -> str:
        return self.name if self.name is not None else str(self.value)


@dataclass(eq=False)
class TypeRef(Node):
    """`f32`, `tensor<f32>[M, N]` or `tile<f32>[32, 32]` as written."""

    kind: str  # "scalar", "tensor" or "tile"
    element: str
    dims: list[DimRef] = field(default_factory=list)


# ----------------------------------------------------------------------------- expressions


@dataclass(eq=False)
class Expr(Node):
    # Filled in by the checker.
    def __post_init__(self):
        self.ty = None
        self.const = None


@dataclass(eq=False)
class IntLit(Expr):
    value: int


@dataclass(eq=False)
class FloatLit(Expr):
    value: float


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class StrLit(Expr):
    """A string, only as the value of a keyword argument (`sem = "acquire"`)."""

    value: str


@dataclass(eq=False)
class Name(Expr):
    name: str

    def __post_init__(self):
        super().__post_init__()
        self.symbol = None


@dataclass(eq=False)
class Unary(Expr):
    op: str  # "-" or "!"
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str  # "+", "-", "*", "/", "%", "==", ..., "&&", "||"
    lhs: Expr
    rhs: Expr


@dataclass(eq=False)
class Call(Expr):
    callee: Expr
    args: list[Expr]
    keywords: list[tuple[str, Pos, Expr]] = field(default_factory=list)  # name = value arguments, after args

    def __post_init__(self):
        super().__post_init__()
        self.builtin = None  # the builtin's name, set by the checker
        self.function = None  # the called function's instance (functions.Instance), set by the checker


@dataclass(eq=False)
class Member(Expr):
    """`base.name` (only `ctx.block.x` and friends mean something)."""

    base: Expr
    name: str

    def __post_init__(self):
        super().__post_init__()
        self.grid_query = None  # ("block" | "grid", dim), set by the checker


@dataclass(eq=False)
class Subscript(Node):
    """One subscript of a slice.

    kind "full" (`:`), "point" (`i`), "range" (`a : b`) or "span" (`s :+ n`).
    The checker sets `length` (the static extent of the slice along this
    dimension) and, for "full", the start is 0.
    """

    kind: str
    start: Expr | None = None
    end: Expr | None = None  # `b` of a range, `n` of a span

    def __post_init__(self):
        self.length = None


@dataclass(eq=False)
class Index(Expr):
    """`base[subscripts]`: a slice of a tensor parameter."""

    base: Expr
    subscripts: list[Subscript]
    bracket: Pos | None = None


# ----------------------------------------------------------------------------- statements


@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Block(Node):
    stmts: list[Stmt]


@dataclass(eq=False)
class Decl(Stmt):
    """`let x [: T] = e` or `var x [: T] = e`."""

    mutable: bool
    name: str
    type: TypeRef | None
    value: Expr

    def __post_init__(self):
        self.symbol = None


@dataclass(eq=False)
class Assign(Stmt):
    """`target op value` with op in `=`, `+=`, `-=`, `*=`; target a Name or an Index."""

    target: Name | Index
    op: str
    value: Expr
    op_pos: Pos | None = None

    def __post_init__(self):
        # For compound assignments the checker builds `target op value` here.
        self.combined = None


@dataclass(eq=False)
class For(Stmt):
    var: str
    var_pos: Pos
    start: Expr
    stop: Expr
    step: Expr | None
    body: Block

    def __post_init__(self):
        self.symbol = None


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: Block


@dataclass(eq=False)
class Break(Stmt):
    """`break`: leaves the innermost `for` or `while`."""


@dataclass(eq=False)
class Continue(Stmt):
    """`continue`: skips the rest of the innermost loop's body."""


@dataclass(eq=False)
class Return(Stmt):
    """`return [e]`: in a kernel, without a value, the CTA stops (frontend/exits.py)."""

    value: Expr | None = None


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Block
    orelse: Block | If | None = None


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr


# ----------------------------------------------------------------------------- kernels


@dataclass(eq=False)
class AttrArg(Node):
    """One argument of an attribute.

    kind "space" (`X in [a, b]`: name, values), "keyword" (`D = v`: name,
    value) or "positional" (`v`: value). A value is an IntLit, FloatLit or Name
    (a negative literal keeps its sign in the IntLit).
    """

    kind: str
    name: str | None = None
    value: Expr | None = None
    values: list[IntLit] = field(default_factory=list)


@dataclass(eq=False)
class Attribute(Node):
    name: str
    args: list[AttrArg]
    has_parens: bool = False


@dataclass(eq=False)
class Param(Node):
    name: str
    type: TypeRef


@dataclass(eq=False)
class Kernel(Node):
    name: str
    attributes: list[Attribute]
    params: list[Param]
    body: Block


@dataclass(eq=False)
class Function(Node):
    """`fn name<T, ...>(params) -> result { ... }`: inlined at every call (frontend/functions.py).

    `type_params` are the element-type parameters (`T`), usable as element types in the
    parameters, the result and the body; dimension names in the parameters' types are bound
    at each call. `doc` is the `//` comment block just above the definition."""

    name: str
    type_params: list[tuple[str, Pos]]
    params: list[Param]
    result: TypeRef
    body: Block
    doc: str = ""


@dataclass(eq=False)
class Import(Node):
    """`import std.nn`: a module of the standard library."""

    module: str


@dataclass(eq=False)
class Program(Node):
    kernels: list[Kernel]
    functions: list[Function] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)


def start_pos(e: Expr) -> Pos:
    """Where an expression starts in the source (for messages about all of it)."""
    while True:
        if isinstance(e, Binary):
            e = e.lhs
        elif isinstance(e, (Index, Member)):
            e = e.base
        elif isinstance(e, Call):
            e = e.callee
        else:
            return e.pos
