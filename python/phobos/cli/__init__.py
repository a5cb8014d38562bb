"""phobos: the command-line driver of the kernel language (driver.py)."""
