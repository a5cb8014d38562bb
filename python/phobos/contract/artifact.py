"""A compiled kernel: cubin bytes, the launch contract and the stage texts.

The contract (JSON, `format` 1) is everything the runtime needs to launch the
cubin without the compiler:

    {"format": 1, "kernel": "<entry symbol in the cubin>", "name": "<source kernel name>",
     "chip": "sm_90", "threads": 256, "shared_bytes": 0,
     "params": [{"name": "X", "kind": "tensor", "dtype": "f32", "rank": 2, "dims": ["M", "N"],
                 "shape": [null, null], "contiguity": "last", "access": "read"},
                {"name": "alpha", "kind": "scalar", "dtype": "f32"}],
     "abi": [{"kind": "ptr", "param": 0}, {"kind": "extent", "param": 0, "axis": 0},
             {"kind": "stride", "param": 0, "axis": 0}, {"kind": "scalar", "param": 2}],
     "grid": [{"symbol": "M", "tile": 32}, {"symbol": "N", "tile": 128}, 1],
     "promises": [{"symbol": "M", "divisor": 32}], "bindings": {"TM": 32},
     "key": "<SpecKey text>", "fingerprint": "<compiler_fingerprint()>", "options": {...}}

An optional "extent_blocks": [{"symbol": "KB", "of": "K", "block": 32}] says that extent KB
must be ceil(K / 32) (the Q8_0 scales of a runtime K); the launch checks it.

`abi` lists the cubin's parameters in order: ptr = u64 device address of the
tensor's first element; extent/stride = i64 (strides in elements, leading
axes only); scalar = by the parameter's dtype. `grid` gives, per grid axis
x, y, z, cdiv(extent of symbol, tile), an int, or null when the caller must
give the grid. A tensor's `access` ("read", "write", "readwrite") says what
the kernel does with it; a tensor the kernel only reads is declared
noalias + readonly to the code generator (the runtime then refuses arguments
where it overlaps a written tensor, unless they are the same view). Its
`contiguity` is "last" (the last dimension has stride 1; leading strides are
parameters, so padded rows work) or "all" (row-major without gaps: a tensor of
rank >= 2 that the kernel addresses by flat element offsets, tile.load /
tile.store).

This module does not import MLIR: the runtime loads artifacts on machines
without it.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from phobos.elements import LAUNCH_DTYPES as DTYPES

FORMAT = 1
ABI_KINDS = ("ptr", "extent", "stride", "scalar", "tensormap")
CONTIGUITY = ("last", "all")  # stride 1 in the last dimension / fully row-major (no padded rows)


class ContractError(ValueError):
    """A contract that does not follow the schema."""


def validate_contract(contract: dict) -> None:
    """Raises ContractError naming the first field that breaks the schema."""

    def need(cond, message):
        if not cond:
            raise ContractError(f"contract of '{contract.get('name', '?')}': {message}")

    need(contract.get("format") == FORMAT, f"format must be {FORMAT}, got {contract.get('format')!r}")
    for name, kind in (
        ("kernel", str),
        ("name", str),
        ("chip", str),
        ("threads", int),
        ("shared_bytes", int),
        ("params", list),
        ("abi", list),
        ("grid", list),
        ("promises", list),
        ("bindings", dict),
        ("key", str),
        ("fingerprint", str),
        ("options", dict),
    ):
        need(isinstance(contract.get(name), kind), f"'{name}' must be a {kind.__name__}")
    params = contract["params"]
    for i, p in enumerate(params):
        need(p.get("kind") in ("tensor", "scalar"), f"params[{i}].kind must be tensor or scalar")
        need(p.get("dtype") in DTYPES, f"params[{i}].dtype {p.get('dtype')!r} is not one of {', '.join(DTYPES)}")
        need(isinstance(p.get("name"), str), f"params[{i}].name must be a string")
        if p["kind"] == "tensor":
            rank = p.get("rank")
            need(isinstance(rank, int) and rank >= 1, f"params[{i}].rank must be a positive int")
            need(isinstance(p.get("dims"), list) and len(p["dims"]) == rank, f"params[{i}].dims needs {rank} entries")
            need(
                isinstance(p.get("shape"), list) and len(p["shape"]) == rank, f"params[{i}].shape needs {rank} entries"
            )
            need(p.get("contiguity") in CONTIGUITY, f"params[{i}].contiguity must be 'last' or 'all'")
    for j, a in enumerate(contract["abi"]):
        need(a.get("kind") in ABI_KINDS, f"abi[{j}].kind must be one of {', '.join(ABI_KINDS)}")
        pi = a.get("param")
        need(isinstance(pi, int) and 0 <= pi < len(params), f"abi[{j}].param must index params")
        want = "scalar" if a["kind"] == "scalar" else "tensor"
        need(params[pi]["kind"] == want, f"abi[{j}] ({a['kind']}) must refer to a {want} parameter")
        if a["kind"] in ("extent", "stride"):
            limit = params[pi]["rank"] - (1 if a["kind"] == "stride" else 0)
            need(isinstance(a.get("axis"), int) and 0 <= a["axis"] < limit, f"abi[{j}].axis is out of range")
    need(len(contract["grid"]) == 3, "grid must have 3 entries (x, y, z)")
    for axis, rule in enumerate(contract["grid"]):
        ok = (
            rule is None
            or (isinstance(rule, int) and rule >= 1)
            or (
                isinstance(rule, dict)
                and isinstance(rule.get("symbol"), str)
                and isinstance(rule.get("tile"), int)
                and rule["tile"] >= 1
            )
        )
        need(ok, f"grid[{axis}] must be null, a positive int or {{symbol, tile}}")
    for p in contract["promises"]:
        need(
            isinstance(p.get("symbol"), str) and isinstance(p.get("divisor"), int) and p["divisor"] >= 1,
            "promises must be {symbol, divisor >= 1}",
        )
    for r in contract.get("extent_blocks", []):  # optional: kernels with Q8_0 scales over a runtime K
        need(
            isinstance(r.get("symbol"), str)
            and isinstance(r.get("of"), str)
            and isinstance(r.get("block"), int)
            and r["block"] >= 1,
            "extent_blocks must be {symbol, of, block >= 1}",
        )


@dataclass(repr=False)  # the generated repr printed the cubin and every stage's text (tens of KB)
class Artifact:
    cubin: bytes
    contract: dict
    asm: dict[str, str] = field(default_factory=dict)
    program: dict | None = None  # the tile program the interpreter runs (phobos.compiler.tile_program)

    def __repr__(self) -> str:
        c = self.contract
        key = c.get("key") or "generic"
        stages = ", ".join(self.asm) or "none"
        return (
            f"<phobos.Artifact {self.name} for {c.get('chip', '?')}, key {key}, {c.get('threads', '?')} threads, "
            f"cubin {len(self.cubin)} bytes, stages: {stages}>"
        )

    @property
    def name(self) -> str:
        return self.contract.get("name") or self.contract["kernel"]

    def save(self, folder, name: str | None = None) -> tuple[Path, Path]:
        """Writes `<name>.cubin` and `<name>.json` (the contract) into `folder`,
        each atomically (a temporary file renamed into place)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        name = name or self.name
        cubin_path, json_path = folder / f"{name}.cubin", folder / f"{name}.json"
        _write_atomic(cubin_path, bytes(self.cubin))
        _write_atomic(json_path, (json.dumps(self.contract, indent=1, sort_keys=True) + "\n").encode())
        return cubin_path, json_path

    @staticmethod
    def load(folder, name: str) -> Artifact:
        folder = Path(folder)
        contract = json.loads((folder / f"{name}.json").read_text())
        validate_contract(contract)
        return Artifact((folder / f"{name}.cubin").read_bytes(), contract, {})


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
