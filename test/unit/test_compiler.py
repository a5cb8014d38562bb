"""The compile driver, the artifact and the contract (no GPU needed).

compile_artifact must give an ELF cubin (ptxas from nvidia-cuda-nvcc-cu12)
and a contract that follows the schema the runtime codes against; bad chips
and kernels the lowering cannot handle must be CompileErrors with located
diagnostics, never crashes.
"""

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("mlir")

from phobos.compiler import CompileError, compile_artifact, compile_stages  # noqa: E402
from phobos.contract.artifact import Artifact, ContractError, validate_contract  # noqa: E402
from phobos.target import TargetError, check_target, toolkit_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
needs_ptxas = pytest.mark.skipif(toolkit_dir() is None, reason="ptxas (nvidia-cuda-nvcc-cu12) is not installed")

SAXPY = """
func.func @saxpy(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
                 %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
                 %a: f32 {tile.name = "a"}) attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pid32 = arith.index_cast %pid : index to i32
  %c512 = arith.constant 512 : i32
  %start = arith.muli %pid32, %c512 : i32
  %r = "tile.range"() {start = 0 : i64, end = 512 : i64} : () -> tensor<512xi32>
  %s = tensor.splat %start : tensor<512xi32>
  %offs = arith.addi %s, %r : tensor<512xi32>
  %n32 = arith.index_cast %n : index to i32
  %ns = tensor.splat %n32 : tensor<512xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<512xi32>
  %x = "tile.load"(%X, %offs, %mask) : (memref<?xf32>, tensor<512xi32>, tensor<512xi1>) -> tensor<512xf32>
  %y = "tile.load"(%Y, %offs, %mask) : (memref<?xf32>, tensor<512xi32>, tensor<512xi1>) -> tensor<512xf32>
  %as = tensor.splat %a : tensor<512xf32>
  %ax = arith.mulf %as, %x : tensor<512xf32>
  %z = arith.addf %ax, %y : tensor<512xf32>
  "tile.store"(%z, %Y, %offs, %mask) : (tensor<512xf32>, memref<?xf32>, tensor<512xi32>, tensor<512xi1>) -> ()
  return
}
"""

DOT = """
func.func @gemm(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "K"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x32xf32>
  %s = "tile.scan"(%a) {kind = "sum", axis = 1 : i64} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  "tile.grid_barrier"() : () -> ()
  %d = "tile.dot"(%a, %a, %s) : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  "tile.store_slice"(%d, %A, %c0, %c0) : (tensor<32x32xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
"""


# ----------------------------------------------------------------------------- artifacts


@needs_ptxas
def test_scale_mlir_gives_an_elf_cubin_and_a_valid_contract():
    art = compile_artifact(str(ROOT / "examples" / "scale.mlir"))
    assert art.cubin[:4] == b"\x7fELF"
    c = art.contract
    validate_contract(c)
    assert (c["kernel"], c["name"], c["chip"], c["threads"], c["shared_bytes"]) == ("scale", "scale", "sm_90", 256, 0)
    assert [p["name"] for p in c["params"]] == ["X", "Y", "alpha"]
    x = c["params"][0]
    assert (x["kind"], x["dtype"], x["rank"], x["dims"], x["shape"], x["contiguity"]) == (
        "tensor",
        "f32",
        2,
        ["M", "N"],
        [None, None],
        "last",
    )
    assert x["access"] == "read" and c["params"][1]["access"] == "write"
    assert c["params"][2] == {"name": "alpha", "kind": "scalar", "dtype": "f32"}
    # X: pointer, M, N (each symbol once), its row stride; Y: pointer, its row stride; alpha.
    assert c["abi"] == [
        {"kind": "ptr", "param": 0},
        {"kind": "extent", "param": 0, "axis": 0},
        {"kind": "extent", "param": 0, "axis": 1},
        {"kind": "stride", "param": 0, "axis": 0},
        {"kind": "ptr", "param": 1},
        {"kind": "stride", "param": 1, "axis": 0},
        {"kind": "scalar", "param": 2},
    ]
    assert c["grid"] == [{"symbol": "M", "tile": 32}, {"symbol": "N", "tile": 128}, 1]
    assert c["promises"] == [{"symbol": "M", "divisor": 32}, {"symbol": "N", "divisor": 128}]
    assert c["key"] == "" and len(c["fingerprint"]) == 16
    assert set(art.asm) == {"tile", "gpu", "llvm", "ptx"}
    assert ".visible .entry scale(" in art.asm["ptx"]
    json.dumps(c)  # plain JSON


@needs_ptxas
def test_ph_source_goes_through_the_front_end():
    art = compile_artifact(str(ROOT / "examples" / "saxpy.ph"), defines={"BLOCK": 1024})
    c = art.contract
    assert c["bindings"] == {"BLOCK": 1024}
    assert c["grid"] == [{"symbol": "N", "tile": 1024}, 1, 1]
    assert c["params"][1]["access"] == "readwrite"
    assert art.cubin[:4] == b"\x7fELF"


@needs_ptxas
def test_offset_form_grid_comes_from_the_mask_compare():
    art = compile_artifact(SAXPY, options={"tag": "x"})
    c = art.contract
    assert c["grid"] == [{"symbol": "N", "tile": 512}, 1, 1]
    assert c["threads"] == 128 and c["options"] == {"tag": "x"}
    assert ".maxntid 128, 1, 1" in art.asm["ptx"]


@needs_ptxas
def test_offset_form_tensors_of_rank_2_must_be_packed():
    """tile.load/tile.store address a tensor by flat row-major offsets: its contract asks for
    full contiguity (no padded rows); 1-D tensors and the slice form keep 'last'."""
    c = compile_artifact(str(ROOT / "bench" / "kernels" / "scale_offsets.mlir")).contract
    validate_contract(c)
    assert [p.get("contiguity") for p in c["params"]] == ["all", "all", None]
    assert [p["contiguity"] for p in compile_artifact(SAXPY).contract["params"][:2]] == ["last", "last"]
    bad = dict(c, params=[dict(c["params"][0], contiguity="rows")] + c["params"][1:])
    with pytest.raises(ContractError, match=r"params\[0\].contiguity must be 'last' or 'all'"):
        validate_contract(bad)


def test_a_module_from_the_builder_compiles(tmp_path):
    from phobos import builder as tb

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):

            @tb.kernel(aligned={"N": 256})
            def double(X: tb.Tensor(tb.f64, "N"), Y: tb.Tensor(tb.f64, "N")):
                s = tb.block_id(0) * 256
                tb.store_slice(Y, [s], tb.load_slice(X, [s], [256]) * 2.0)

        stages = compile_stages(module)
    assert "gpu.func @double" in stages["gpu"]
    assert "trap;" in stages["ptx"]


def test_stages_follow_the_key_and_chip():
    stages = compile_stages(
        str(ROOT / "examples" / "scale.mlir"), chip="sm_80", key="X=a16.e16x16.s16;Y=a16.e16x16.s16"
    )
    assert ".target sm_80" in stages["ptx"]
    assert '#nvvm.target<chip = "sm_80", features = "+ptx80">' in stages["gpu"]
    assert "tile.divisibility = array<i64: 16, 16>" in stages["tile"]  # the key's facts, before the gpu stage
    assert "vector<4xf32>" in stages["gpu"]  # which give 16-byte accesses


@needs_ptxas
def test_artifact_save_and_load_round_trip(tmp_path):
    art = compile_artifact(SAXPY)
    cubin_path, json_path = art.save(tmp_path)
    assert cubin_path.name == "saxpy.cubin" and json_path.name == "saxpy.json"
    assert sorted(os.listdir(tmp_path)) == ["saxpy.cubin", "saxpy.json"]  # no temporaries left
    back = Artifact.load(tmp_path, "saxpy")
    assert back.cubin == art.cubin and back.contract == art.contract


@needs_ptxas
def test_artifact_repr_is_a_short_summary():
    art = compile_artifact(SAXPY)
    text = repr(art)
    assert len(text) < 200, text  # not the cubin and every stage's text
    assert text.startswith("<phobos.Artifact saxpy for sm_") and "key generic" in text
    assert f"cubin {len(art.cubin)} bytes" in text and "ptx" in text


def test_contract_validation_names_the_field():
    contract = {
        "format": 1,
        "kernel": "k",
        "name": "k",
        "chip": "sm_90",
        "threads": 256,
        "shared_bytes": 0,
        "params": [{"name": "x", "kind": "scalar", "dtype": "f32"}],
        "abi": [{"kind": "ptr", "param": 0}],
        "grid": [1, 1, 1],
        "promises": [],
        "bindings": {},
        "key": "",
        "fingerprint": "f",
        "options": {},
    }
    with pytest.raises(ContractError, match=r"abi\[0\] \(ptr\) must refer to a tensor parameter"):
        validate_contract(contract)


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "chip, message",
    [
        ("sm_60", "chip 'sm_60' is not supported: Phobos needs sm_70 or newer"),
        ("sm_91", "chip 'sm_91' is not known to the toolchain"),
        ("gfx90a", "invalid chip 'gfx90a'"),
    ],
)
def test_bad_chip_is_a_clear_error(chip, message):
    with pytest.raises(CompileError, match=message):
        compile_stages(SAXPY, chip=chip)


def test_features_are_checked_before_llvm_runs():
    with pytest.raises(CompileError, match=r"'\+ptx78' are too old for sm_90: it needs \+ptx80"):
        compile_stages(SAXPY, options={"features": "+ptx78"})
    with pytest.raises(CompileError, match="newer than the toolkit's ptxas"):
        compile_stages(SAXPY, options={"features": "+ptx99"})
    assert check_target("sm_90a") == "+ptx80"
    assert check_target("sm_100") == "+ptx86"
    with pytest.raises(TargetError):
        check_target("sm_90", "ptx80")


def test_unsupported_op_is_a_located_error_naming_it():
    with pytest.raises(CompileError) as info:
        compile_stages(DOT)
    errors = [d for d in info.value.diagnostics if d[3] == "error"]
    assert len(errors) == 1
    filename, line, col, _, message = errors[0]
    assert message == (
        "tile.grid_barrier needs a tile.persistent kernel (@persistent): only a grid whose CTAs are "
        "all resident at once can wait for each other"
    )
    assert (filename, line) == ("<text>", 6)
    assert "tile.grid_barrier" in DOT.split("\n")[line - 1]


def test_dot_reading_one_tile_as_both_operands_and_accumulator():
    """A tile the dot reads twice (and adds) cannot be staged straight from memory: it goes
    through registers, and the module lowers to PTX."""
    src = DOT.replace(
        '  %s = "tile.scan"(%a) {kind = "sum", axis = 1 : i64} : (tensor<32x32xf32>) -> tensor<32x32xf32>\n', ""
    )
    src = src.replace("(%a, %a, %s)", "(%a, %a, %a)").replace('  "tile.grid_barrier"() : () -> ()\n', "")
    ptx = compile_stages(src, until="ptx")["ptx"]
    assert "fma.rn.f32" in ptx and "bar.sync" in ptx


def test_unsupported_dtype_is_a_located_error():
    # f8E4M3FNUZ: an fp8 format Phobos does not take (its f8e4m3 is f8E4M3FN)
    tile = "tensor<32x32xf8E4M3FNUZ>"
    src = DOT.replace("f32", "f8E4M3FNUZ").replace(
        f'%d = "tile.dot"(%a, %a, %s) : ({tile}, {tile}, {tile}) -> {tile}\n', ""
    )
    src = src.replace("%d, %A", "%a, %A")
    with pytest.raises(CompileError, match="element type f8E4M3FNUZ"):
        compile_stages(src)


def test_kernel_selection():
    two = SAXPY + SAXPY.replace("@saxpy", "@saxpy2")
    with pytest.raises(CompileError, match=r"several kernels \(saxpy, saxpy2\)"):
        compile_stages(two)
    with pytest.raises(CompileError, match="no kernel 'nope'"):
        compile_stages(two, kernel="nope")
    stages = compile_stages(two, kernel="saxpy2")
    assert ".entry saxpy2(" in stages["ptx"] and ".entry saxpy(" not in stages["ptx"]


def test_invalid_input_is_reported_not_raised_raw():
    with pytest.raises(CompileError, match="expected"):
        compile_stages("func.func @k( {")
    with pytest.raises(CompileError, match="no tile kernel"):
        compile_stages("func.func @k() { return }")
    with pytest.raises(CompileError, match="invalid specialisation key"):
        compile_stages(SAXPY, key="X=bogus")


# ----------------------------------------------------------------------------- grid rules


def _grid(text):
    from mlir import ir

    from phobos.analysis.abi import describe_params
    from phobos.analysis.grid import infer_grid
    from phobos.dialect import kernel as K
    from phobos.dialect import make_context

    with make_context():
        module = ir.Module.parse(text)
        fn = next(op.operation for op in module.body.operations if K.is_kernel(op.operation))
        return infer_grid(fn, describe_params(fn))


def test_grid_rules():
    # A static extent gives a number; an unused axis is 1.
    static = """
func.func @k(%X: memref<100x?xf32> {tile.name = "X", tile.dims = ["100", "N"]}) attributes {tile.kernel} {
  %b0 = "tile.block_id"() {dim = 0 : i64} : () -> index
  %b2 = "tile.block_id"() {dim = 2 : i64} : () -> index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r = arith.muli %b0, %c16 : index
  %c = arith.muli %c64, %b2 : index
  %x = "tile.load_slice"(%X, %r, %c) : (memref<100x?xf32>, index, index) -> tensor<16x64xf32>
  return
}"""
    assert _grid(static) == [7, 1, {"symbol": "N", "tile": 64}]
    # A block index used in a way no rule matches: the caller must give the grid.
    opaque = """
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %b0 = "tile.block_id"() {dim = 0 : i64} : () -> index
  %b1 = "tile.block_id"() {dim = 1 : i64} : () -> index
  %s = arith.addi %b0, %b1 : index
  %x = "tile.load_slice"(%X, %s) : (memref<?xf32>, index) -> tensor<64xf32>
  return
}"""
    assert _grid(opaque) == [None, None, 1]
    # Two uses of one axis that disagree.
    clash = """
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
             %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["K"]}) attributes {tile.kernel} {
  %b0 = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c64 = arith.constant 64 : index
  %s = arith.muli %b0, %c64 : index
  %x = "tile.load_slice"(%X, %s) : (memref<?xf32>, index) -> tensor<64xf32>
  "tile.store_slice"(%x, %Y, %s) : (tensor<64xf32>, memref<?xf32>, index) -> ()
  return
}"""
    assert _grid(clash) == [None, 1, 1]
    # Offset form, 1-D, without a mask: the offsets themselves give the rule.
    assert _grid(SAXPY.replace(", %mask)", ")").replace(", tensor<512xi1>)", ")")) == [
        {"symbol": "N", "tile": 512},
        1,
        1,
    ]


def test_launch_order_follows_the_contiguous_dimension():
    from mlir import ir

    from phobos.analysis.abi import describe_params
    from phobos.analysis.grid import contiguous_block_dim
    from phobos.dialect import kernel as K
    from phobos.dialect import make_context

    def fast(text):
        with make_context():
            module = ir.Module.parse(text)
            fn = next(op.operation for op in module.body.operations if K.is_kernel(op.operation))
            return contiguous_block_dim(fn, describe_params(fn))

    scale = (ROOT / "examples" / "scale.mlir").read_text()
    assert fast(scale) == 1  # block_id(1) picks column tiles: renumber CTAs
    swapped = scale.replace("{dim = 0 : i64}", "{dim = 2 : i64}").replace("{dim = 1 : i64}", "{dim = 0 : i64}")
    assert fast(swapped.replace("{dim = 2 : i64}", "{dim = 1 : i64}")) is None  # x already walks the columns
    assert fast(SAXPY) is None  # 1-D
    assert fast(scale.replace("tile.kernel", "tile.kernel, tile.persistent")) is None


def test_grouped_launch_order_only_where_ctas_of_different_columns_share_an_operand():
    # ops/grid_index.py walks dot kernels in groups of GROUP_M row tiles by every column tile,
    # which pays where CTAs of different block_id(1) share an operand (a GEMM's row of A). In
    # attention block_id(1) is the head, read by Q, K and V alike: hardware order there keeps
    # one head's K and V in L2 (the grouped order spread 132 resident CTAs over 16 heads).
    from phobos.analysis.grid import dot_operands_shared_across_y
    from phobos.dialect import kernel as K
    from phobos.frontend import compile_to_tile_ir

    def shared(path, defines):
        module = compile_to_tile_ir((ROOT / "examples" / path).read_text(), path, defines=defines)
        kernel = next(op.operation for op in module.body.operations if K.is_kernel(op.operation))
        return dot_operands_shared_across_y(kernel)

    gemm = {"TM": 128, "TN": 128, "TK": 32, "W": 256}
    assert shared("tensorcore_f16.ph", gemm)  # A's row tile is the same for every column tile
    assert not shared("attention_f16.ph", {"BM": 64, "BN": 64, "D": 64, "W": 128})
    assert not shared("saxpy.ph", {"BLOCK": 1024})  # no dot
