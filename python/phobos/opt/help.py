"""`phobos-opt --help`, `--list-passes` and `--version`: mlir-opt's own text
with the Phobos passes and pipeline aliases added in mlir-opt's format.

mlir-opt lists passes in a `Passes:` section (pipelines in `Pass Pipelines:`
where there is one), sorted by name, every description starting in one column:

      --canonicalize                                         -   Canonicalize operations
        --max-iterations=<long>                              - Max. iterations between ...

The Phobos entries go in at their sorted place, aligned to that column.
"""

from __future__ import annotations

import re
import sys

from phobos.opt import route, upstream

_HEADER = re.compile(r"^( *)(Passes|Pass Pipelines):$")
# Section ends: a blank line or another header (`Generic Options:`, `Pass Pipelines:`).
_END = re.compile(r"^\s*$|^ *[A-Z][^-=]*:$")
_TYPES = {str: "=<string>", int: "=<int>", bool: ""}

Entry = tuple[str, str, list[tuple[str, str]]]  # flag, summary, [(option flag, help)]


def _with_default(text: str, default) -> str:
    if isinstance(default, bool):
        default = str(default).lower()
    return text if default in (None, "") else f"{text} (default: {default})"


def _pass_entries() -> list[Entry]:
    from phobos.passes import registry

    entries = []
    for name, info in registry.all_passes().items():
        opts = [
            (f"--{o}{_TYPES.get(opt.type, '=<value>')}", _with_default(opt.help, opt.default))
            for o, opt in info.options.items()
        ]
        entries.append((f"--{name}", info.summary, opts))
    return entries


def _alias_entries() -> list[Entry]:
    from phobos.passes import pipelines

    opts = [(f"--{o}=<string>", _with_default(opt.help, opt.default)) for o, opt in pipelines.ALIAS_OPTIONS.items()]
    return [(f"--{name}", summary, opts) for name, summary in pipelines.aliases().items()]


def _sections(lines: list[str]):
    """(kind, header index, end index, indent) of each pass-list section."""
    out = []
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m:
            end = next((j for j in range(i + 1, len(lines)) if _END.match(lines[j])), len(lines))
            out.append((m.group(2), i, end, len(m.group(1))))
    return out


def _column(lines: list[str], start: int, end: int, indent: int) -> int | None:
    """The column of the '-' before the descriptions of a section."""
    for line in lines[start:end]:
        m = re.match(rf"^ {{{indent + 2}}}-\S+\s+(-)\s", line)
        if m:
            return m.start(1)
    return None


def _format(entry: Entry, indent: int, column: int) -> list[str]:
    flag, summary, opts = entry

    def line(text: str, dash: str, desc: str) -> str:
        return f"{text:<{column - 1}} {dash} {desc}".rstrip()

    out = [line(" " * (indent + 2) + flag, "-  ", summary)]
    out += [line(" " * (indent + 4) + o, "-", h) for o, h in opts]
    return out


def _insert(lines: list[str], start: int, end: int, indent: int, entries: list[Entry]) -> list[str]:
    column = _column(lines, start, end, indent) or indent + 40
    entry_re = re.compile(rf"^ {{{indent + 2}}}-(-?[^\s=]+)")
    section = lines[start + 1 : end]
    for entry in sorted(entries, key=lambda e: e[0], reverse=True):
        name = entry[0].lstrip("-")
        at = next(
            (k for k, text in enumerate(section) if (m := entry_re.match(text)) and m.group(1).lstrip("-") > name),
            len(section),
        )
        section[at:at] = _format(entry, indent, column)
    return lines[: start + 1] + section + lines[end:]


def extend_pass_lists(text: str) -> str:
    """mlir-opt's help or --list-passes text with the Phobos passes and aliases added."""
    lines = text.split("\n")
    passes, aliases = _pass_entries(), _alias_entries()
    sections = _sections(lines)
    has_pipelines = any(kind == "Pass Pipelines" for kind, *_ in sections)
    # Bottom-up, so the indices of the sections above stay valid.
    for kind, start, end, indent in reversed(sections):
        if kind == "Pass Pipelines":
            lines = _insert(lines, start, end, indent, aliases)
        else:
            lines = _insert(lines, start, end, indent, passes if has_pipelines else passes + aliases)
    return "\n".join(lines)


def version_text(text: str) -> str:
    import phobos

    return text + f"Phobos:\n  Phobos version {phobos.__version__} (the tile dialect and the tile-* passes)\n"


def main(argv: list[str], kind: str) -> int:
    """Prints mlir-opt's help (or version) text, extended; `kind` is route.HELP or route.VERSION."""

    # mlir-opt does not know the Phobos pass flags; they change nothing in the help.
    def phobos_flag(arg: str) -> bool:
        parsed = route.flag_name(arg)
        return bool(parsed) and parsed[0].startswith("tile-") and route.is_phobos_pass(parsed[0])

    args = [a for a in argv if not phobos_flag(a)]
    try:
        code, out, err = upstream.capture(args)
    except FileNotFoundError as e:
        sys.stderr.write(f"{upstream.PROG}: error: {e}\n")
        return 1
    if code == 0:
        text = out.decode()
        out = (extend_pass_lists(text) if kind == route.HELP else version_text(text)).encode()
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return code
