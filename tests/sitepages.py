"""Opening the built site in headless Chromium (Debian's, via Playwright), for the page tests.

The test modules import the ``site`` and ``browser`` fixtures from here (pytest collects fixtures from a
module's namespace). ``site`` is parametrized over both renderers (``tests/sitebuilds.py``: Quarto skips with
a reason when it is not on PATH). Pages are served from a local HTTP server (as a deployed site is; Chromium
refuses Quarto's module scripts and search index on ``file://``); any request to another host is aborted
and recorded in ``Opened.outside``, which the tests require to stay empty. Screenshots go to
``artifacts/site_browser/<renderer>/`` (gitignored; CI keeps them) where ``COURSE_SCREENSHOTS=1``.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from pathlib import Path

import pytest

from sitebuilds import RENDERERS, site_root

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "artifacts" / "site_browser"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
BRANCHES = ("exercise", "answer")
# Console errors that are not the course's own scripts': Chromium asks every site for /favicon.ico.
THIRD_PARTY = re.compile(r"/favicon\.ico$")


def playwright_or_skip():
    """The Playwright sync API, or skip the calling test module with the reason."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not installed (run tools/ensure_system_packages.sh)", allow_module_level=True)
    return pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


# The Quarto-rendered site (its own build, then every page again) is the slow tier: `make test-slow`, which
# .ci/run runs after `make test`; the fallback renderer's pages stay in `make test`.
@pytest.fixture(scope="module", params=[pytest.param(r, marks=pytest.mark.slow) if r == "quarto" else r
                                        for r in RENDERERS])
def site(request):
    """(renderer, build folder, base URL of its _site/ on a local HTTP server)."""
    root = site_root(request.param)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root / "_site")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield request.param, root, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    api = playwright_or_skip()
    with api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def pages(browser, site):
    """``pages(rel)``: the site's page ``rel`` opened once for the whole test module, then shared by its tests
    (loading a lesson page costs Chromium 1-3 s of CPU, P2's with its MathJax the most). A test that clicks
    leaves the page as a reader would; the page's requests and errors are collected from its opening on."""
    _, _, base = site
    opened: dict[str, Opened] = {}

    def get(rel: str) -> Opened:
        if rel not in opened:
            opened[rel] = Opened(browser, base, rel)
        return opened[rel]
    yield get
    for o in opened.values():
        o.page.close()


class Opened:
    """A page loaded offline, with the requests it tried to send out and its errors."""

    def __init__(self, browser, base: str, rel: str) -> None:
        self.base = base
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.set_default_timeout(120_000)    # a hang guard, not a speed target: the machine may be busy
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.page.route("**/*", self._only_local)
        self.page.on("pageerror", lambda err: self.errors.append(f"{err}\n{getattr(err, 'stack', '')}"))
        self.page.on("console", lambda m: self.errors.append(f"{m.text} @ {m.location.get('url', '')}")
                     if m.type == "error" else None)
        self.page.goto(base + rel, wait_until="load")
        self.page.wait_for_timeout(300)
        # Mermaid draws after load: wait until no flowchart source is left undrawn.
        self.page.wait_for_function("!Array.from(document.querySelectorAll('pre.mermaid')).some("
                                    "p => !p.querySelector('svg'))", timeout=120_000)

    def _only_local(self, route) -> None:
        if route.request.url.startswith((self.base, "data:")):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def own_errors(self) -> list[str]:
        return [e for e in self.errors if not THIRD_PARTY.search(e)]

    def main_text(self) -> str:
        return self.page.locator("main").first.inner_text()


def shot(page, renderer: str, name: str) -> None:
    """Full-page screenshot ``artifacts/site_browser/<renderer>/<name>.png`` where ``COURSE_SCREENSHOTS=1``
    (``.ci/run`` sets it: CI keeps them). Nothing asserts on them, and a long page costs Chromium ~0.8 s of CPU,
    so a plain ``make test`` takes none."""
    if os.environ.get("COURSE_SCREENSHOTS") != "1":
        return
    (ARTIFACTS / renderer).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / renderer / f"{name}.png"), full_page=True)


def shot_element(locator, renderer: str, name: str) -> None:
    """Screenshot of one element, ``artifacts/site_browser/<renderer>/<name>.png`` (nothing asserts on it).

    Not ``locator.screenshot``: that waits until Playwright sees the element's box unchanged over two animation
    frames, and in CI that wait once ran out (120 s) on a check view that nothing was moving; the page's own
    screenshot of the element's box has no such wait."""
    page = locator.page
    # the page scrolled to its top: a full-page capture draws the fixed header there, not over the element
    box = locator.evaluate("e => { window.scrollTo(0, 0); const r = e.getBoundingClientRect();"
                           " return {x: r.left, y: r.top, width: r.width, height: r.height}; }")
    assert box["width"] > 0 and box["height"] > 0, f"{name}: the element has no area ({box})"
    (ARTIFACTS / renderer).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / renderer / f"{name}.png"), full_page=True, clip=box)
