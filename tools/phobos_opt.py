"""phobos-opt: mlir-opt with the tile dialect and the Phobos passes (driver: phobos.opt.driver)."""

import os
import sys

# One BLAS thread: numpy (imported by MLIR's bindings) otherwise starts a thread pool, and a
# process with threads contains each compile in a spawned interpreter (compiler/containment.py)
# instead of a fork, 0.3-0.5 s more per command. A tool process does no BLAS work.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from phobos.opt.driver import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
