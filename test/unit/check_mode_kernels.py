# ruff: noqa: F821  (the dimension symbols in a kernel's annotations name no Python object)
"""Kernels that break their promises, for check mode (test_check_mode*.py).

Each is compiled in check mode into `<out>/check/<name>` by `build(out)` (needs
MLIR; `python test/unit/check_mode_kernels.py OUT` does it, and the GPU test
loads the folders from $PHOBOS_GPU_ARTIFACTS/check). The line each test expects
a PromiseBroken at is found in the source text by its marker comment, so the
tests do not hard-code line numbers.
"""

import contextlib
import os
import sys
from pathlib import Path

import numpy as np

N_COPY = 4096  # elements of the copy kernels' tensors (a multiple of every tile below)

# A correct copy with 16-byte vectors (@aligned and the grid rule: no masks). Launched on a grid
# one CTA too large, its last CTA's slices lie past the end (the analysis took each slice as
# inside, as the grid rule makes it); with N = 1000 it breaks @aligned; launched raw on a
# misaligned pointer it breaks its vector accesses' alignment.
COPY = """@aligned(N = 256)
kernel copy(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let b = ctx.block.x
  Y[b * 256 :+ 256] = X[b * 256 :+ 256]  // marker: read
}
"""

# Every CTA stores the same 256 elements of Y: a static error under @checked.
OVERLAP = """@checked
kernel overlap(X: tensor<f32>[N], Y: tensor<f32>[256]) {
  let b = ctx.block.x
  Y[0 :+ 256] = X[b * 256 :+ 256]  // marker: store
}
"""

# The same overlap without @checked: a warning at compile time, and in check mode each element's
# store is claimed for its CTA on the device. One CTA (N = 256) is fine; more overlap.
SPREAD = """kernel spread(X: tensor<f32>[N], Y: tensor<f32>[256]) {
  let b = ctx.block.x
  Y[0 :+ 256] = X[b * 256 :+ 256]  // marker: store
}
"""

# A CUDA-core dot through shared memory: correct as compiled; built once more by a planner that
# sizes the lhs buffer one row short (`short_buffer`), whose accesses to that row the shared
# checks report before they write over the next buffer.
MM = """@launch(256)
kernel mm(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[32, 32] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[pm * 32 :+ 32, kt :+ 8], B[kt :+ 8, pn * 32 :+ 32])  // marker: dot
  }
  C[pm * 32 :+ 32, pn * 32 :+ 32] = acc
}
"""
MM_SIZE = 96  # M = N = K of the mm examples: 3 x 3 CTAs, 12 steps of K

SOURCES = {"copy": COPY, "spread": SPREAD, "mm": MM}


def marker_line(text: str, marker: str) -> int:
    """The 1-based line of `text` holding `// marker: <marker>`."""
    for i, line in enumerate(text.splitlines(), 1):
        if f"// marker: {marker}" in line:
            return i
    raise ValueError(f"no marker {marker!r}")


def hinted_copy_module():
    """Y[i] = X[i + s] for i < n, the offsets promised (tile.hint) to be multiples of 4 in runs
    of 4, so the load uses 16-byte vectors: true for s % 4 == 0, a lie otherwise. Returns the
    module's text (with locations in this file) and the line of the hint."""
    from phobos import builder as tb

    hint_line = {}

    def hinted_copy(X: tb.Tensor(tb.f32, "N"), Y: tb.Tensor(tb.f32, "N"), s: tb.i32, n: tb.i32):
        offs = tb.arange(0, 1024) + tb.convert(tb.block_id(0) * 1024, tb.i32)
        hint_line["line"] = sys._getframe().f_lineno + 1
        src = tb.max_contiguous(tb.multiple_of(offs + s, 4), 4)
        mask = offs < n
        tb.store(Y, offs, tb.load(X, src, mask), mask)

    with tb.context(), tb.Location.unknown():
        module = tb.Module.create()
        with tb.InsertionPoint(module.body):
            tb.kernel(hinted_copy)
        return module.operation.get_asm(enable_debug_info=True), hint_line["line"]


def decorated_copies(cache_dir):
    """The copy kernel as @phobos.kernel functions: with checked=True (@checked) and with check=True."""
    import phobos
    from phobos.lang import ctx, f32, span, tensor

    @phobos.kernel(aligned={"N": 256}, checked=True, cache_dir=cache_dir)
    def copy_checked(X: tensor[f32, "N"], Y: tensor[f32, "N"]):
        b = ctx.block.x
        Y[span(b * 256, 256)] = X[span(b * 256, 256)]

    @phobos.kernel(aligned={"N": 256}, check=True, cache_dir=cache_dir)
    def copy_check(X: tensor[f32, "N"], Y: tensor[f32, "N"]):
        b = ctx.block.x
        Y[span(b * 256, 256)] = X[span(b * 256, 256)]

    return copy_checked, copy_check


@contextlib.contextmanager
def short_first_buffer():
    """Lowers as if the planner had sized the kernel's first shared buffer one row short: its
    view ends a row early (the compile runs in this process, so the patch applies)."""
    from mlir import ir
    from mlir.dialects import arith, memref

    from phobos.lowering.shared_region import SharedRegion

    make_views = SharedRegion.make_views

    def short_views(self):
        make_views(self)
        b, view = self.plan.buffers[0], self.views[0]
        t = ir.MemRefType(view.type)
        short_t = ir.MemRefType.get([t.shape[0] - b.ld], t.element_type, memory_space=t.memory_space)
        region = self.region

        def build():
            return memref.ViewOp(short_t, region, arith.ConstantOp(ir.IndexType.get(), b.offset).result, []).result

        self.views[0] = self.ctx.at_entry(build)

    os.environ["PHOBOS_CONTAINMENT"], before = "off", os.environ.get("PHOBOS_CONTAINMENT")
    SharedRegion.make_views = short_views
    try:
        yield
    finally:
        SharedRegion.make_views = make_views
        if before is None:
            del os.environ["PHOBOS_CONTAINMENT"]
        else:
            os.environ["PHOBOS_CONTAINMENT"] = before


def _examples(name: str) -> list[tuple]:
    if name == "mm":
        a = np.ones((MM_SIZE, MM_SIZE), np.float32)
        return [(a, a, a)]
    x = np.ones(N_COPY, np.float32)
    return [(x, x[:256] if name == "spread" else x)]


def build(out: Path) -> None:
    """Compiles every kernel above in check mode into `out/check/<name>`."""
    import phobos

    options = {"check": True}
    for name, text in SOURCES.items():
        phobos.compile_ahead(text, out / "check" / name, options=options, examples=_examples(name))
        print(out / "check" / name)
    with short_first_buffer():
        folder = out / "check" / "short_buffer"
        phobos.compile_ahead(MM, folder, options=options, examples=_examples("mm"))
        print(folder)
    text, _ = hinted_copy_module()
    folder = out / "check" / "hinted_copy"
    x = np.ones(N_COPY, np.float32)
    phobos.compile_ahead(text, folder, options=options, examples=[(x, x, 4, N_COPY)])
    (folder / "hint_line").write_text(str(hinted_copy_module()[1]))
    print(folder)


if __name__ == "__main__":
    build(Path(sys.argv[1]))
