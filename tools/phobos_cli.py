"""phobos: the command-line driver of the Phobos language.

    phobos compile FILE.ph [--emit=tile|gpu|ptx|cubin] [--chip sm_90] [-D TM=32 ...] [-o OUT]
    phobos check FILE.ph [-D TM=32 ...]

`check` parses and checks; `compile` also lowers to verified tile IR and,
for the later stages, hands it to `phobos.compiler`. User errors (bad
source, bad options, unreadable files) print compiler-style diagnostics on
stderr and exit with status 1, never a traceback. A bug in Phobos itself
exits with status 2 and a one-line report (PHOBOS_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Dict, List, Optional

_PROG = "phobos"
EMIT_STAGES = ("tile", "gpu", "ptx", "cubin")


class UserError(Exception):
    """A problem with the command line or the files it names."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # argparse exits with 2 on usage errors; we promise 1
        raise UserError(f"{message} (see '{self.prog} --help')")


def _parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog=_PROG, description="The Phobos tile-kernel compiler for .ph programs.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_ArgumentParser)

    def common(q):
        q.add_argument("file", metavar="FILE.ph", help="the source file ('-' reads stdin)")
        q.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE",
                       help="fix an @autotune constant (default: the first value of its space)")

    c = sub.add_parser("compile", help="compile to tile IR, GPU IR, PTX or a cubin",
                       description="Compile a .ph file. Stages after tile IR come from phobos.compiler.")
    common(c)
    c.add_argument("--emit", choices=EMIT_STAGES, default="tile", help="what to produce (default: tile)")
    c.add_argument("--chip", default="sm_90", help="target chip for gpu/ptx/cubin (default: sm_90)")
    c.add_argument("--kernel", default=None, help="the kernel to compile for gpu/ptx/cubin when the file has several")
    c.add_argument("--key", default=None, metavar="KEY",
                   help="for gpu/ptx/cubin: specialise for an argument layout, e.g. 'X=a16.e16x16.s16;Y=a16.e16x16.s16' "
                        "(16-byte aligned base, extents and row stride multiples of 16; default: nothing assumed)")
    c.add_argument("-o", dest="output", default="-", metavar="OUT", help="output file (default: stdout)")
    c.add_argument("--mlir-print-debuginfo", dest="debuginfo", action="store_true",
                   help="print source locations (loc(\"file\":line:col)) in the IR")
    k = sub.add_parser("check", help="parse and check a file, report every error",
                       description="Parse and check a .ph file without compiling it.")
    common(k)
    return p


def _defines(items: List[str]) -> Dict[str, int]:
    defines: Dict[str, int] = {}
    for item in items:
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-?[0-9]+)\s*", item)
        if not m:
            raise UserError(f"-D expects NAME=INTEGER, got '{item}'")
        defines[m.group(1)] = int(m.group(2))
    return defines


def _read(path: str) -> tuple:
    if path == "-":
        return sys.stdin.read(), "<stdin>"
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


def _later_stage(args, source: str, filename: str, defines: Dict[str, int]):
    """--emit=gpu/ptx/cubin through the compile driver (phobos.compiler)."""
    from phobos import compiler
    from phobos.specialization import SpecKey

    if args.key:
        try:
            SpecKey.from_text(args.key)
        except ValueError as e:
            raise UserError(f"--key: {e}") from None
    target = filename if filename != "<stdin>" else source
    options = dict(kernel=args.kernel, chip=args.chip, defines=defines or None, key=args.key or None)
    if args.emit == "cubin":
        return compiler.compile_artifact(target, **options).cubin
    return compiler.compile_stages(target, **options)[args.emit]


def run(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.version:
        from phobos import __version__

        print(f"phobos {__version__}")
        return 0
    if args.command is None:
        _parser().print_help(sys.stderr)
        return 1
    defines = _defines(args.defines)
    source, filename = _read(args.file)

    from phobos.frontend import check_source, compile_to_tile_ir

    if args.command == "check":
        check_source(source, filename, defines)
        return 0
    if args.emit == "tile":
        module = compile_to_tile_ir(source, filename, defines)
        text = module.operation.get_asm(enable_debug_info=args.debuginfo)
        _write(args.output, text if text.endswith("\n") else text + "\n")
        return 0
    _write(args.output, _later_stage(args, source, filename, defines))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
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
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    except Exception as e:  # a bug in Phobos: short report, traceback on request
        if os.environ.get("PHOBOS_DEBUG"):
            raise
        sys.stderr.write(f"{_PROG}: internal compiler error: {type(e).__name__}: {e}\n"
                         f"(this is a bug in Phobos; rerun with PHOBOS_DEBUG=1 for the traceback)\n")
        code = 2
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
