"""Moved to phobos.contract.fingerprint (shared by the compiler and the runtime); this name
stays for runtime/kernel.py's imports until they name phobos.contract (issue 28's edit)."""

from phobos.contract.fingerprint import compiler_fingerprint

__all__ = ["compiler_fingerprint"]
