"""pytest configuration for test/browser: phobos view's pages in a real browser.

The tests drive a Chromium binary that is already installed (Debian's
`chromium`, or the one `$PHOBOS_CHROMIUM` names) with Playwright from PyPI,
through `executable_path`: Playwright's own browser downloads are never used.
Every test here is marked `browser`; without Playwright or a Chromium binary
they are skipped with the reason. `.ci/run` installs Debian's chromium where
it runs as root with apt-get.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[1]
if str(_ROOT / "python") not in sys.path:  # as test/unit: runnable from a checkout
    sys.path.insert(0, str(_ROOT / "python"))

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_path() -> str | None:
    """The Chromium binary to drive: $PHOBOS_CHROMIUM, else the first of CANDIDATES on PATH."""
    given = os.environ.get("PHOBOS_CHROMIUM")
    if given:
        found = shutil.which(given)
        return found or (given if os.path.isfile(given) and os.access(given, os.X_OK) else None)
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@functools.lru_cache(maxsize=1)
def browser_unavailable_reason() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (it is in the test extras: pip install -e '.[test]')"
    if chromium_path() is None:
        return "no Chromium binary found (apt-get install chromium, or set PHOBOS_CHROMIUM to one)"
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)
            reason = browser_unavailable_reason()
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"needs a browser: {reason}"))


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
        b = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 1100})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield p
    context.close()
    assert not errors, f"the page reported errors: {errors}"
