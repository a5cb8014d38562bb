"""phobos-opt: mlir-opt plus the tile dialect and the Phobos passes.

driver.py    the entry point and the in-process driver (command lines with Phobos passes)
route.py     which way a command line goes (mlir-opt, help text, in-process)
upstream.py  running the mlir-opt binary with the tile dialect (--irdl-file)
help.py      mlir-opt's --help/--list-passes/--version text with the Phobos passes added
expected_diagnostics.py  upstream's --verify-diagnostics checking, for the in-process path
"""
