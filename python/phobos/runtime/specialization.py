"""Moved to phobos.contract.specialization (shared by the compiler, tile-specialize and the
runtime); this name stays for runtime/kernel.py's imports until they name phobos.contract
(issue 28's edit)."""

from phobos.contract.specialization import (
    CLASSES,
    POINTER_ALIGN,
    SpecKey,
    TensorFacts,
    divisibility_class,
    implies,
    strength,
    tensor_facts,
)

__all__ = [
    "CLASSES",
    "POINTER_ALIGN",
    "SpecKey",
    "TensorFacts",
    "divisibility_class",
    "implies",
    "strength",
    "tensor_facts",
]
