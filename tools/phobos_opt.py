"""phobos-opt: mlir-opt with the tile dialect and the Phobos passes (driver: phobos.opt.driver)."""

import sys

from phobos.opt.driver import main

if __name__ == "__main__":
    sys.exit(main())
