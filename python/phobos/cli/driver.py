"""phobos: the command-line driver of the Phobos language.

    phobos check FILE.ph|FILE.mlir [-D TM=32 ...]
    phobos compile FILE.ph|FILE.mlir [--emit=tile|gpu|llvm|ptx|cubin|contract] [--chip sm_90] [--key KEY | --args ARGS]
                   [-o OUT]
    phobos run FILE.ph --args 'f32[4096,4096] f32[4096,4096] 2.0' [--interpret] [--trace LINE [--trace-cta X,Y]]
    phobos aot FILE.ph -o DIR [--args 'f32[4096,4096] f32[4096,4096] 2.0' ...] [--key KEY ...]
    phobos explain FILE.ph [--key KEY | --args ARGS] [--kernel NAME] [--json]   (cli/explain.py)
    phobos view FILE.ph -o kernel.html [--key KEY | --args ARGS] [--kernel NAME]   (cli/view.py)
    phobos tune FILE.ph --args ARGS   (cli/tune.py)

`check` parses and checks; `compile` runs the compile driver (phobos.compiler)
up to a stage and prints it (the stages of passes/pipelines.py, the same
text phobos-opt's tile-to-<stage> aliases give); `aot` compiles variants into
a folder that phobos.load() launches from without MLIR. User errors (bad
source, bad options, unreadable files) print compiler-style diagnostics on
stderr and exit with status 1, never a traceback. A bug in Phobos itself
exits with status 2 and a one-line report (PHOBOS_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from phobos.passes import pipelines
from phobos.target import DEFAULT_CHIP

_PROG = "phobos"
# The stages of passes/pipelines.py, plus the launch contract.
EMIT = (*pipelines.STAGES, "contract")


class UserError(Exception):
    """A problem with the command line or the files it names."""


class LocatedError(Exception):
    """An error that already names its place (`file:line:col: error: ...`): printed as it is."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # argparse exits with 2 on usage errors; we promise 1
        raise UserError(f"{message} (see '{self.prog} --help')")


def _parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog=_PROG, description="The Phobos tile-kernel compiler for .ph programs.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_ArgumentParser)

    def common(q):
        q.add_argument("file", metavar="FILE.ph", help="the source file ('-' reads stdin)")
        q.add_argument(
            "-D",
            dest="defines",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="fix an @autotune constant (default: the first value of its space)",
        )
        q.add_argument(
            "--no-std",
            action="store_true",
            help="leave the standard library (std.nn) out unless the source imports it",
        )

    c = sub.add_parser(
        "compile",
        help="compile to a stage: tile IR, GPU IR, LLVM IR, PTX, a cubin or the contract",
        description="Compile a .ph or .mlir file up to a stage and print it.",
    )
    common(c)
    c.add_argument(
        "--emit",
        choices=EMIT,
        default="tile",
        help="the stage to print (default: tile): tile (verified tile IR), gpu (gpu.module), llvm (NVVM/LLVM "
        "dialect), ptx, cubin (binary: use -o), contract (the launch contract, JSON)",
    )
    target(c)
    c.add_argument("-o", dest="output", default="-", metavar="OUT", help="output file (default: stdout)")
    c.add_argument(
        "--mlir-print-debuginfo",
        dest="debuginfo",
        action="store_true",
        help='print source locations (loc("file":line:col)) in the IR',
    )
    k = sub.add_parser(
        "check",
        help="parse and check a file, report every error",
        description="Parse and check a .ph file without compiling it; verify the tile IR of a .mlir file.",
    )
    common(k)
    from phobos.cli import run  # phobos run (cli/run.py)

    run.add_parser(sub, common)
    a = sub.add_parser(
        "aot",
        help="compile variants ahead of time into a folder (phobos.load launches from it)",
        description="Compile the generic variant and one per --key / --args into a folder with the "
        "cache layout; phobos.load(DIR) launches from it on a machine without MLIR.",
    )
    common(a)
    target(a, key=False)
    a.add_argument("-o", dest="output", required=True, metavar="DIR", help="the output folder")
    a.add_argument("--key", action="append", default=[], metavar="KEY", help="a specialisation key's text (repeatable)")
    a.add_argument(
        "--args",
        action="append",
        default=[],
        metavar="ARGS",
        help="example arguments, e.g. 'f32[1024,1024] f32[1024,1024] 2.0' (repeatable)",
    )
    a.add_argument("--no-check", action="store_true", help="accept examples that break @aligned promises")
    a.add_argument("--all-candidates", action="store_true", help="every @autotune candidate (phobos.load tunes)")
    from phobos.cli import explain  # phobos explain (cli/explain.py)

    explain.register(sub, common, target)
    from phobos.cli import view  # phobos view (cli/view.py)

    view.register(sub, common, target)
    from phobos.cli import tune  # phobos tune (cli/tune.py)

    tune.add_parser(sub, common, target)
    return p


def target(q, key: bool = True) -> None:
    """The options that choose what to compile for."""
    q.add_argument(
        "--chip",
        default=None,
        help=f"the GPU to compile for (default: $PHOBOS_CHIP, else the GPU present, else {DEFAULT_CHIP})",
    )
    q.add_argument("--features", default=None, help="PTX ISA features, e.g. +ptx83 (default: the chip's minimum)")
    q.add_argument("--kernel", default=None, help="the kernel to compile when the file has several")
    q.add_argument(
        "--check",
        action="store_true",
        default=None,
        help="check mode: verify each promise the compiler relies on, on the device; a broken one raises "
        "phobos.PromiseBroken at the launch (default: $PHOBOS_CHECK)",
    )
    if key:
        q.add_argument(
            "--key",
            default=None,
            metavar="KEY",
            help="specialise for an argument layout, e.g. 'X=a16.e16x16.s16;Y=a16.e16x16.s16' (16-byte "
            "aligned base, extents and row stride multiples of 16; default: nothing assumed)",
        )
        q.add_argument(
            "--args",
            default=None,
            metavar="ARGS",
            help="specialise for a launch on such arguments (contiguous, 16-byte aligned), e.g. "
            "'f32[4096,4096] f32[4096,4096] 2.0', instead of writing the --key",
        )


def _defines(items: list[str]) -> dict[str, int]:
    defines: dict[str, int] = {}
    for item in items:
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-?[0-9]+)\s*", item)
        if not m:
            raise UserError(f"-D expects NAME=INTEGER, got '{item}'")
        defines[m.group(1)] = int(m.group(2))
    return defines


def _read(path: str) -> tuple:
    if path == "-":  # bytes, decoded here: a C locale's stdin would smuggle bad bytes in as surrogates
        try:
            return sys.stdin.buffer.read().decode("utf-8"), "<stdin>"
        except UnicodeDecodeError as e:
            raise UserError(f"cannot read <stdin>: it is not UTF-8 text (byte {e.start})") from None
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except UnicodeDecodeError:
        raise UserError(f"cannot read '{path}': it is not UTF-8 text") from None
    except OSError as e:
        raise UserError(f"cannot read '{path}': {e.strerror or e}") from None


def _write(output: str, data) -> None:
    binary = isinstance(data, (bytes, bytearray))
    if output == "-":
        if binary:
            if sys.stdout.isatty():
                raise UserError("refusing to write a cubin to a terminal; use -o FILE")
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
        return
    try:
        with open(output, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            f.write(data)
    except OSError as e:
        raise UserError(f"cannot write '{output}': {e.strerror or e}") from None


def _check_key(text: str | None, flag: str = "--key") -> None:
    from phobos.contract.specialization import SpecKey

    if text:
        try:
            SpecKey.from_text(text)
        except ValueError as e:
            raise UserError(f"{flag}: {e}") from None


def _key_from_args(args, source: str, filename: str, defines: dict[str, int]) -> None:
    """--args: sets args.key to the key of a launch on such arguments (the tile stage's contract
    binds them, as phobos aot --args does) and args.arg_sizes to the extents they give."""
    args.arg_sizes = {}
    if not args.args:
        return
    if args.key:
        raise UserError("give --key or --args, not both")
    from phobos import compiler
    from phobos.runtime.aot import parse_args_text
    from phobos.runtime.binding import Signature

    try:
        examples = parse_args_text(args.args)
    except ValueError as e:
        raise UserError(f"--args: {e}") from None
    target = filename if filename != "<stdin>" else source
    _, contract = compiler.compile_program(
        target, kernel=args.kernel, chip=args.chip, defines=defines or None, source_name=filename
    )
    sig = Signature(contract)
    try:  # the launch's own checks: shared dimensions, @aligned promises
        args.key = sig.bind(examples, sig.describe(examples)).key.to_text() or None
    except (TypeError, ValueError) as e:
        raise UserError(f"--args: {e}") from None
    for p, example in zip(contract["params"], examples):
        if p["kind"] == "tensor":
            dims = zip(p["dims"], example.shape, p["shape"])
            args.arg_sizes.update((d, n) for d, n, static in dims if static is None)


def _compile(args, source: str, filename: str, defines: dict[str, int]):
    """The text (or cubin bytes) of stage args.emit, from the compile driver."""
    import json

    from phobos import compiler

    _check_key(args.key)
    if not (filename.endswith(".mlir") or _looks_like_mlir(source)):  # every stage is headed for the GPU
        from phobos.frontend.gpu_rules import check_for_gpu

        check_for_gpu(source, filename, defines)
    target = filename if filename != "<stdin>" else source
    options = _compile_options(args)
    common = dict(
        kernel=args.kernel,
        chip=args.chip,
        defines=defines or None,
        key=args.key or None,
        options=options,
        source_name=filename,
    )
    if args.emit in ("cubin", "contract"):
        artifact = compiler.compile_artifact(target, **common)
        return (
            artifact.cubin if args.emit == "cubin" else json.dumps(artifact.contract, indent=1, sort_keys=True) + "\n"
        )
    text = compiler.compile_stages(target, until=args.emit, debug_info=args.debuginfo, **common)[args.emit]
    return text if text.endswith("\n") else text + "\n"


def _compile_options(args) -> dict | None:
    """The compile options of --features and --check (PHOBOS_CHECK=1 when --check is absent)."""
    from phobos.runtime.check_record import check_mode_default

    options = {"features": args.features} if args.features else {}
    if args.check or (args.check is None and check_mode_default()):
        options["check"] = True
    return options or None


def _aot(args, defines: dict[str, int]) -> None:
    from phobos.runtime.aot import compile_ahead, parse_args_text

    for key in args.key:
        _check_key(key)
    try:
        examples = [parse_args_text(a) for a in args.args]
    except ValueError as e:
        raise UserError(f"--args: {e}") from None
    options = _compile_options(args)
    from phobos.frontend import CompileError

    if args.all_candidates:
        from phobos.cli import tune

        return tune.aot_all_candidates(args, defines, examples, options, UserError)
    try:
        keys = compile_ahead(
            args.file,
            args.output,
            kernel=args.kernel,
            chip=args.chip,
            defines=defines or None,
            options=options,
            keys=args.key,
            examples=examples,
            check=not args.no_check,
        )
    except CompileError:
        raise
    except (OSError, ValueError, TypeError) as e:  # unreadable source or folder, examples that do not fit
        raise UserError(str(e)) from None
    for key in keys:
        print(f"{args.output}: {key or '(generic)'}")


def _run(args, defines: dict[str, int]) -> None:
    from phobos.runtime.interpret import ENV as interpret_env

    if args.file == "-":
        raise UserError("phobos run needs a file, not stdin")
    _read(args.file)  # unreadable or not UTF-8: the command line's error, before compiling
    # interpret mode: the tile stage only, no GPU code (kernels it cannot lower yet run too); the
    # setting lasts for this command, not for the rest of a process that calls main() (tests do)
    previous = os.environ.get(interpret_env)
    if args.interpret:
        os.environ[interpret_env] = "1"
    try:
        _run_kernel(args, defines)
    finally:
        if previous is None:
            os.environ.pop(interpret_env, None)
        else:
            os.environ[interpret_env] = previous


def _run_kernel(args, defines: dict[str, int]) -> None:
    import phobos
    from phobos.cli import run
    from phobos.interpreter import InterpreterError

    kernel = phobos.compile(args.file, kernel=args.kernel, defines=defines or None)
    try:
        run.run(
            kernel,
            args.args,
            interpret=args.interpret,
            seed=args.seed,
            grid_text=args.grid,
            trace_line=args.trace,
            trace_limit=args.trace_limit,
            trace_cta=args.trace_cta,
            save=args.save,
        )
    except (run.RunError, TypeError, ValueError, FileNotFoundError) as e:
        raise UserError(str(e)) from None
    except phobos.NoCudaDriverError as e:
        reason = getattr(e, "reason", str(e))
        raise UserError(f"no CUDA device was found ({reason}); add --interpret to run in the interpreter") from None
    except InterpreterError as e:
        raise LocatedError(str(e)) from None


def _check(source: str, filename: str, defines: dict[str, int]) -> None:
    """`phobos check`: a .ph file through the front end; tile IR (a .mlir file, or MLIR text on
    stdin) through the tile stage's verifiers, as `phobos compile --emit=tile` runs them."""
    if filename.endswith(".mlir") or (filename == "<stdin>" and _looks_like_mlir(source)):
        if defines:
            raise UserError("-D fixes @autotune constants of .ph source; tile IR has its constants bound")
        from phobos import compiler

        compiler.compile_stages(source, until="tile", source_name=filename)
        return
    from phobos.frontend.gpu_rules import check_for_gpu

    program = check_for_gpu(source, filename, defines, all_values=True)  # the values tuning may pick, too
    sys.stderr.write(program.warnings)
    if "tensorcore" in source:
        _tensorcore_warnings(source, filename, defines)


def _tensorcore_warnings(source: str, filename: str, defines: dict[str, int]) -> None:
    """The gpu stage's warnings (a @tensorcore dot that runs on CUDA cores, from tile-plan-dots)
    at the default configuration, printed as `phobos compile` prints them; its errors are
    `phobos compile`'s to report."""
    from phobos import compiler
    from phobos.frontend import CompileError

    target = filename if filename != "<stdin>" else source
    try:
        compiler.compile_stages(target, until="gpu", defines=defines or None, source_name=filename)
    except CompileError:
        pass


def _looks_like_mlir(text: str) -> bool:
    return bool(re.search(r"^\s*(module\b|func\.func\b|\"?builtin\.module)", text, re.M))


def run(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.version:
        from phobos import __version__

        print(f"phobos {__version__}")
        return 0
    if args.command is None:
        _parser().print_help(sys.stderr)
        return 1
    if hasattr(args, "chip") and args.chip is None:
        from phobos.target import TargetError, default_chip

        try:
            args.chip = default_chip()
        except TargetError as e:
            print(f"phobos: error: {e}", file=sys.stderr)
            return 1
    defines = _defines(args.defines)
    if getattr(args, "no_std", False):
        os.environ["PHOBOS_NO_STD"] = "1"  # read by the front end here and in compile subprocesses
    if args.command == "aot":
        _aot(args, defines)
        return 0
    if args.command == "run":
        _run(args, defines)
        return 0
    if args.command == "tune":
        from phobos.cli import tune

        return tune.run(args, defines, UserError)
    source, filename = _read(args.file)
    if args.command == "check":
        _check(source, filename, defines)
        return 0
    if args.command in ("compile", "explain", "view"):
        _key_from_args(args, source, filename, defines)
    if args.command == "explain":
        from phobos.cli import explain

        _write(args.output, explain.run(args, source, filename, defines))
        return 0
    if args.command == "view":
        from phobos.cli import view

        _write(args.output, view.run(args, source, filename, defines, UserError))
        return 0
    _write(args.output, _compile(args, source, filename, defines))
    return 0


def main(argv: list[str] | None = None) -> int:
    from phobos.frontend import CompileError

    try:
        code = run(argv)
    except CompileError as e:
        if all(d.filename is None for d in e.records):  # about the options, not the source
            sys.stderr.write("".join(f"{_PROG}: {d.severity}: {d.message}\n" for d in e.records))
        else:
            sys.stderr.write(str(e))
        code = 1
    except UserError as e:
        sys.stderr.write(f"{_PROG}: error: {e}\n")
        code = 1
    except LocatedError as e:
        sys.stderr.write(f"{e}\n")
        code = 1
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    except Exception as e:  # a bug in Phobos: short report, traceback on request
        if os.environ.get("PHOBOS_DEBUG"):
            raise
        sys.stderr.write(
            f"{_PROG}: internal compiler error: {type(e).__name__}: {e}\n"
            f"(this is a bug in Phobos; rerun with PHOBOS_DEBUG=1 for the traceback)\n"
        )
        code = 2
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
