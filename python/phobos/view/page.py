"""The HTML of a `phobos view` page: the model (model.py) as JSON inside one self-contained file.

The page needs nothing at view time: the style sheet (view.css) and the
script (view.js) are inlined, and the script draws the model with plain DOM
and SVG (a canvas for the per-element thread map of large tiles). The JSON
sits in a `<script type="application/json" id="phobos-view-data">` element,
with every `<` written as `\\u003c` so no text of the kernel can close it.
"""

from __future__ import annotations

import html
import json
from importlib import resources

DATA_ID = "phobos-view-data"


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def render(model: dict) -> str:
    """The page for `model` (a dict of model.build)."""
    data = json.dumps(model, separators=(",", ":"), sort_keys=True).replace("<", "\\u003c")
    title = html.escape(f"phobos view: {model['kernel']} ({model['file']})")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{_asset('view.css')}</style>\n</head>\n<body>\n"
        '<header id="top"></header>\n<main id="variants"></main>\n'
        f'<script type="application/json" id="{DATA_ID}">{data}</script>\n'
        f"<script>\n{_asset('view.js')}</script>\n</body>\n</html>\n"
    )
