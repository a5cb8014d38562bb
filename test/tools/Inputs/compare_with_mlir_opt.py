"""Runs phobos-opt and upstream mlir-opt with the same arguments and fails
unless stdout, stderr and the exit code are identical.

usage: compare_with_mlir_opt.py MLIR_OPT [args...]   (stdin is passed to both)
"""

import difflib
import subprocess
import sys


def run(tool, args, stdin):
    p = subprocess.run([tool] + args, input=stdin, capture_output=True)
    return p.stdout.decode(), p.stderr.decode(), p.returncode


def main():
    mlir_opt, args = sys.argv[1], sys.argv[2:]
    stdin = b"" if sys.stdin.isatty() else sys.stdin.buffer.read()
    expected = run(mlir_opt, args, stdin)
    actual = run("phobos-opt", args, stdin)
    ok = True
    for what, e, a in zip(("stdout", "stderr", "exit code"), expected, actual):
        if e != a:
            ok = False
            print(f"{what} differs for {' '.join(args)}:")
            if isinstance(e, str):
                sys.stdout.writelines(difflib.unified_diff(e.splitlines(True), a.splitlines(True), "mlir-opt", "phobos-opt"))
            else:
                print(f"  mlir-opt: {e}  phobos-opt: {a}")
    if ok:
        print(f"identical (exit code {actual[2]}): {' '.join(args)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
