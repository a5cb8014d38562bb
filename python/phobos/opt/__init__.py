"""phobos-opt: mlir-opt plus the tile dialect and the Phobos passes (driver.py), with
upstream's --verify-diagnostics checking (expected_diagnostics.py)."""
