"""phobos: the command-line driver of the Phobos language (driver: phobos.cli.driver)."""

import sys

from phobos.cli.driver import main

if __name__ == "__main__":
    sys.exit(main())
