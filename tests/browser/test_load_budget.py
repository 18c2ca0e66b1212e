"""What every page costs at load, in a real Chromium emulating a phone as Lighthouse's mobile preset does (a
412 × 823 screen at 1.75 device pixels per CSS pixel, the page's viewport meta honoured: there, asking for the
window's width makes Chromium lay out the page at once), measured in ways that do not depend on the machine's
speed:

- at most 1,500 DOM elements on problems/ once the page has loaded and settled (Lighthouse's), 1,850 on
  multi-head/, 1,610 elsewhere (DOM_BUDGET: 1,600 and the language menu);
- bytes at load, gzipped as GitHub Pages serves them (each file fetched, gzip level 6), at most the bare
  Material page's plus 62 KB; the bare page is `mkdocs build` of the same docs with a bare Material config
  (scripts/bench_site.py's), measured the same way in the same session;
- no worked example's JSON fetched for a figure that is not near the first screen (within one screen of it:
  the heatmaps' IntersectionObserver margin), and no sitemap.xml.

How long our scripts keep the main thread busy is a time, which a loaded machine stretches: it is measured by
scripts/bench_long_tasks.py (`make bench`), against the 50 ms long-task budget, never asserted here.
scripts/bench_lighthouse.py prints the same numbers next to Lighthouse's scores; the scores are a benchmark.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.test_js_unit import widgets

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
sys.path.insert(0, str(ROOT / "scripts"))
from bench_lighthouse import TEXT  # noqa: E402  (what GitHub Pages gzips, the sitemap too)
from bench_page_tasks import MOBILE, PHONE  # noqa: E402
from bench_site import SKIP, bare_config  # noqa: E402

# problems/ was the largest page at load (1,569 elements, 1,712 with its ninth set): every set's inputs and answer
# grid were there from the start. Now the sets after the first keep theirs as the text of a <noscript> each until
# they near the viewport (about 970 at load); a reader who arrives at a section gets them all at once, before the
# page is put at their place, so nothing moves under them (test_site_pages, test_problems_browser).
# Lighthouse's 1,500 for problems/ (issue 54); every other page keeps under 1,600, the budget since issue 40: Home's
# notation table is MathML, many elements a symbol, and the worked pages print matrices (their longest tables wait
# in collapsed blocks, drawn when opened: finish/details.py).
# multi-head/ gained grouped-query attention (issue 58): its matrices and per-head tables wait collapsed, but the
# sharing table and the worked score (MathML) stay open, about 220 elements: 1,850 there (DECISIONS.md).
DOM_BUDGET = {"problems/": 1500, "multi-head/": 1850}
DOM_BUDGET_ELSEWHERE = 1610  # 1,600, and the language menu the Chinese edition brought (issue 60: 7 more elements)
# 62 KB since issue 58 (was 60): the one stylesheet every page loads holds every widget's CSS, smollm/'s too
# (1.3 KB gzipped); learning/ and real-heads/ measured 61.6 and 61.0 KB over the bare page (DECISIONS.md).
# 63 KB since issue 59: every page's notebook line and its two CSS rules (about 0.2 KB gzipped) took learning/,
# the heaviest, to 62.2 KB over the bare page.
BYTES_OVER_BARE = 63 * 1024
# Every page of both editions, English at the root and Chinese under zh/ (each budget holds in both). Not print/:
# the print edition is every page at once, for a printer (finish/edition.py).
LANGUAGES = ["", "zh/"]
PAGES = [prefix + path for prefix in LANGUAGES
         for path in ["", *sorted(p.parent.name + "/" for p in (SITE / prefix).glob("*/index.html")
                                  if p.parent.name not in ("assets", "search", "print", "zh"))]]


# The heatmaps within a screen of the first (the margin at which they are made interactive) have become
# interactive, or stayed static with a note: the page's work at load is done.
NEAR_FIGURES_SETTLED = """() => [...document.querySelectorAll("figure.aih-heatmap[data-example][data-quantity]")]
  .filter((figure) => figure.getBoundingClientRect().top < 2 * innerHeight)
  .every((figure) => figure.matches(".aih-on, .aih-merged") || figure.querySelector(".aih-static-note"))"""
# site.js's WIDGETS: {selector: module}, the modules it loads on a page that shows one.
WIDGETS = {selector: module.name for selector, module in widgets().items()}
WIDGETS_FETCHED = """(widgets) => {
  const fetched = performance.getEntriesByType("resource").map((entry) => entry.name.split("/").pop());
  if (!document.querySelector("script[src$='javascripts/site.js']")) return true; // the bare theme's page
  return fetched.includes("site.js") && Object.entries(widgets)
    .every(([selector, module]) => !document.querySelector(selector) || fetched.includes(module));
}"""


def gzipped_bytes(site, url_paths, prefix):
    """The bytes of these files as a gzip-serving host sends them (text gzipped at level 6, the rest as is)."""
    total = 0
    for path in url_paths:
        local = site / path[len(prefix):]
        if local.is_dir() or path.endswith("/"):
            local = local / "index.html"
        if not local.is_file():
            continue
        data = local.read_bytes()
        total += len(gzip.compress(data, 6, mtime=0)) if local.suffix in TEXT else len(data)
    return total


def load(browser, url):
    """Open `url` on an emulated phone; -> (page, context, the URL paths it fetched)."""
    context = browser.new_context(**MOBILE)
    page = context.new_page()
    fetched = []
    page.on("request", lambda request: fetched.append(urlparse(request.url).path))
    page.goto(url, wait_until="networkidle", timeout=120_000)
    # With the CPU slowed, the network can go quiet while the theme's bundle is still parsing, before site.js
    # has asked for this page's widgets: wait until each has arrived.
    page.wait_for_function(WIDGETS_FETCHED, arg=WIDGETS, timeout=60_000)
    page.wait_for_function(NEAR_FIGURES_SETTLED, timeout=60_000)
    page.wait_for_timeout(300)
    return page, context, fetched


@pytest.fixture(scope="session")
def bare_bytes(browser, tmp_path_factory):
    """The bare Material page's bytes at load, built and served here like our site."""
    import functools
    import http.server
    import threading

    work = tmp_path_factory.mktemp("bare")
    tree = work / "tree"
    shutil.copytree(ROOT, tree, ignore=SKIP)
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--config-file", str(bare_config(tree)), "--site-dir",
                    str(work / "bare")], cwd=tree, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), check=True,
                   capture_output=True)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path):
            return super().translate_path("/" + path[len("/bare/"):])

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(work / "bare")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page, context, fetched = load(browser, f"http://127.0.0.1:{server.server_address[1]}/bare/")
        context.close()
    finally:
        server.shutdown()
    total = gzipped_bytes(work / "bare", fetched, "/bare/")
    assert total > 50_000, f"the bare page fetched only {total} bytes: {fetched}"
    return total


def assert_within_the_budget_at_load(page, site_url, fetched, bare_bytes, path):
    elements = page.evaluate("document.getElementsByTagName('*').length")
    budget = DOM_BUDGET.get(path.removeprefix("zh/"), DOM_BUDGET_ELSEWHERE)  # a page's, in either language
    assert elements <= budget, f"{path or 'home'}: {elements} DOM elements at load, over its budget of {budget}"
    prefix = urlparse(site_url).path
    ours = gzipped_bytes(SITE, [p for p in fetched if p.startswith(prefix)], prefix)
    assert ours <= bare_bytes + BYTES_OVER_BARE, (
        f"{path or 'home'}: {ours / 1024:.1f} KB at load, {(ours - bare_bytes) / 1024:.1f} KB over the bare page's "
        f"{bare_bytes / 1024:.1f} KB")
    # nor the list of the site's pages that the theme's instant navigation fetches (mkdocs.yml keeps it off)
    assert not [p for p in fetched if p.endswith("/sitemap.xml")], f"{path or 'home'}: sitemap.xml fetched at load"
    # an example fetched at load belongs to a figure within a screen of the first one
    for example in sorted({p.rsplit("/", 1)[1][:-5] for p in fetched if "/examples/" in p}):
        top = page.evaluate("(id) => Math.min(...[...document.querySelectorAll(`[data-example='${id}']`)]"
                            ".map((figure) => figure.getBoundingClientRect().top + scrollY))", example)
        assert top <= 2 * PHONE["height"], f"{path or 'home'}: {example}.json fetched at load for a figure at {top:.0f} px"
    # and so does a problem's or a quiz's data (its element's data-src)
    for src, top in page.evaluate("[...document.querySelectorAll('[data-src]')].map((element) =>"
                                  " [element.dataset.src, element.getBoundingClientRect().top + scrollY])"):
        if any(p.endswith("/" + src) for p in fetched):
            assert top <= 2 * PHONE["height"], f"{path or 'home'}: {src} fetched at load for an element at {top:.0f} px"


@pytest.mark.parametrize("path", PAGES)
def test_at_load_dom_size_bytes_and_examples_within_the_budget(browser, site_url, bare_bytes, path):
    """The DOM, the bytes and the examples fetched, once the page's work at load is done: none of them depends
    on how fast the machine is (its long tasks are timed by scripts/bench_long_tasks.py)."""
    page, context, fetched = load(browser, site_url + path)
    try:
        assert_within_the_budget_at_load(page, site_url, fetched, bare_bytes, path)
    finally:
        context.close()


def test_the_themes_bundle_arrives_compiled_so_the_main_thread_compiles_almost_none_of_it(browser, site_url):
    """finish/scripts.py heads the theme's bundle with V8's `//# allFunctionsCalledOnLoad`: its functions are
    compiled while it streams in, off the main thread. Counted in a trace of one load: the functions V8 compiles
    lazily on the main thread while the bundle runs (V8.CompileCode events), 322-520 without the hint, none
    with it."""
    context = browser.new_context(**MOBILE)
    page = context.new_page()
    browser.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-v8.compile"])
    try:
        page.goto(site_url + "scores/", wait_until="load")
    finally:
        trace = json.loads(browser.stop_tracing())
        context.close()
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"]["name"] == "CrRendererMain"}
    on_main = [e for e in events if (e["pid"], e["tid"]) in main and e.get("ph") == "X"]
    runs = [e for e in on_main if e["name"] == "EvaluateScript"
            and "/assets/javascripts/bundle." in e["args"].get("data", {}).get("url", "")]
    assert len(runs) == 1, f"the theme's bundle ran {len(runs)} times in the trace"
    start, end = runs[0]["ts"], runs[0]["ts"] + runs[0]["dur"]
    compiled = sum(e["name"] == "V8.CompileCode" and start <= e["ts"] < end for e in on_main)
    assert compiled < 30, f"while the theme's bundle ran, V8 compiled {compiled} functions on the main thread"
