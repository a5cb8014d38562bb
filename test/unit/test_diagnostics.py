"""SourceMgr-style rendering and expected-* verification."""

from phobos.diagnostics import Diagnostic, Sources, caret_line, render
from phobos.opt.expected_diagnostics import DiagnosticVerifier


def test_render_shows_line_and_caret():
    sources = Sources()
    sources.add("k.mlir", "first\n  %x = bad\n")
    d = Diagnostic("error", "boom", "k.mlir", 2, 8, notes=[Diagnostic("note", "here", "k.mlir", 2, 8)])
    assert render(d, sources) == "k.mlir:2:8: error: boom\n  %x = bad\n       ^\nk.mlir:2:8: note: here\n"


def test_unknown_location_and_tabs():
    assert render(Diagnostic("error", "x")) == "<unknown>:0: error: x\n"
    assert caret_line("\tab", 3, 2) == "\t ^~"


def _verifier(text):
    return DiagnosticVerifier("t.mlir", text, Sources())


def test_designators():
    text = (
        "a // expected-error {{same}}\n"
        "// expected-note @below {{below}}\n"
        "// expected-remark @below {{too}}\n"
        "b\n"
        "// expected-warning @above {{above}}\n"
        "// expected-error @-5 {{minus}}\n"
    )
    v = _verifier(text)
    lines = {e.text: e.line for e in v.expectations}
    assert lines == {"same": 1, "below": 4, "too": 4, "above": 4, "minus": 1}


def test_matching_near_miss_and_unmatched():
    v = _verifier("x // expected-error-re {{value {{[0-9]+}} is}}\ny // expected-error {{oops}}\n")
    assert v.process(Diagnostic("error", "the value 42 is odd", "t.mlir", 1, 1)) is None
    near = v.process(Diagnostic("warning", "oops", "t.mlir", 2, 1))
    assert "'warning' diagnostic emitted when expecting a 'error'" in near
    assert 'expected error "oops" was not produced' in v.finish()
    assert not v.ok


def test_unexpected_diagnostic_fails():
    v = _verifier("nothing expected here\n")
    assert "unexpected error: surprise" in v.process(Diagnostic("error", "surprise", "t.mlir", 1, 1))
    assert not v.ok
