"""The launcher of a checked torch/cupy layout in C (claunch.c), built at first use.

The Python launcher of a layout (runtime.fastpath) costs about 1 us more than
the bare ctypes call into the driver: bytecodes, the key tuple, `pack_into` and
ctypes' own conversion of four arguments. `claunch.c` does the same work in
C: the same reads (described per framework by fastpath: attribute paths), every
part of the layout key compared with `==`, the scalars' exact types, integer
classes and ranges (packed as `struct` packs them: PyFloat_Pack4 for f32), the
read-only/written overlap rule, the stream, then the plan's parameter buffer
(copied onto the C stack, so threads need no lock) and cuLaunchKernelEx. What
it does not take, it hands unchanged to the Python launcher, which stays the
path that raises every error (and the whole path where this module is absent).

It is compiled once per source text and Python ABI with the system's C
compiler (`$CC`, else cc, gcc, clang) and Python's headers into
`$PHOBOS_LAUNCHER_DIR`, else `<cache root>/launcher`, written to a temporary
file and renamed (concurrent builds are safe). No compiler, no headers, a
failed build or `PHOBOS_CLAUNCH=0`: `make` answers None and the Python
launcher is used.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from . import driver
from .binding import FLOAT_DTYPES

SOURCE = Path(__file__).with_name("claunch.c")
MODULE = "phobos_claunch"
_INT_FORMATS = "bBiIq"
_MAX_SLOTS = 256  # claunch.c's MAX_SLOTS
_UNTRIED = object()
_module: object = _UNTRIED
enabled = os.environ.get("PHOBOS_CLAUNCH", "1") not in ("", "0")  # the bench turns it off for the "before" rows


def folder() -> Path:
    env = os.environ.get("PHOBOS_LAUNCHER_DIR")
    if env:
        return Path(env).expanduser()
    from .cache import default_root

    return default_root() / "launcher"


def compiler() -> list[str] | None:
    """The C compiler command (sysconfig's CC, else cc, gcc, clang), None without one."""
    for cmd in (os.environ.get("CC") or sysconfig.get_config_var("CC") or "", "cc", "gcc", "clang"):
        words = shlex.split(cmd)
        if words and shutil.which(words[0]):
            return words
    return None


def build(where: Path) -> Path | None:
    """The compiled extension in `where` (built now if missing), None where it cannot be built."""
    include = sysconfig.get_paths().get("include")
    cc = compiler()
    if cc is None or not include or not Path(include, "Python.h").exists():
        return None
    source = SOURCE.read_bytes()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    tag = hashlib.sha256(source + f"{sys.version}|{suffix}|{cc}".encode()).hexdigest()[:16]
    path = where / f"{MODULE}_{tag}{suffix}"
    if path.exists():
        return path
    where.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=suffix, dir=where)
    os.close(fd)
    try:
        flags = ["-O2", "-shared", "-fPIC", "-std=gnu11", f"-I{include}", "-o", tmp, str(SOURCE)]
        done = subprocess.run(cc + flags, capture_output=True, text=True, timeout=120)
        if done.returncode:
            return None
        os.replace(tmp, path)  # atomic: a concurrent build renames an identical file
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def load(path: Path):
    loader = importlib.machinery.ExtensionFileLoader(MODULE, str(path))
    spec = importlib.util.spec_from_file_location(MODULE, str(path), loader=loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def module():
    """The loaded extension, or None (disabled, or it cannot be built here); tried once per process."""
    global _module
    if _module is _UNTRIED:
        _module = None
        for where in (folder(), Path(tempfile.gettempdir()) / f"phobos-launcher-{os.getuid()}"):
            try:
                path = build(where)
                if path is not None:
                    _module = load(path)
                    break
            except (OSError, ImportError):
                continue  # an unwritable folder: try the next
    return _module


def make(sig, fw, key: tuple, plan, call, front):
    """The C launcher of `plan`'s layout `key` (fastpath's key for framework `fw`), falling back to
    the Python launcher's `call` and `front`; None where the C launcher does not apply."""
    entry = driver.launch_entry()
    if not enabled or entry is None or not _applies(plan):
        return None
    spec = _spec(sig, fw, key, plan)
    mod = module() if spec is not None else None
    if mod is None:
        return None
    name = plan.name

    def failed(err: int):
        driver.raise_error(err, "cuLaunchKernelEx", kernel=name)

    return mod.make(
        *spec,
        ctypes.cast(entry, ctypes.c_void_p).value,
        int(plan.function),
        driver._last,
        name,
        plan.owner,
        plan.variant,
        plan.device,
        plan.device.make_current,
        failed,
        call,
        front,
    )


def _applies(plan) -> bool:
    """Plans the C launcher reproduces exactly: a fixed non-empty grid, one GPU, no check mode,
    no PHOBOS_SYNC, no repacking, no tensor maps or bf16 scalars (computed in Python)."""
    from .launch import _SYNC_ALWAYS

    return (
        not plan.grid_callable
        and all(plan.grid)
        and plan.checks is None
        and not _SYNC_ALWAYS
        and plan.repack is None
        and getattr(plan.device, "_single", False)
        and len(plan.signature.abi) <= _MAX_SLOTS
        and all(how in ("ptr", "arg") for how, _ in plan.var_sources())
    )


def _spec(sig, fw, key: tuple, plan) -> tuple | None:
    """The layout's description, as claunch.c's `make` takes it (up to the driver-side arguments)."""
    per = len(fw.fields)
    tensors = sig.tensors
    ints = [i for i in sig.scalars if sig.params[i].dtype not in FLOAT_DTYPES and sig.params[i].dtype != "i1"]
    if len(key) != per * len(tensors) + 2 * len(ints) + 1 or type(key[-1]) not in (type(None), tuple, int):
        return None
    described = tuple(
        (pi, tuple((path, key[t * per + f]) for f, path in enumerate(fw.fields))) for t, pi in enumerate(tensors)
    )
    pointers, scalars = [], []
    for slot, (how, pi) in zip(plan.var_slots, plan.var_sources()):
        offset = plan._slot_offsets[slot]
        if how == "ptr":
            pointers.append((tensors.index(pi), offset))
            continue
        fmt, dtype = sig.slot_formats[slot][0], sig.params[pi].dtype
        classes = None
        if pi in ints:
            j = per * len(tensors) + 2 * ints.index(pi)
            classes = (key[j], key[j + 1])
        if not (
            (dtype in FLOAT_DTYPES and fmt in "fde")
            or (dtype == "i1" and fmt == "?")
            or (classes is not None and fmt in _INT_FORMATS)
        ):
            return None
        scalars.append((pi, fmt, offset, classes))
    pairs = tuple((tensors.index(r), tensors.index(w), sr, sw, same) for r, w, sr, sw, same in plan.overlaps)
    offsets = tuple(plan._slot_offsets[s] for s in range(len(sig.abi)))
    stream = fw.stream_call(key[fw.fields.index(fw.device_field)])
    head = (len(sig.params), fw.kind, described, fw.pointer, tuple(pointers), tuple(scalars), pairs, stream)
    return head + (key[-1], plan._image, offsets)
