"""Which way a phobos-opt command line goes: to mlir-opt, through Phobos's help
text, or in-process because it names a Phobos pass.

Phobos passes and aliases are all named `tile-*`. Words of that form are found
in pass flags (`--tile-verify`, `-tile-to-gpu=chip=sm_90`) and in the pass names
of `--pass-pipeline`/`-p` text (option values in braces are skipped, so
`affine-loop-tile{tile-size=32}` names no Phobos pass). Only when such a word
appears is the pass registry loaded (it needs the MLIR bindings) to tell a real
Phobos pass from a typo, which mlir-opt then reports in its own words.
"""

from __future__ import annotations

import re

UPSTREAM, HELP, VERSION, PHOBOS = "upstream", "help", "version", "phobos"

# LLVM cl flags that print the option or pass list: Phobos adds its passes to them.
HELP_FLAGS = {"help", "h", "help-hidden", "help-list", "help-list-hidden", "list-passes"}
PIPELINE_FLAGS = {"pass-pipeline", "p"}

_FLAG = re.compile(r"^--?([A-Za-z][\w.-]*)(?:=(.*))?$", re.S)
_WORD = re.compile(r"[A-Za-z_][\w.$-]*")


def flag_name(arg: str):
    """(name, value or None) of `-name`/`--name[=value]`, or None for a positional."""
    m = _FLAG.match(arg)
    return (m.group(1), m.group(2)) if m else None


def _strip_options(text: str) -> str:
    """Pipeline text without the `{...}` option groups and quoted strings."""
    out, depth, quote = [], 0, None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def pipeline_pass_names(text: str) -> list[str]:
    """The anchor and pass names of a textual pipeline."""
    return _WORD.findall(_strip_options(text))


def options(argv: list[str]):
    """(name, value, index) of each flag before a `--` terminator; a pipeline flag
    written without '=' takes the next argument as its value, as in LLVM's cl."""
    out, i = [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        parsed = flag_name(arg)
        if parsed is not None:
            name, value = parsed
            if name in PIPELINE_FLAGS and value is None and i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            out.append((name, value, i))
        i += 1
    return out


def named_candidates(argv: list[str]) -> list[str]:
    """`tile-*` words used as pass flags or as pass names in a pipeline."""
    words = []
    for name, value, _ in options(argv):
        if name in PIPELINE_FLAGS and value is not None:
            words += [w for w in pipeline_pass_names(value) if w.startswith("tile-")]
        elif name.startswith("tile-"):
            words.append(name)
    return words


def is_phobos_pass(name: str) -> bool:
    from phobos.passes import pipelines, registry

    return registry.lookup(name) is not None or pipelines.alias_stage(name) is not None


def names_phobos_pass(argv: list[str]) -> bool:
    return any(is_phobos_pass(w) for w in named_candidates(argv))


def choose(argv: list[str]) -> str:
    names = {name for name, _, _ in options(argv)}
    if names & HELP_FLAGS:
        return HELP
    if "version" in names:
        return VERSION
    # A .ph input is read by Phobos's front end, never by mlir-opt.
    ph_input = any(flag_name(a) is None and a.endswith(".ph") for a in argv)
    return PHOBOS if ph_input or names_phobos_pass(argv) else UPSTREAM
