"""phobos explain: what the compiler decided about every global load and store.

    phobos explain FILE.ph [--key KEY | --args 'f32[4096,4096] ...'] [--kernel NAME] [-D NAME=VALUE ...]
                   [--json] [-o OUT]

For each access, at its file:line:col: the vector width and, when narrower
than 16 bytes, the missing fact; whether its mask was dropped and by what,
or kept and why; how warp 0's lanes walk the tensor; the 128-byte lines one
warp request touches against the ideal. The report is built by
phobos.report.explain from the compiler's own analyses and passes. For an
@autotune kernel it ends with the untuned default: the configuration a
launch that does not tune runs for the --args extents, and why
(phobos.runtime.autotune.default, worded by phobos.report.default_config).
"""

from __future__ import annotations

import json


def register(sub, common, target) -> None:
    """Adds the `explain` subcommand to the driver's subparsers."""
    e = sub.add_parser(
        "explain",
        help="report the vector width, mask, lanes and 128-byte lines of every global load and store",
        description="Compile a .ph or .mlir file through the tile stage and report, for every global load "
        "and store, what the compiler decided and why (docs/explain.md).",
    )
    common(e)
    target(e)
    e.add_argument("--json", action="store_true", help="print the report as JSON")
    e.add_argument("-o", dest="output", default="-", metavar="OUT", help="output file (default: stdout)")


def run(args, source: str, filename: str, defines: dict[str, int]) -> str:
    """The report's text (or JSON) for the parsed command line."""
    from phobos.cli.driver import _check_key
    from phobos.compiler.explain import explain_source, render_text

    _check_key(args.key)
    reports = explain_source(
        filename if filename != "<stdin>" else source,
        kernel=args.kernel,
        key=args.key or None,
        chip=args.chip,
        defines=defines or None,
        source_name=filename,
    )
    default = _untuned_default(args, source, filename, defines)
    if args.json:
        data = [r.to_json() for r in reports]
        for kernel in data if default is not None else []:
            if kernel.get("name") == default[2]:
                kernel["untuned_default"] = default[0].to_json()
        return json.dumps(data, indent=1) + "\n"
    return render_text(reports) + (default[3] if default is not None else "")


def _untuned_default(args, source: str, filename: str, defines: dict[str, int]):
    """(choice, candidates, kernel name, text) of the untuned default (runtime/autotune/default.py,
    worded by report/default_config.py) for the --args extents (else the representative shape);
    None without an @autotune space."""
    from phobos.report.default_config import render_default
    from phobos.runtime.autotune.default import REPRESENTATIVE_EXTENT, source_default

    sizes = getattr(args, "arg_sizes", None) or {}
    found = source_default(source, filename, kernel=args.kernel, defines=defines, extents=sizes, chip=args.chip)
    if found is None:
        return None
    choice, count = found
    name = args.kernel or _kernel_name(source, filename)
    text = "\n" + render_default(choice, count, name, representative=None if sizes else REPRESENTATIVE_EXTENT)
    return choice, count, name, text


def _kernel_name(source: str, filename: str) -> str:
    from phobos.frontend import check_source

    kernels = check_source(source, filename).kernels
    return kernels[0].name if kernels else filename
