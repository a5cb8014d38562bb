"""8-bit operands on mma.sync m16n8k32: i8 into i32, f8e4m3 / f8e5m2 into f32.

The facts (k step, PTX types, the instruction, what the chip needs) and the
pieces of the emitter that differ from the 16-bit path (ops/dot_mma.py):

  * fragments (fragments.MMA8_A / MMA8_B): a .b32 register holds four
    elements consecutive along k, so `ldmatrix` (which moves 16-bit units
    and never transposes bytes) gives the A fragment from a buffer stored
    [m][k] and the B fragment from one stored [n][k] (dot_t), exactly as
    it gives the 16-bit ones, with the k offsets of its matrices doubled;
  * a buffer stored along the output dimension ([k][n]: the B of a plain
    `dot`; [k][m]: a transposed A) is read with byte loads, each thread its
    fragment's 8 (B) or 16 (A) elements, packed into registers. Staging it
    transposed instead would need a transposing copy: no cp.async (16-byte
    chunks along the tensor's rows), so no `@pipeline` ring. The byte loads
    keep the ring and are bank-conflict free on padded rows (a warp reads 4
    rows x 8 bytes per load); `dot_t` is the fast form and the contract
    says which one a dot uses;
  * i8 runs `nvvm.mma.sync` (s8, wrapping: the interpreter's integer dot
    wraps too), u8 (a dot marked tile.unsigned) the same with u8; MLIR 22's
    nvvm.mma.sync refuses e4m3 / e5m2 at m16n8k32, so fp8 is the PTX
    instruction as inline assembly. ptxas takes fp8 mma
    from sm_89 and PTX ISA 8.4 only (checked: .version 8.3 is refused), so
    fp8 on the tensor cores needs `--features +ptx84`.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, memref, nvvm, vector

from phobos.dialect.fp8 import FP8_TYPES
from phobos.dialect.tile import dot_unsigned
from phobos.target import chip_number

K_STEP8 = 32
FP8_MMA_SM = 89
FP8_MMA_PTX = 84


def is_eight_bit(elem: ir.Type) -> bool:
    """Whether `elem` is an operand type of mma.sync m16n8k32 (i8 or an fp8 type)."""
    return (isinstance(elem, ir.IntegerType) and elem.width == 8) or isinstance(elem, FP8_TYPES)


def is_fp8(elem: ir.Type) -> bool:
    return isinstance(elem, FP8_TYPES)


def ptx_type(elem: ir.Type) -> str:
    if isinstance(elem, ir.Float8E4M3FNType):
        return "e4m3"
    if isinstance(elem, ir.Float8E5M2Type):
        return "e5m2"
    return "u8" if ir.IntegerType(elem).is_unsigned else "s8"


def operand_element(dot: ir.Operation) -> ir.Type:
    """The element type a dot's instruction multiplies: its operands', or ui8 where the operands are
    u8 (tile.unsigned: the IR's i8 is signless). For instruction names only; buffers stay i8."""
    if dot_unsigned(dot):
        return ir.IntegerType.get_unsigned(8)
    return ir.RankedTensorType(dot.operands[0].type).element_type


def instruction(a: ir.Type, b: ir.Type) -> str:
    """The PTX instruction of a dot of `a` x `b` operands (is_eight_bit)."""
    acc = "f32" if is_fp8(a) else "s32"
    return f"mma.sync.aligned.m16n8k32.row.col.{acc}.{ptx_type(a)}.{ptx_type(b)}.{acc}"


def operand_reads(role: str, contiguous_out: bool) -> str:
    """How the emitter reads an 8-bit operand buffer (the contract's words)."""
    if not contiguous_out:
        return "ldmatrix"
    if role == "lhs":
        return "byte loads (stored [k][m]; [m][k] takes ldmatrix)"
    return "byte loads (stored [k][n]; dot_t's [n][k] takes ldmatrix)"


def fp8_refusal(chip: str, ptx: int) -> str | None:
    """Why fp8 mma.sync cannot run for `chip` with PTX ISA `ptx` (x10), or None."""
    if chip_number(chip) < FP8_MMA_SM:
        return (
            f"fp8 operands on the tensor cores need mma.sync with e4m3/e5m2, which needs sm_89 or later; "
            f"the target is {chip} (convert the operands to f16)"
        )
    if ptx < FP8_MMA_PTX:
        return (
            f"fp8 mma.sync needs PTX ISA {FP8_MMA_PTX // 10}.{FP8_MMA_PTX % 10}: "
            f"compile with the features +ptx{FP8_MMA_PTX}"
        )
    return None


# Fragment element (register, byte) -> offsets from (g, 4 t) along (out, k): the
# PTX ISA tables of m16n8k32 (fragments.MMA8_A / MMA8_B state the same maps).
def a_offsets(register: int, byte: int) -> tuple[int, int]:
    return 8 * (register % 2), 16 * (register // 2) + byte


def b_offsets(register: int, byte: int) -> tuple[int, int]:
    return 0, 16 * register + byte


def byte_fragment(ctx, view, at, lane, out0, k0: int, count: int, offsets, ld: int) -> list:
    """The `count` registers of a fragment read byte by byte from a buffer stored
    [k][out] (row length `ld`): element (register, byte) is at out0 + g + d_out,
    k0 + 4 t + d_k for offsets(register, byte) = (d_out, d_k); `at` adds the stage."""
    g = ctx.at_entry(lambda: arith.DivUIOp(lane, ctx.index(4)).result)
    t4 = ctx.at_entry(lambda: arith.MulIOp(arith.RemUIOp(lane, ctx.index(4)).result, ctx.index(4)).result)
    out_g = arith.AddIOp(out0, g).result
    i8 = ir.IntegerType.get_signless(8)
    words = []
    for register in range(count):
        parts = []
        for byte in range(4):
            d_out, d_k = offsets(register, byte)
            k = arith.AddIOp(t4, ctx.index(k0 + d_k)).result
            col = arith.AddIOp(out_g, ctx.index(d_out)).result
            idx = arith.AddIOp(arith.MulIOp(k, ctx.index(ld)).result, col).result
            parts.append(memref.LoadOp(view, [at(idx)]).result)
        words.append(_word(vector.FromElementsOp(ir.VectorType.get([4], i8), parts).result))
    return words


def _word(four: ir.Value) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return vector.ExtractOp(vector.BitCastOp(ir.VectorType.get([1], i32), four).result, [], [0]).result


def ldmatrix_words(frag: ir.Value, first: int, count: int) -> list:
    """Rows first .. first + count - 1 of an ldmatrix result (vector<N x 4 x i8>) as i32 registers."""
    return [_word(vector.ExtractOp(frag, [], [first + x]).result) for x in range(count)]


def mma(a_words: list, b_words: list, c: ir.Value, a: ir.Type, b: ir.Type) -> ir.Value:
    """One m16n8k32 on a C fragment `c` (vector<2x2 x i32 or f32>), returned in the same form."""
    acc = ir.VectorType(c.type).element_type
    cs = [vector.ExtractOp(c, [], [h, x]).result for h in range(2) for x in range(2)]
    struct = ir.Type.parse(f"!llvm.struct<({acc}, {acc}, {acc}, {acc})>")
    if is_fp8(a):
        text = f"{instruction(a, b)} {{$0, $1, $2, $3}}, {{$4, $5, $6, $7}}, {{$8, $9}}, {{$10, $11, $12, $13}};"
        constraints = ",".join(["=f"] * 4 + ["r"] * 6 + ["0", "1", "2", "3"])
        d = llvm.InlineAsmOp(struct, [*a_words, *b_words, *cs], text, constraints).result
    else:
        int8 = ir.Attribute.parse(f"#nvvm.mma_type<{ptx_type(a)}>")  # s8, or u8
        d = nvvm.MmaOp(
            struct,
            ir.Attribute.parse("#nvvm.shape<m = 16, n = 8, k = 32>"),
            ir.Attribute.parse("#nvvm.mma_layout<row>"),
            ir.Attribute.parse("#nvvm.mma_layout<col>"),
            a_words,
            b_words,
            cs,
            multiplicandAPtxType=int8,
            multiplicandBPtxType=int8,
            intOverflowBehavior=ir.Attribute.parse("#nvvm.mma_int_overflow<wrapped>"),
        ).result
    parts = [llvm.ExtractValueOp(acc, d, [x]).result for x in range(4)]
    rows = [vector.FromElementsOp(ir.VectorType.get([2], acc), parts[2 * h : 2 * h + 2]).result for h in range(2)]
    return _two_rows(c.type, rows)


def _two_rows(t: ir.Type, rows: list) -> ir.Value:
    out = vector.BroadcastOp(t, vector.ExtractOp(rows[0], [], [0]).result).result
    for h in range(2):
        out = vector.InsertOp(rows[h], out, [], [h]).result
    return out
