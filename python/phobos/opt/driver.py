"""phobos-opt: mlir-opt with the tile dialect and the Phobos passes.

`main` picks one of two ways (route.py). A command line that names no Phobos
pass runs the upstream mlir-opt binary with the tile dialect loaded
(upstream.py), so it behaves exactly as mlir-opt. One that names a Phobos pass
runs here, in-process: it reads MLIR (a file or stdin), runs a pass pipeline
that may mix Phobos Python passes with upstream passes, and prints the result.
This path supports the common driver flags (`_parser`); any other mlir-opt
flag is refused by name. Help and version text come from help.py. Errors are
located diagnostics on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys

_PROG = "phobos-opt"

_BOOL_FLAGS = {
    "allow-unregistered-dialect": "allow_unregistered_dialect",
    "mlir-print-debuginfo": "print_debuginfo",
    "mlir-pretty-debuginfo": "pretty_debuginfo",
    "mlir-print-op-generic": "print_op_generic",
    "mlir-print-local-scope": "print_local_scope",
    "mlir-print-ir-after-all": "print_ir_after_all",
    "mlir-print-ir-before-all": "print_ir_before_all",
    "mlir-print-ir-after-change": "print_ir_after_change",
    "mlir-print-ir-after-failure": "print_ir_after_failure",
    "mlir-print-ir-module-scope": "print_ir_module_scope",
    "mlir-disable-threading": "disable_threading",
    "verify-each": "verify_each",
    "emit-bytecode": "emit_bytecode",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=_PROG,
        description="MLIR modular optimizer driver with the Phobos tile dialect and passes.",
        add_help=False,
        allow_abbrev=False,  # LLVM's cl takes no abbreviations
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin, the default)")
    p.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file ('-' for stdout, the default)")
    p.add_argument(
        "--pass-pipeline",
        "-p",
        metavar="PIPELINE",
        help="a textual pass pipeline, e.g. 'builtin.module(tile-verify,canonicalize)'",
    )
    p.add_argument(
        "--split-input-file",
        default=None,
        metavar="MARKER",
        help="split the input at lines starting with MARKER (default '// -----') and process each chunk",
    )
    p.add_argument(
        "--output-split-marker",
        default="// -----",
        metavar="MARKER",
        help="the marker printed between the outputs of split chunks",
    )
    p.add_argument(
        "--verify-diagnostics",
        default=None,
        choices=["all", "only-expected"],
        help="check that diagnostics match the expected-* comments of the input",
    )
    p.add_argument(
        "--mlir-elide-elementsattrs-if-larger",
        type=int,
        default=None,
        metavar="N",
        help="elide elements attributes with more than N elements",
    )
    p.add_argument(
        "--mlir-print-ir-tree-dir", default=None, metavar="DIR", help="print the IR dumps to a file tree under DIR"
    )
    for flag, dest in _BOOL_FLAGS.items():
        default = dest == "verify_each"
        p.add_argument(
            f"--{flag}",
            dest=dest,
            default=str(default).lower(),
            choices=["true", "false", "1", "0"],
            help=argparse.SUPPRESS,
        )
    return p


# Flags whose value is optional and, as in LLVM's cl, only given after '='.
_OPTIONAL_VALUE = {
    "split-input-file": "// -----",
    "verify-diagnostics": "all",
    **{flag: "true" for flag in _BOOL_FLAGS},
}


def _normalize(argv: list[str]) -> list[str]:
    """LLVM's cl accepts -flag and --flag alike and takes optional values only
    after '='; rewrite to what argparse understands."""
    out = []
    for a in argv:
        if re.match(r"^-[A-Za-z][\w.-]+", a) and not a.startswith("--") and not re.match(r"^-o.", a):
            a = "-" + a
        if a.startswith("--") and a[2:] in _OPTIONAL_VALUE:
            a = f"{a}={_OPTIONAL_VALUE[a[2:]]}"
        out.append(a)
    return out


def _split(text: str, marker: str) -> list[tuple]:
    """(chunk text, first line number) of each chunk; markers are whole lines."""
    chunks, current, first = [], [], 1
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(marker) and line[len(marker) :].strip() == "":
            chunks.append(("\n".join(current), first))
            current, first = [], i + 2
        else:
            current.append(line)
    chunks.append(("\n".join(current), first))
    return chunks


def _bool(value: str) -> bool:
    return value in ("true", "1")


class _Driver:
    def __init__(self, args, pipeline: str | None, input_name: str, text: str):
        from phobos.diagnostics import Sources
        from phobos.opt.expected_diagnostics import DiagnosticVerifier

        self.args = args
        self.pipeline = pipeline
        self.name = input_name
        self.sources = Sources()
        self.sources.add(input_name, text)
        self.verifier = DiagnosticVerifier(input_name, text, self.sources)
        self.verify_mode = args.verify_diagnostics is not None

    def verifier_ok_after_finish(self) -> bool:
        return self.verifier.ok

    def finish(self) -> None:
        self.unmatched_report = self.verifier.finish()

    def report(self, infos) -> None:
        from phobos.diagnostics import from_mlir

        for info in infos:
            self.report_one(from_mlir(info, {"-": self.name}))
        sys.stderr.flush()

    def report_one(self, diag) -> None:
        """One diagnostic (phobos.diagnostics.Diagnostic): printed, or matched in verify mode."""
        from phobos.diagnostics import render

        if self.verify_mode:
            # mlir-opt does not attach the op to diagnostics in this mode.
            diag.notes = [n for n in diag.notes if not n.message.startswith("see current operation:")]
            text = self.verifier.process(diag)
            if text and self.args.verify_diagnostics == "all":
                sys.stderr.write(text)
        else:
            sys.stderr.write(render(diag, self.sources))

    def enable_ir_printing(self, pm) -> None:
        """--mlir-print-ir-* as mlir-opt reads them."""
        args = self.args
        flags = ("print_ir_after_all", "print_ir_before_all", "print_ir_after_change", "print_ir_after_failure")
        if not any(_bool(getattr(args, f)) for f in flags):
            return
        tree_dir = args.mlir_print_ir_tree_dir
        tree = {"tree_printing_dir_path": tree_dir} if tree_dir else {}
        pm.enable_ir_printing(
            print_before_all=_bool(args.print_ir_before_all),
            print_after_all=_bool(args.print_ir_after_all),
            print_module_scope=_bool(args.print_ir_module_scope),
            print_after_change=_bool(args.print_ir_after_change),
            print_after_failure=_bool(args.print_ir_after_failure),
            large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
            enable_debug_info=_bool(args.print_debuginfo),
            print_generic_op_form=_bool(args.print_op_generic),
            **tree,
        )

    def run_chunk(self, chunk, first_line: int) -> bytes | None:
        """The printed (or bytecode) result of one chunk, or None when it failed."""
        from mlir import ir

        from phobos.analysis.abi import ParamError
        from phobos.compiler.pass_manager import PipelineError, build_pass_manager, check_module
        from phobos.diagnostics import Collector
        from phobos.dialect import make_context

        args = self.args
        context = make_context()
        context.allow_unregistered_dialects = _bool(args.allow_unregistered_dialect)
        if _bool(args.disable_threading):
            context.enable_multithreading(False)
        collector = Collector(context)
        try:
            with context:
                try:
                    # Leading newlines keep the file's line numbers in a split chunk.
                    source = chunk if isinstance(chunk, bytes) else "\n" * (first_line - 1) + chunk
                    if self.name.endswith(".ph") and isinstance(source, str):
                        module = _front_end(source, self.name, context)  # .ph: the front end's tile IR
                        if module is None:
                            return None
                    else:
                        module = ir.Module.parse(source)
                except ir.MLIRError:
                    self.report(collector.take())
                    return None
                _rename_locations(module, "-", self.name)
                if self.pipeline:
                    try:
                        pm = build_pass_manager(self.pipeline, context)
                        check_module(module, self.pipeline)
                    except PipelineError as e:
                        self.report(collector.take())
                        sys.stderr.write(f"<unknown>:0: error: {e}\n")
                        raise _Fatal() from None
                    pm.enable_verifier(_bool(args.verify_each))
                    self.enable_ir_printing(pm)
                    sys.stderr.flush()
                    try:
                        pm.run(module.operation)
                    except ir.MLIRError:
                        sys.stderr.flush()
                        self.report(collector.take())
                        return None
                    except ParamError as e:  # a pass read a parameter type the ABI cannot carry
                        sys.stderr.flush()
                        self.report(collector.take())
                        self.report_one(e.diagnostic({"-": self.name}))
                        sys.stderr.flush()
                        return None
                    sys.stderr.flush()
                self.report(collector.take())
                if _bool(args.emit_bytecode):
                    out = io.BytesIO()
                    module.operation.write_bytecode(out)
                    return out.getvalue()
                out = io.StringIO()
                module.operation.print(
                    large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
                    enable_debug_info=_bool(args.print_debuginfo) or _bool(args.pretty_debuginfo),
                    pretty_debug_info=_bool(args.pretty_debuginfo),
                    print_generic_op_form=_bool(args.print_op_generic),
                    use_local_scope=_bool(args.print_local_scope),
                    file=out,
                )
                return (out.getvalue() + "\n").encode()
        finally:
            collector.detach()


class _Fatal(Exception):
    """Stop processing (the reason was already printed)."""


def _rename_locations(module, old: str, new: str) -> None:
    """Parsing from a string names the buffer `old`; give locations the file's name."""
    from mlir import ir

    def renamed(loc):
        if loc.is_a_file() and loc.filename == old:
            if (loc.start_line, loc.start_col) == (loc.end_line, loc.end_col):
                return ir.Location.file(new, loc.start_line, loc.start_col)
            return ir.Location.file(new, loc.start_line, loc.start_col, loc.end_line, loc.end_col)
        return None

    def visit(op):
        loc = renamed(op.location)
        if loc is not None:
            op.location = loc
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    loc = renamed(arg.location)
                    if loc is not None:
                        arg.set_location(loc)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)


def _pass_flags(unknown: list[str]) -> list[str]:
    """Turns `--canonicalize`, `--tile-verify=opt=1` into pipeline elements."""
    elements = []
    for flag in unknown:
        m = re.match(r"^--([A-Za-z][\w.-]*)(?:=(.*))?$", flag, re.S)
        if m is None:
            raise _Usage(f"Unknown command line argument '{flag}'.  Try: '{_PROG} --help'")
        name, opts = m.group(1), m.group(2)
        elements.append(f"{name}{{{opts}}}" if opts else name)
    return elements


class _Usage(Exception):
    pass


def _check_pass_names(elements: list[str]) -> None:
    from mlir import passmanager

    from phobos.dialect import make_context
    from phobos.passes import pipelines, registry

    context = make_context()
    for element in elements:
        name = element.split("{", 1)[0]
        if registry.lookup(name) is not None or pipelines.alias_stage(name) is not None:
            continue
        try:
            passmanager.PassManager("builtin.module", context).add(name)
        except ValueError:
            if name in _upstream_driver_flags():
                raise _Usage(
                    f"error: the flag '--{name}' is not supported together with Phobos passes "
                    f"(without tile-* passes, {_PROG} runs mlir-opt, which supports it)"
                ) from None
            raise _Usage(f"Unknown command line argument '--{name}'.  Try: '{_PROG} --help'") from None


def _upstream_driver_flags() -> set:
    """The names of mlir-opt's own (non-pass) flags, from its --help-list-hidden."""
    from phobos.opt import upstream

    try:
        _, out, _ = upstream.capture(["--help-list-hidden"])
    except OSError:
        return set()
    return set(re.findall(r"^  -{1,2}([A-Za-z][\w.-]*)", out.decode(errors="replace"), re.M))


def main(argv: list[str] | None = None) -> int:
    """phobos-opt's entry point: mlir-opt, help text, or the in-process driver."""
    from phobos.opt import route

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        way = route.choose(argv)
        if way == route.UPSTREAM:
            from phobos.opt import upstream

            return upstream.run(argv)
        if way in (route.HELP, route.VERSION):
            from phobos.opt import help

            return help.main(argv, way)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    return _main_in_process(argv)


def _main_in_process(argv: list[str]) -> int:
    argv = _normalize(argv)
    parser = _parser()
    try:
        args, unknown = parser.parse_known_args(argv)
    except SystemExit as e:  # argparse already printed the problem
        return 1 if e.code else 0
    try:
        flags = _pass_flags(unknown)
        _check_pass_names(flags)  # first, so that a driver flag is named as such
        if flags and args.pass_pipeline:
            raise _Usage("--pass-pipeline cannot be combined with individual pass flags")
        pipeline = args.pass_pipeline or (f"builtin.module({','.join(flags)})" if flags else None)
        return _run_contained(args, pipeline)
    except _Usage as e:
        sys.stderr.write(f"{_PROG}: {e}\n")
        return 1
    except _Fatal:
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # a compiler bug: say so without a traceback unless asked
        if os.environ.get("PHOBOS_DEBUG"):
            raise
        sys.stderr.write(
            f"{_PROG}: internal error: {type(e).__name__}: {e}\n"
            f"{_PROG}: this is a bug in Phobos; rerun with PHOBOS_DEBUG=1 for a traceback\n"
        )
        return 1


_BYTECODE_MAGIC = b"ML\xefR"


def _run_contained(args, pipeline: str | None) -> int:
    """_run in a child process (phobos.compiler.containment): an abort in MLIR's native
    code becomes a located error and exit code 1 instead of a dead process."""
    from phobos.compiler import containment

    if pipeline and (problem := containment.pass_option_error(pipeline)):
        sys.stderr.write(f"<unknown>:0: error: {problem}\n")
        return 1
    try:
        return containment.run(_run, args, pipeline)
    except containment.Aborted as e:
        sys.stderr.write(f"{_input_name(args)}: error: MLIR aborted: {e.message}\n")
        return 1


def _input_name(args) -> str:
    return "<stdin>" if args.input == "-" else args.input


def _too_deep(name: str, text: str) -> bool:
    """Says so (located) when the text nests deep enough to overflow MLIR's parser."""
    from phobos.compiler.containment import nesting_error
    from phobos.diagnostics import Diagnostic, Sources, render

    found = nesting_error(text)
    if found is None:
        return False
    line, col, message = found
    sources = Sources()
    sources.add(name, text)
    sys.stderr.write(render(Diagnostic("error", message, name, line, col), sources))
    return True


def _front_end(source: str, name: str, context):
    """The tile IR of `.ph` source as the front end emits it (function calls not yet inlined),
    or None after printing its errors."""
    from phobos.frontend import CompileError, compile_to_tile_ir

    try:
        return compile_to_tile_ir(source, name, context=context)
    except CompileError as e:
        sys.stderr.write(str(e))
        return None


def _run(args, pipeline: str | None) -> int:
    from phobos.compiler.containment import drain_stderr

    name = _input_name(args)
    try:
        if args.input == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.input, "rb") as f:
                data = f.read()
    except OSError as e:
        sys.stderr.write(f"cannot open input file '{args.input}': {e.strerror}\n")
        return 1
    if data.startswith(_BYTECODE_MAGIC):  # MLIR bytecode: one chunk, parsed as bytes
        text, chunks = "", [(data, 1)]
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
            sys.stderr.write(f"{name}:{line}:{col}: error: the input is neither UTF-8 text nor MLIR bytecode\n")
            return 1
        if _too_deep(name, text):
            return 1
        chunks = _split(text, args.split_input_file) if args.split_input_file else [(text, 1)]
    driver = _Driver(args, pipeline, name, text)
    outputs, ok = [], True
    for chunk, first_line in chunks:
        result = driver.run_chunk(chunk, first_line)
        outputs.append(result or b"")
        ok = ok and result is not None
    driver.finish()
    separator = (args.output_split_marker + "\n").encode()
    result_text = separator.join(outputs)
    succeeded = driver.verifier_ok_after_finish() if args.verify_diagnostics is not None else ok
    if args.output == "-":
        drain_stderr()  # what went to stderr so far comes before the output, as without a child
        sys.stdout.flush()
        sys.stdout.buffer.write(result_text)
        sys.stdout.buffer.flush()
    elif succeeded:  # like mlir-opt, keep the output file only on success
        try:
            with open(args.output, "wb") as f:
                f.write(result_text)
        except OSError as e:
            sys.stderr.write(f"{_PROG}: could not open output file '{args.output}': {e.strerror}\n")
            return 1
    # mlir-opt 22 reports unmatched expected-* comments in every mode; only
    # --verify-diagnostics makes them (and any mismatch) decide the exit code.
    sys.stderr.write(driver.unmatched_report)
    return 0 if succeeded else 1


if __name__ == "__main__":
    sys.exit(main())
