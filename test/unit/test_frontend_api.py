"""The front end's public API: compile_to_tile_ir, check_source, CompileError."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from phobos.dialect import kernel as K
from phobos.dialect import make_context
from phobos.dialect.verify import verify_tile_ir
from phobos.frontend import CompileError, check_source, compile_to_tile_ir, parse_source

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(ROOT.glob("examples/*.ph"))

SCALE = """\
@autotune(TM in [32, 64], TN in [128])
@aligned(M = TM, N = TN)
kernel scale(X: tensor<f32>[M, N], Y: tensor<f32>[M, N], alpha: f32) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var x = X[pm * TM :+ TM, pn * TN :+ TN]
  Y[pm * TM :+ TM, pn * TN :+ TN] = alpha * x
}
"""


def _kernels(module):
    return [op for op in module.body.operations if K.is_kernel(op.operation)]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_lower_to_verified_tile_ir(path):
    module = compile_to_tile_ir(path.read_text(), str(path))
    assert module.operation.verify()
    with module.context:
        assert verify_tile_ir(module.operation)
    assert len(_kernels(module)) == 1


def test_bindings_default_to_the_first_value_and_defines_override():
    # (Keep the module alive while its ops are used: MLIR frees them with it.)
    module = compile_to_tile_ir(SCALE)
    fn = _kernels(module)[0].operation
    assert K.bindings(fn) == {"TM": 32, "TN": 128}
    assert K.autotune(fn) == {"TM": [32, 64], "TN": [128]}
    assert K.aligned(fn) == {"M": 32, "N": 128}
    module = compile_to_tile_ir(SCALE, defines={"TM": 64})
    fn = _kernels(module)[0].operation
    assert K.bindings(fn) == {"TM": 64, "TN": 128}
    assert K.aligned(fn) == {"M": 64, "N": 128}
    assert "tensor<64x128xf32>" in str(fn)


def test_parameters_carry_names_and_dims():
    module = compile_to_tile_ir(SCALE)
    fn = _kernels(module)[0].operation
    assert [K.arg_name(fn, i) for i in range(3)] == ["X", "Y", "alpha"]
    assert K.arg_dims(fn, 0) == ["M", "N"] and K.arg_dims(fn, 2) is None


def test_the_caller_context_is_used():
    context = make_context()
    module = compile_to_tile_ir(SCALE, context=context)
    assert module.context is context
    # Twice in one context: no state leaks between compilations.
    compile_to_tile_ir(SCALE, context=context)


def test_locations_name_the_file():
    module = compile_to_tile_ir(SCALE, "scale.ph")
    text = module.operation.get_asm(enable_debug_info=True)
    assert 'loc("scale.ph":6:11)' in text  # the load_slice of X
    assert 'loc("scale.ph":7:3)' in text  # the store_slice into Y


def test_compile_error_lists_every_error_as_tuples():
    source = "kernel k(A: tensor<f32>[M, N]) {\n  let a = foo\n  let b = A[0 :+ M, 0 :+ 4]\n}\n"
    with pytest.raises(CompileError) as info:
        compile_to_tile_ir(source, "bad.ph")
    err = info.value
    assert err.diagnostics == [
        ("bad.ph", 2, 11, "error", "unknown identifier 'foo'"),
        ("bad.ph", 3, 18, "error", "slice length must be a compile-time constant"),
    ]
    assert str(err) == (
        "bad.ph:2:11: error: unknown identifier 'foo'\n"
        "  let a = foo\n"
        "          ^~~\n"
        "bad.ph:3:18: error: slice length must be a compile-time constant\n"
        "  let b = A[0 :+ M, 0 :+ 4]\n"
        "                 ^\n"
        "2 errors generated.\n"
    )


def test_notes_follow_their_error():
    source = "kernel k(x: f32) {\n  let a = 1\n  a = 2\n}\n"
    with pytest.raises(CompileError) as info:
        check_source(source, "n.ph")
    assert [d[3] for d in info.value.diagnostics] == ["error", "note"]
    assert info.value.diagnostics[1][1:3] == (2, 7)


def test_check_source_returns_the_annotated_tree():
    program = check_source(SCALE, "scale.ph", defines={"TM": 64})
    (kernel,) = program.kernels
    assert kernel.name == "scale"
    assert kernel.info.bindings == {"TM": 64, "TN": 128}
    assert kernel.info.space == {"TM": [32, 64], "TN": [128]}
    assert [p.name for p in kernel.info.params] == ["X", "Y", "alpha"]


def test_parse_source_reports_only_syntax():
    program = parse_source("kernel k() {\n  let a = nope\n}\n")
    assert program.kernels[0].name == "k"
    with pytest.raises(CompileError):
        parse_source("kernel k( {\n}\n")


def test_bad_defines_are_compile_errors():
    with pytest.raises(CompileError, match="is not in the @autotune space of 'TM'"):
        compile_to_tile_ir(SCALE, defines={"TM": 48})
    with pytest.raises(CompileError, match="does not name an @autotune constant"):
        compile_to_tile_ir(SCALE, defines={"TQ": 32})
    with pytest.raises(CompileError, match="must be bound to an integer"):
        compile_to_tile_ir(SCALE, defines={"TM": "32"})


def test_an_empty_file_is_an_empty_module():
    module = compile_to_tile_ir("// nothing here\n")
    assert len(module.body.operations) == 0


def test_several_kernels_in_one_file():
    source = "kernel a(x: f32) {\n}\n@launch(64)\nkernel b(y: i32) {\n}\n"
    module = compile_to_tile_ir(source)
    names = [k.operation.attributes["sym_name"] for k in _kernels(module)]
    assert [str(n) for n in names] == ['"a"', '"b"']


def test_importing_the_front_end_and_checking_needs_no_mlir():
    code = (
        "import sys\n"
        "from phobos.frontend import check_source\n"
        f"check_source({SCALE!r})\n"
        "assert not any(m == 'mlir' or m.startswith('mlir.') for m in sys.modules), 'mlir was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_exit_codes(tmp_path):
    from phobos.tools.phobos_cli import main

    good = tmp_path / "good.ph"
    good.write_text(SCALE)
    bad = tmp_path / "bad.ph"
    bad.write_text("kernel k() {\n  let a = nope\n}\n")
    out = tmp_path / "out.mlir"
    assert main(["compile", str(good), "-o", str(out)]) == 0
    assert "tile.load_slice" in out.read_text()
    assert main(["check", str(good)]) == 0
    assert main(["check", str(bad)]) == 1
    assert main(["check", str(tmp_path / "missing.ph")]) == 1
    assert main(["compile", "-D", "TM", str(good)]) == 1
    assert main(["compile", "--emit=nonsense", str(good)]) == 1
    assert main([]) == 1


def test_invalid_ir_from_a_front_end_bug_is_reported_at_the_source(monkeypatch):
    """If the front end ever built IR that tile-verify rejects, the user sees a
    located diagnostic (marked as a compiler bug), not invalid IR downstream."""
    from phobos.dialect import tile as TD
    from phobos.frontend import to_tile_ir

    def broken_tril(self, v, loc):
        return to_tile_ir.tb.Value(TD.BroadcastOp(v.value, [99, 99], loc=loc).result)

    monkeypatch.setattr(to_tile_ir.KernelEmitter, "tril", broken_tril)
    source = "kernel k(A: tensor<f32>[M, N]) {\n  let q = tril(A[0 :+ 16, 0 :+ 16])\n}\n"
    with pytest.raises(CompileError) as info:
        compile_to_tile_ir(source, "bug.ph")
    (filename, line, col, severity, message), *_ = info.value.diagnostics
    assert (filename, line, col, severity) == ("bug.ph", 2, 11, "error")
    assert message.startswith("internal compiler error: the front end built invalid tile IR: 'tile.broadcast' op")
    assert "  let q = tril(A[0 :+ 16, 0 :+ 16])\n          ^" in str(info.value)
