"""phobos view: one self-contained HTML page that steps through a compiled kernel variant.

    phobos view FILE.ph -o kernel.html [--key KEY | --args 'f32[200,300] ...'] [--kernel NAME] [-D NAME=VALUE ...]
                [--dims M=200,N=300] [--cta X,Y] [--grid X,Y] [--no-compare]

The page (phobos.view: model.py builds its data, page.py writes it) shows the
CTA grid with the picked CTA, each tensor with that CTA's current box, the
shared-memory ruler, the barriers kept and elided, the threads and warp 0's
lanes on the elements of each access, and a step control through the loads,
stores, dots and loop iterations with a readout of each step. A kernel with
@aligned is shown twice, with and without the promise (docs/view.md). Without
--key or --args it draws the variant a launch at the drawn sizes uses, with
contiguous, 16-byte aligned tensors; --args also gives the sizes.
"""

from __future__ import annotations


def register(sub, common, target) -> None:
    """Adds the `view` subcommand to the driver's subparsers."""
    v = sub.add_parser(
        "view",
        help="write an HTML page that steps through a compiled kernel (grid, boxes, shared memory, lanes)",
        description="Compile a .ph or .mlir kernel and write one self-contained HTML page that draws what the "
        "compiler decided for it and steps through its loads, stores and loop iterations (docs/view.md).",
    )
    common(v)
    target(v)
    v.add_argument("-o", dest="output", required=True, metavar="OUT.html", help="the page to write")
    v.add_argument(
        "--dims",
        default=None,
        metavar="NAME=EXTENT,...",
        help="the tensor extents to step through, e.g. 'M=200,N=300,K=64' (default: two tiles along each, "
        "ragged where the kernel promises nothing)",
    )
    v.add_argument("--cta", default=None, metavar="X[,Y[,Z]]", help="the CTA to pick (default: the last one)")
    v.add_argument(
        "--grid",
        default=None,
        metavar="X[,Y[,Z]]",
        help="the grid, for kernels without a grid rule (default: the rule)",
    )
    v.add_argument(
        "--no-compare", action="store_true", help="do not add the variant without the kernel's @aligned promise"
    )


def run(args, source: str, filename: str, defines: dict[str, int], user_error) -> str:
    """The page's HTML for the parsed command line; option problems raise `user_error`."""
    from phobos.cli.driver import _check_key
    from phobos.view import ViewError, build_model, render_page
    from phobos.view.model import parse_position, parse_sizes

    _check_key(args.key)
    try:
        model = build_model(
            source,
            filename,
            kernel=args.kernel,
            key=args.key,  # None: the variant a launch at the drawn sizes uses; "": the generic one
            chip=args.chip,
            defines=defines or None,
            sizes={**getattr(args, "arg_sizes", {}), **parse_sizes(args.dims)},  # --dims wins over --args
            cta=parse_position(args.cta, "--cta", 0),
            grid=parse_position(args.grid, "--grid", 1),
            compare=not args.no_compare,
        )
    except ViewError as e:
        raise user_error(str(e)) from None
    return render_page(model)
