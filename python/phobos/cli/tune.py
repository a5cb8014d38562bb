"""`phobos tune`: search a kernel's @autotune space on the device and print the table.

    phobos tune examples/saxpy.ph --args 'f32[16777216] f32[16777216] 2.0'
    phobos tune bench/kernels/scale.ph --args 'f32[4096,4096] f32[4096,4096] 2.0' -D TM=32 --json out.json
    phobos tune aot/saxpy --args 'f32[16777216] f32[16777216] 2.0'     # a folder from aot --all-candidates
    phobos tune examples/saxpy.ph --args 'f32[4096] f32[4096] 2.0' --compile-only    # no GPU needed

The arguments are random data of the shapes in --args (as for `phobos run`;
`@a1` for a base address that is not 16-byte aligned). Every candidate is
compiled (in parallel, into the kernel cache; a folder from `phobos aot
--all-candidates` needs no compiler), checked against the most conservative
candidate and timed with CUDA events; the winner is stored next to the kernel
cache, where later launches of the kernel find it. The table lists each
candidate with its median time, bandwidth (bytes read and written once) and
ratio to the best, and the rejected ones with the reason.

`phobos aot FILE.ph -o DIR --all-candidates --args ...` (aot_all_candidates
below) writes such a folder.
"""

from __future__ import annotations

import json


def add_parser(sub, common, target) -> None:
    """The `tune` subcommand (driver.py registers it)."""
    t = sub.add_parser(
        "tune",
        help="search the @autotune space on the GPU: compile, check, time, cache the winner",
        description="Compile every @autotune candidate, check each against a reference, time them on the GPU "
        "and store the fastest, next to the kernel cache; prints a table. FILE may also be a folder "
        "written by 'phobos aot --all-candidates' (no compiler needed).",
    )
    common(t)
    target(t, key=False)
    t.add_argument(
        "--args", required=True, metavar="ARGS", help="the arguments, e.g. 'f32[4096,4096] f32[4096,4096] 2.0'"
    )
    t.add_argument("--grid", default=None, metavar="X[,Y[,Z]]", help="the grid (default: each candidate's rule)")
    t.add_argument(
        "--tune-key",
        action="append",
        default=None,
        metavar="NAME",
        help="a parameter or dimension whose value picks the config (repeatable; default: every tensor's "
        "extents rounded up to powers of two)",
    )
    t.add_argument("--seed", type=int, default=0, help="the seed of the random data (default: 0)")
    t.add_argument("--jobs", type=int, default=None, metavar="N", help="compile processes (default: one per CPU)")
    t.add_argument("--cached", action="store_true", help="print the stored winner, if any, without running anything")
    t.add_argument("--no-store", action="store_true", help="do not store the winner")
    t.add_argument(
        "--compile-only",
        action="store_true",
        help="prune and compile the candidates and report their registers, without a GPU (no check, no timing)",
    )
    t.add_argument("--json", default=None, metavar="FILE", help="also write the result as JSON")


def run(args, defines: dict[str, int], user_error, out=print) -> int:
    """Runs `phobos tune`; user_error(message) is the driver's UserError class."""
    from pathlib import Path

    import phobos
    from phobos.cli.run import RunError, parse_grid, random_arguments
    from phobos.runtime import autotune

    if args.file == "-":
        raise user_error("phobos tune needs a file or an ahead-of-time folder, not stdin")
    path = Path(args.file)
    try:
        values = random_arguments(args.args, args.seed)
        grid = parse_grid(args.grid)
    except RunError as e:
        raise user_error(str(e)) from None
    key = args.tune_key
    if path.is_dir():
        if defines or args.kernel:
            raise user_error("-D and --kernel choose what to compile; a folder of candidates is already compiled")
        try:
            kernel = phobos.load(path, autotune_key=key)
        except (OSError, ValueError, KeyError) as e:
            raise user_error(str(e)) from None
        if not isinstance(kernel, phobos.runtime.kernel.TunedLoadedKernel):
            raise user_error(
                f"{path} holds no autotune.json: write it with 'phobos aot FILE.ph -o DIR --all-candidates'"
            )
    else:
        options = {"features": args.features} if args.features else None
        kernel = phobos.compile(
            args.file, kernel=args.kernel, chip=args.chip, defines=defines or None, options=options, autotune_key=key
        )
    try:
        if args.compile_only:
            result = _compile_only(kernel, values, args.jobs)
        else:
            result = kernel.autotune(
                *values, grid=grid, force=not args.cached, jobs=args.jobs, store=not args.no_store, progress=True
            )
    except autotune.TuningError as e:
        if e.result is not None:
            _report(e.result, out)
        raise user_error(str(e).splitlines()[0] + " (see the table)") from None
    except (TypeError, ValueError, FileNotFoundError) as e:
        raise user_error(str(e)) from None
    except phobos.NoCudaDriverError as e:
        reason = getattr(e, "reason", str(e))
        raise user_error(
            f"no CUDA device was found ({reason}); --compile-only compiles and prunes without a GPU"
        ) from None
    _report(result, out, compile_only=args.compile_only)
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(result.to_json(), indent=1, sort_keys=True) + "\n")
        except OSError as e:
            raise user_error(f"cannot write '{args.json}': {e.strerror or e}") from None
    return 0


def _compile_only(kernel, values, jobs):
    tuner = kernel._get_tuner(explicit=True)
    if tuner is None:
        raise ValueError(f"{kernel!r} has no @autotune space to search")
    sig = kernel.signature
    views = sig.describe(values)
    loose = sig.bind(values, views, grid=(0, 0, 0), check_promises=False)
    result = tuner.screen(sig, values, views, loose.key.to_text(), jobs=jobs, progress=True)
    for c in result.candidates:
        if c.status == "pending":
            c.status = "compiled"
    return result


def _report(result, out, compile_only: bool = False) -> None:
    n = len(result.candidates)
    out(f"{result.kernel}: {n} candidate{'s' * (n != 1)}; key '{result.spec_key}', tuning key '{result.tuning_key}'")
    if result.from_cache:
        out(f"the stored winner (nothing ran): {result.best.name}")
        return
    fresh = result.compiled
    line = f"compile {result.compile_s:.2f} s ({fresh} compiled, {n - fresh} from the cache or pruned)"
    if not compile_only:
        where = f" (compared on {result.compared_on})" if result.compared_on else ""
        line += f", check {result.check_s:.2f} s{where}, timing {result.timing_s:.2f} s on {result.device}"
    out(line)
    out(result.table())
    if result.best is not None:
        gbps = result.gbps(result.best)
        speed = f", {gbps:.0f} GB/s" if gbps else ""
        out(f"best: {result.best.name} ({result.best.time_ms * 1e3:.2f} us{speed})")
        if result.stored_at:
            out(f"stored in {result.stored_at}")


def aot_all_candidates(args, defines: dict[str, int], examples: list, options, user_error, out=print) -> int:
    """`phobos aot FILE.ph -o DIR --all-candidates`: every candidate into DIR (driver.py calls it)."""
    from phobos.frontend import CompileError
    from phobos.runtime.aot import compile_all_candidates

    try:
        manifest = compile_all_candidates(
            args.file,
            args.output,
            kernel=args.kernel,
            chip=args.chip,
            defines=defines or None,
            options=options,
            keys=args.key,
            examples=examples,
            check=not args.no_check,
            progress=True,  # a bar on a terminal, progress lines in a log (elapsed time and ETA)
        )
    except CompileError:
        raise
    except (OSError, ValueError, TypeError) as e:
        raise user_error(str(e)) from None
    for entry in manifest["candidates"]:
        name = autotune_name(entry["config"])
        if entry["status"] == "ok":
            keys = ", ".join(k or "(generic)" for k in entry["keys"])
            out(f"{args.output}/{entry['folder']}: {name}: {keys}")
        else:
            out(f"{args.output}/{entry['folder']}: {name}: {entry['status']}: {entry['reason']}")  # failed, pruned
        for why in entry["skipped_examples"]:
            out(f"  skipped an example: {why}")
    out(f"{args.output}/autotune.json: {len(manifest['candidates'])} candidates in {manifest['compile_wall_s']:.1f} s")
    return 0


def autotune_name(config: dict) -> str:
    from phobos.runtime.autotune import config_name

    return config_name(config)
