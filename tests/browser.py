"""A real headless Chromium for the page tests: Debian's ``chromium`` driven by Playwright, which is
told where it is (Playwright never downloads a browser here). Missing, the tests are skipped on a
developer's machine and fail in CI, whose .ci/run installs it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.helpers import unavailable

CHROMIUM = os.environ.get("CLABBER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright's Browser), closed afterwards."""
    if not os.path.exists(CHROMIUM):
        unavailable(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright for Python is not installed (./run setup installs the test tools)")
    # As root (CI) Chromium refuses to start inside its own sandbox; a container's small /dev/shm
    # would crash its renderer.
    args = ["--disable-dev-shm-usage", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            yield browser
        finally:
            browser.close()


def page_of(browser: Any, width: int, height: int) -> Any:
    """A new page with a viewport of ``width`` × ``height`` CSS pixels; its console errors are kept
    in ``page.errors`` (a policy's refusal shows there), and what it asked for in vain (but the icon
    a browser asks every site for) as ``"404 URL"`` too."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = []

    def console(m: Any) -> None:
        if m.type == "error" and not m.text.startswith("Failed to load resource"):  # said with its address below
            page.errors.append(m.text)

    def answered(r: Any) -> None:
        if r.status >= 400 and not r.url.endswith("/favicon.ico"):
            page.errors.append(f"{r.status} {r.url}")

    page.on("console", console)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("response", answered)
    return page
