"""Candidates and tuning results, the errors a tuning raises, and the winners on disk (TuningStore)."""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .resources import Resources
from .space import config_name

STORE_FORMAT = 1


class TuningError(RuntimeError):
    """Tuning found no candidate that compiles, runs and agrees with the reference."""

    def __init__(self, message: str, result: TuneResult | None = None):
        super().__init__(message)
        self.result = result


class TuningFault(TuningError):
    """A candidate faulted in a way that leaves the CUDA context unusable; it is recorded as
    faulting, so tuning again (in a new process) skips it."""


# ----------------------------------------------------------------------------- candidates and results


@dataclass
class Candidate:
    """One point of the space and what became of it."""

    index: int
    config: dict[str, int]
    promises: dict[str, int] | None = None  # @aligned divisors with this config (None: learnt after compiling)
    threads: int | None = None
    status: str = "pending"  # pending, ok, best, reference, pruned, failed, faulted, wrong
    reason: str = ""
    times_ms: list[float] = field(default_factory=list)
    compile_s: float = 0.0
    compiled: bool = False  # compiled by this tuning (False: found in the kernel cache)
    resources: Resources | None = None
    kernel: object = field(default=None, repr=False)  # the launchable candidate kernel

    @property
    def name(self) -> str:
        return config_name(self.config)

    @property
    def time_ms(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    @property
    def viable(self) -> bool:
        return self.status in ("pending", "ok", "best", "reference")

    def reject(self, status: str, reason: str) -> None:
        self.status, self.reason = status, reason


@dataclass
class TuneResult:
    kernel: str
    candidates: list[Candidate]
    best: Candidate | None
    spec_key: str = ""
    tuning_key: str = ""
    device: str = ""
    bytes_moved: int = 0
    compile_s: float = 0.0  # wall time of compiling (0 with every candidate in the cache)
    check_s: float = 0.0  # wall time of running and comparing each candidate once
    timing_s: float = 0.0  # wall time of the timed runs
    from_cache: bool = False  # the winner came from the tuning store: nothing was run
    stored_at: str | None = None
    compared_on: str = ""  # where the outputs were compared: torch or cupy (on the GPU), host

    @property
    def best_config(self) -> dict[str, int] | None:
        return dict(self.best.config) if self.best is not None else None

    @property
    def compiled(self) -> int:
        return sum(c.compiled for c in self.candidates)

    def gbps(self, candidate: Candidate) -> float | None:
        t = candidate.time_ms
        return self.bytes_moved / (t * 1e6) if t and self.bytes_moved else None

    def rows(self) -> list[dict]:
        """One row per candidate: timed ones fastest first, then the rejected ones."""
        best = self.best.time_ms if self.best is not None else None
        order = sorted(self.candidates, key=lambda c: (c.time_ms is None, c.time_ms or 0.0, c.index))
        out = []
        for c in order:
            t = c.time_ms
            out.append(
                {
                    "candidate": c.name,
                    "config": dict(c.config),
                    "status": c.status,
                    "time_us": None if t is None else t * 1e3,
                    "gbps": self.gbps(c),
                    "vs_best": None if t is None or not best else t / best,
                    "reason": c.reason,
                    "registers": c.resources.registers if c.resources else None,
                    "compiled": c.compiled,
                }
            )
        return out

    def table(self) -> str:
        rows = [
            (
                r["candidate"],
                r["status"],
                "" if r["time_us"] is None else f"{r['time_us']:.2f}",
                "" if r["gbps"] is None else f"{r['gbps']:.0f}",
                "" if r["vs_best"] is None else f"{r['vs_best']:.3f}",
                "" if r["registers"] is None else str(r["registers"]),
                r["reason"],
            )
            for r in self.rows()
        ]
        headers = ("candidate", "status", "time (us)", "GB/s", "vs best", "regs", "rejected because / note")
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

        def line(cells):
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])

    def to_json(self) -> dict:
        return {
            "kernel": self.kernel,
            "best": self.best_config,
            "spec_key": self.spec_key,
            "tuning_key": self.tuning_key,
            "device": self.device,
            "bytes_moved": self.bytes_moved,
            "compile_s": self.compile_s,
            "check_s": self.check_s,
            "timing_s": self.timing_s,
            "from_cache": self.from_cache,
            "compared_on": self.compared_on,
            "candidates": self.rows(),
        }


# ----------------------------------------------------------------------------- the winner on disk


class TuningStore:
    """Winners on disk: <root>/autotune/<family>/<digest>.json, digest = hash of the specialisation
    key, the tuning key and the device name; faults.json lists candidates that faulted."""

    def __init__(self, root: os.PathLike):
        self.root = Path(root) / "autotune"

    @staticmethod
    def digest(spec_key: str, tkey: str, device: str) -> str:
        h = hashlib.sha256()
        for part in (spec_key, tkey, device):
            data = part.encode()
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        return h.hexdigest()[:20]

    def path(self, family: str, spec_key: str, tkey: str, device: str) -> Path:
        return self.root / family / f"{self.digest(spec_key, tkey, device)}.json"

    def get(self, family: str, spec_key: str, tkey: str, device: str) -> dict | None:
        try:
            record = json.loads(self.path(family, spec_key, tkey, device).read_text())
        except (OSError, ValueError):
            return None
        if (
            record.get("format") != STORE_FORMAT
            or record.get("tuning_key") != tkey
            or record.get("spec_key") != spec_key
        ):
            return None
        return record

    def put(self, family: str, result: TuneResult, extra: dict | None = None) -> Path:
        path = self.path(family, result.spec_key, result.tuning_key, result.device)
        record = dict(result.to_json(), format=STORE_FORMAT, family=family, created=time.time(), **(extra or {}))
        write_json(path, record)
        return path

    def faults(self, family: str) -> dict[str, str]:
        try:
            return dict(json.loads((self.root / family / "faults.json").read_text()))
        except (OSError, ValueError, TypeError):
            return {}

    def add_fault(self, family: str, name: str, message: str) -> None:
        faults = self.faults(family)
        faults[name] = message
        write_json(self.root / family / "faults.json", faults)


def write_json(path: Path, data, sort_keys: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=sort_keys)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
