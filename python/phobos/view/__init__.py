"""`phobos view`: one self-contained HTML page that steps through a compiled kernel variant.

    from phobos.view import build_model, render_page
    model = build_model(text, "gemm.ph", key="...", sizes={"M": 200})   # a JSON-able dict
    html = render_page(model)

The modules, one idea each:

  * model.py: the page's data, built from the compiler's own decisions (the
    explain report, the launch contract with the dot lowering's shared-memory
    plan) and from running the kernel in the interpreter;
  * trace.py: each CTA's loads, stores, dots and loop iterations as the
    interpreter executes them;
  * threads.py: which thread touches each tile element (the kernel's layout or
    the dot lowering's copy) and warp 0's request with its 128-byte lines;
  * promise.py: the same source without its @aligned promise;
  * page.py with view.js and view.css: the HTML, drawn by plain JS and SVG.

docs/view.md describes the page.
"""

from .model import ViewError, build
from .page import render

build_model = build
render_page = render

__all__ = ["ViewError", "build_model", "render_page"]
