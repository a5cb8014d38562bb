"""Runs phobos-opt and upstream mlir-opt with the same arguments and fails
unless stdout, stderr and the exit code are identical (compared as bytes).

usage: compare_with_mlir_opt.py [--compare-OPTION...] MLIR_OPT [args...]   (stdin is passed to both)

mlir-opt runs with argv[0] "phobos-opt", so LLVM's messages name the same tool.
Options of this script (before MLIR_OPT):
  --compare-mlir-opt-arg=ARG  give ARG to mlir-opt only (e.g. --irdl-file=...)
  --compare-minus-phobos      drop the Phobos pass entries (`--tile-*` and their option lines)
                              from phobos-opt's stdout first (help and pass lists)
  --compare-mask=REGEX        replace matches of REGEX by <masked> in both (nondeterministic text)
  --compare-sorted            compare the lines of stdout in sorted order (mlir-opt's --help
                              lists the general options in a different order from run to run)
  --compare-output=PATH       also compare the file or folder tree PATH each run writes
                              (removed before each run)
"""

import difflib
import os
import re
import shutil
import subprocess
import sys


def snapshot(path):
    """{relative path: bytes} of a file or a folder tree."""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            return {".": f.read()}
    files = {}
    for root, _, names in os.walk(path):
        for name in names:
            full = os.path.join(root, name)
            with open(full, "rb") as f:
                files[os.path.relpath(full, path)] = f.read()
    return files


def clear(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def run(argv, stdin, output, executable=None):
    if output:
        clear(output)
    p = subprocess.run(["phobos-opt"] + argv, executable=executable, input=stdin, capture_output=True)
    files = repr(sorted(snapshot(output).items())).encode() if output else b""
    return [p.stdout, p.stderr, p.returncode, files]


def minus_phobos(text):
    """Removes `--tile-*` pass entries (` -   summary`, where options have ` - help`) and
    their deeper-indented option lines."""
    out, skip_deeper = [], None
    for line in text.split(b"\n"):
        indent = len(line) - len(line.lstrip(b" "))
        if skip_deeper is not None and indent > skip_deeper and line.strip():
            continue
        skip_deeper = None
        if re.match(rb"^ *--tile-\S* +-   ", line):
            skip_deeper = indent
            continue
        out.append(line)
    return b"\n".join(out)


def main():
    args = sys.argv[1:]
    extra, minus, masks, output, ordered = [], False, [], None, False
    while args and args[0].startswith("--compare-"):
        opt, _, value = args.pop(0).partition("=")
        if opt == "--compare-mlir-opt-arg":
            extra.append(value)
        elif opt == "--compare-minus-phobos":
            minus = True
        elif opt == "--compare-mask":
            masks.append(re.compile(value.encode()))
        elif opt == "--compare-sorted":
            ordered = True
        elif opt == "--compare-output":
            output = value
        else:
            sys.exit(f"unknown option {opt}")
    mlir_opt, args = args[0], args[1:]
    stdin = b"" if sys.stdin.isatty() else sys.stdin.buffer.read()
    expected = run(extra + args, stdin, output, executable=mlir_opt)
    actual = run(args, stdin, output)
    if minus:
        actual[0] = minus_phobos(actual[0])
    for m in masks:
        for r in (expected, actual):
            r[0], r[1] = m.sub(b"<masked>", r[0]), m.sub(b"<masked>", r[1])
    if ordered:
        for r in (expected, actual):
            r[0] = b"\n".join(sorted(r[0].split(b"\n")))
    ok = True
    for what, e, a in zip(("stdout", "stderr", "exit code", "output files"), expected, actual):
        if e != a:
            ok = False
            print(f"{what} differs for {' '.join(args)}:")
            if isinstance(e, bytes):
                e, a = e.decode(errors="replace"), a.decode(errors="replace")
                diff = difflib.unified_diff(e.splitlines(True), a.splitlines(True), "mlir-opt", "phobos-opt")
                sys.stdout.writelines(diff)
            else:
                print(f"  mlir-opt: {e}  phobos-opt: {a}")
    if ok:
        print(f"identical (exit code {actual[2]}): {' '.join(args)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
