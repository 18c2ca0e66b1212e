"""Real-browser fixtures: the built site/ served on 127.0.0.1 under a sub-path, as GitHub Pages serves it,
opened in headless Chromium.

Chromium: $CHROMIUM if set, else Debian's /usr/bin/chromium, else Playwright's own browser (on a machine
where `playwright install chromium` has been run). Tests never download a browser.
"""
import functools
import itertools
import re
import http.server
import os
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from chromium import CHROMIUM_ARGS, chromium_executable

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
PREFIX = "/attention-heatmap/"
# The built site's pages, as addresses under its root ("" for Home, "masks/", "embed/ex-scores/", and the Chinese
# edition's "zh/", "zh/masks/", "zh/embed/ex-scores/"), read at collection.
PAGES = sorted(
    p.parent.relative_to(SITE).as_posix() + "/" if p.parent != SITE else ""
    for p in SITE.rglob("index.html")
    if "assets" not in p.parts
) if SITE.is_dir() else []


def in_edition(path):
    """A page's place in its language's edition: "zh/embed/ex-scores/" -> "embed/ex-scores/", "masks/" as it is."""
    return path.removeprefix("zh/")



# Where a test's own files are served (`served_bytes`), beside the site: a test that swaps a big download for a
# broken copy points the request here (route.continue_), so the body never crosses Playwright's pipe (29 MB sent
# by route.fulfill cost Chromium, Playwright and Python about 30 CPU seconds).
TEST_FILES = "__test_files__/"


class _SubPathHandler(http.server.SimpleHTTPRequestHandler):
    """Serves site/ at PREFIX and answers 404 anywhere else, so a root-relative link shows up as broken."""

    test_files = None  # the folder `served_bytes` writes to, served at PREFIX + TEST_FILES

    def translate_path(self, path):
        if not path.startswith(PREFIX):
            return str(SITE / "__not_under_prefix__")
        if self.test_files and path.startswith(PREFIX + TEST_FILES):
            return str(self.test_files / Path(path).name)
        return super().translate_path("/" + path[len(PREFIX):])

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_url(built_site, tmp_path_factory):
    """The shared site/ (tests/conftest.py), served by this worker's own server."""
    _SubPathHandler.test_files = tmp_path_factory.mktemp("served")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_SubPathHandler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    server.shutdown()


_served = itertools.count()


@pytest.fixture
def served_bytes(site_url):
    """serve(body) -> the address, on the site's server, of a file holding `body` (for route.continue_(url=…))."""
    folder, made = _SubPathHandler.test_files, []

    def serve(body):
        path = folder / f"{os.getpid()}-{next(_served)}.bin"
        path.write_bytes(body)
        made.append(path)
        return site_url + TEST_FILES + path.name

    yield serve
    for path in made:
        path.unlink()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageProblems:
    """What went wrong while a page was open: console errors, uncaught exceptions, requests to other hosts."""

    def __init__(self, page, site_url):
        self.console_errors = []
        self.page_errors = []
        self.foreign_requests = []
        host = urlparse(site_url).netloc
        page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))

        def check_request(request):
            url = urlparse(request.url)
            if url.scheme in ("http", "https", "ws", "wss") and url.netloc != host:
                self.foreign_requests.append(request.url)

        page.on("request", check_request)

    def assert_clean(self):
        assert not self.page_errors, f"uncaught errors: {self.page_errors}"
        assert not self.console_errors, f"console errors: {self.console_errors}"
        assert not self.foreign_requests, f"requests to other hosts: {self.foreign_requests}"


def wait_for_the_page(page, path):
    """After a click or Back, until the page at `path` (e.g. "softmax/") has loaded."""
    page.wait_for_url(lambda url: urlparse(url).path.endswith("/" + path))


@pytest.fixture(scope="session")
def desktop(browser):
    """This worker's desktop-sized browser context. Each test's tab is new and starts with nothing stored
    (`new_tab`): a context of its own per test cost Chromium about 0.12 CPU s more than a tab (with the flags
    above; 1 CPU s without them), some 25 CPU s over the suite."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


def new_tab(context, site_url):
    """A new tab in `context` that starts with nothing stored for the site (local storage, IndexedDB, the Cache
    API, service workers, cookies) and nothing in the HTTP cache; session storage and history are the tab's own.
    What a test set on the context itself (permissions, routes, init scripts, offline) would stay for the next:
    a test that needs any of that opens a context of its own. Tabs a test left open are closed first."""
    for left in context.pages:
        left.close()
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.clearBrowserCache")
    cdp.send("Network.clearBrowserCookies")
    cdp.send("Storage.clearDataForOrigin", {"origin": site_url.split(PREFIX)[0], "storageTypes": "all"})
    cdp.detach()
    return page


@pytest.fixture
def page(desktop, site_url):
    """A new tab with nothing stored (`new_tab`) in this worker's desktop context, which the test leaves as it
    found it (it sets nothing on `page.context`: permissions, routes, init scripts, offline); the test fails if it logged a console error, threw, or asked another
    host for anything."""
    page = new_tab(desktop, site_url)
    problems = PageProblems(page, site_url)
    page.problems = problems
    yield page
    try:
        problems.assert_clean()
    finally:
        for tab in desktop.pages:  # a page left running (a model, a timer) would take CPU from the next test
            tab.close()


HEATMAPS = "figure.aih-heatmap[data-example][data-quantity]"


# An init script: every layout shift as [value, [moved node, …]] in window.__aihShifts, from before the page's
# first script runs (the observer also reports those buffered).
WATCH_SHIFTS = """
window.__aihShifts = [];
new PerformanceObserver((list) => {
  for (const shift of list.getEntries()) {
    window.__aihShifts.push([shift.value, shift.sources.map((s) => s.node?.nodeName + "." + (s.node?.className || ""))]);
  }
}).observe({ type: "layout-shift", buffered: true });
"""


def scroll_through(page):
    """Scroll from the top to the bottom, half a viewport at a time, so that every widget that waits for the
    viewport (heatmaps, problems, the real heads' grids) is set up; wait until each is; end back at the top."""
    from playwright.sync_api import expect

    step = page.viewport_size["height"] // 2
    y = 0
    while y < page.evaluate("document.documentElement.scrollHeight"):
        page.evaluate("(y) => scrollTo(0, y)", y)
        page.wait_for_timeout(30)
        y += step
    if not page.locator("script[src*='javascripts/site.js']").count():  # print/: static copies, no widgets
        page.evaluate("scrollTo(0, 0)")
        return
    reveal_heatmaps(page)
    expect(page.locator(".aih-problem[data-src]:not(.aih-on)")).to_have_count(0)
    # a real-heads grid gets its image in view; those in the tabs not chosen stay waiting
    page.wait_for_function("() => [...document.querySelectorAll('foreignObject noscript')]"
                           ".every((waiting) => !waiting.closest('figure').checkVisibility())")
    page.evaluate("scrollTo(0, 0)")


def reveal_heatmaps(page):
    """Scroll to each heatmap in turn and wait until it is interactive (or merged into its neighbour's): they
    become interactive only near the viewport. Ends back at the top of the page."""
    from playwright.sync_api import expect

    for index in range(page.locator(HEATMAPS).count()):
        page.evaluate("([selector, index]) => document.querySelectorAll(selector)[index].scrollIntoView()", [HEATMAPS, index])
        expect(page.locator(HEATMAPS).nth(index)).to_have_class(re.compile(r"\baih-(on|merged)\b"))
    expect(page.locator(f"{HEATMAPS}:not(.aih-on):not(.aih-merged)")).to_have_count(0)
    page.evaluate("scrollTo(0, 0)")


@pytest.fixture
def failing_page(browser):
    """A page whose downloads the test breaks: the browser logs each failed request as a console error, so this
    page is not the `page` fixture's; it fails the test on an uncaught error only."""
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == []
