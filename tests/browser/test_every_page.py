"""What holds on every page of the built site, checked on one load of the page for each way a reader meets it,
not on one load per check (a load of a long page costs Chromium about half a CPU second; the suite is CPU-bound):

- `test_with_javascript`, at a desktop's size (an embed page at the size of the frame it is made for):
  - the page and everything it references answer 200, and every link to this site stays under the sub-path;
  - our JavaScript on a page view, site.js and the page's own widgets, fits in 10 KB gzipped, and none of the
    in-browser model loads before the reader asks for it;
  - axe-core finds no violation as the page loads (its widgets still static), nor, once the reader has scrolled
    through it and every widget is set up, in what that changed, in either scheme;
  - the page runs clean under its Content-Security-Policy, every heatmap interactive;
  - an embed page: its heatmap, its credit and licence, and no theme chrome.
  The `page` fixture also fails the test on a console error, an uncaught exception or a request to another host.
- `test_on_a_phone`, with JavaScript: read from the top as it loads, blocks below the first screen still skipped
  (as Lighthouse's phone run finds the page), axe's colour rules find nothing in either scheme; then arrived at a
  section so that every block is laid out (html.aih-landed), nothing runs past the screen, and every figure
  letter is drawn at least 11 px tall.
- `test_without_javascript`, on a phone: the inline SVG figures and the MathML show, and every figure letter is
  drawn at least 11 px tall.
"""
import gzip
import re
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
from playwright.sync_api import expect

from conftest import PAGES, SITE, in_edition, new_tab, scroll_through
from test_a11y import axe_in_both_schemes, colours_as_loaded_in_both_schemes, watch_changes, without_transitions
from test_figure_text import PHONE, SMALLEST, measure_every_tab
from test_takeaway import shows_its_heatmap


# Pages that are read, not embedded (in either language): the phone checks. The 404 page has no links of its own
# under the sub-path (the theme writes them from site_url), so it is checked with axe alone.
READ = [path for path in PAGES if not in_edition(path).startswith("embed/")]
EMBED_SIZE = {"width": 640, "height": 800}

JS_BUDGET_BYTES = 10 * 1024
MODEL = {"your-sentence-app.js", "your-sentence-worker.js", "encoder.js", "wordpiece.js"}
# Pages whose view counts against the budget: not print/ (it loads no widget script, not even site.js:
# finish/edition.py), search/ or the embeds (engine/embed.py: the heatmap alone, and its own script).
BUDGETED = {path for path in READ if in_edition(path) not in ("print/", "search/")}

_checked_links = {}  # url -> status, shared by all pages of this worker: each internal link is fetched once


def gzipped_js(path):
    """A shipped script's size (`path`: its place in the site) as tests/test_js_unit.py counts it: gzip level 9."""
    return len(gzip.compress((SITE / path).read_bytes(), 9, mtime=0))


def assert_everything_referenced_loads(page, site_url, path, response, statuses):
    assert response.status == 200, f"{path}: HTTP {response.status}"
    bad = {url: status for url, status in statuses.items() if status != 200 and not url.startswith("data:")}
    assert not bad, f"{path}: requests that did not answer 200: {bad}"

    lang = "zh" if path.startswith("zh/") else "en"
    assert page.evaluate("document.documentElement.lang") == lang, f"{path}: <html lang> is the edition's, {lang}"
    assert page.evaluate("document.querySelector('meta[name=description]').content").strip()

    host = urlparse(site_url).netloc
    # The canonical and the hreflang <link>s name pages' addresses under site_url; browsers never fetch them.
    references = page.evaluate("""() => [...document.querySelectorAll(
        '[href]:not(link[rel=canonical]):not(link[rel=alternate]), [src], [srcset]')].map(e => ({
        tag: e.tagName.toLowerCase(),
        url: e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('srcset').split(' ')[0],
    }))""")
    for ref in references:
        url = urljoin(page.url, ref["url"])
        target = urlparse(url)
        if target.scheme not in ("http", "https"):
            continue
        if target.netloc != host:
            assert ref["tag"] == "a", f"{path}: <{ref['tag']}> refers to another host: {url}"
            continue
        assert target.path.startswith(urlparse(site_url).path), f"{path}: {url} escapes the sub-path"
        link = urldefrag(url).url
        if link.endswith("/attention-is-a-heatmap.pdf") and not (SITE / "attention-is-a-heatmap.pdf").is_file():
            continue  # `make pdf` prints it (the Pages workflow does); test_takeaway checks that it can
        if link not in _checked_links:
            _checked_links[link] = page.request.get(link).status
        assert _checked_links[link] == 200, f"{path}: {ref['tag']} -> {link} answered {_checked_links[link]}"


def assert_page_view_javascript_within_budget(path, fetched):
    # ours: the shared modules (javascripts/) and the widgets' (widgets/<name>/), as paths in the site
    ours = sorted({found.group(1) for p in fetched if "/assets/" not in p
                   for found in [re.search(r"/((?:javascripts|widgets)/[\w/-]+\.js)$", p)] if found})
    names = {script.rsplit("/", 1)[1] for script in ours}
    assert "site.js" in names, ours
    assert not MODEL & names, f"{path or 'home'} loaded the model's code before the reader asked: {ours}"
    total = sum(gzipped_js(script) for script in ours)
    assert total <= JS_BUDGET_BYTES, f"{path or 'home'}: {total} bytes of our JavaScript gzipped: {ours}"
    if in_edition(path) == "problems/":
        assert "heatmap.js" not in names, ours


def assert_an_embed_alone(page, path):
    name = in_edition(path).removeprefix("embed/").strip("/")
    shows_its_heatmap(page, name)
    assert page.locator(".aih-embed-credit a").get_attribute("href").endswith(f"/#{name}")
    expect(page.locator(".aih-embed-credit")).to_contain_text("CC BY 4.0")
    assert page.locator(".md-header, .md-sidebar, .md-footer").count() == 0, "no theme chrome"


@pytest.mark.parametrize("path", ["404.html", *PAGES] if PAGES else
                         pytest.fail("site/ is not built: run `make site`", pytrace=False))
def test_with_javascript(page, site_url, path):
    statuses, fetched, violations = {}, [], []
    page.on("response", lambda r: statuses.setdefault(r.url, r.status))
    page.on("request", lambda request: fetched.append(urlparse(request.url).path))
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    if in_edition(path).startswith("embed/"):
        page.set_viewport_size(EMBED_SIZE)
    response = page.goto(site_url + path, wait_until="networkidle", timeout=120_000)  # real heads: ~2 MB of examples
    if path != "404.html":
        assert_everything_referenced_loads(page, site_url, path, response, statuses)
    if path in BUDGETED:
        assert_page_view_javascript_within_budget(path, fetched)

    without_transitions(page)
    watch_changes(page)  # from before the first pass: a widget that finishes setting up during it is checked again
    axe_in_both_schemes(page, "as the page loads")
    scroll_through(page)
    axe_in_both_schemes(page, "once every widget is set up", changed=True)  # over what the scroll set up or moved

    expect(page.locator("figure.aih-heatmap[data-example]:not(.aih-on):not(.aih-merged)")).to_have_count(0)
    if in_edition(path).startswith("embed/"):  # the heatmap alone, without the theme (engine/embed.py)
        assert_an_embed_alone(page, path)
    elif path != "404.html":
        assert page.evaluate("typeof document$") == "object", "Material's own scripts ran"
    assert not violations


def wide_blocks(page):
    """What in the article runs past the screen, outside the boxes that scroll on their own."""
    return page.evaluate("""() => [...document.querySelectorAll("article *")]
        .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1
                             && !element.closest(".aih-math, .md-typeset__scrollwrap, .aih-figure__graphic, "
                                                 + ".aih-table-scroll, .aih-scroll, pre, details:not([open])"))
        .map((element) => element.tagName + ": " + element.textContent.slice(0, 60))""")


def assert_letters_big_enough(page, path):
    runs = measure_every_tab(page)
    small = sorted((size, figure, text) for figure, text, size in runs if size < SMALLEST)
    assert not small, f"{path}: {len(small)} glyph runs under {SMALLEST} px, smallest first: {small[:12]}"


@pytest.fixture(scope="module")
def phone(browser):
    """A phone-sized context with touch, for this worker's phone checks: each page in a new tab (`new_tab`)."""
    context = browser.new_context(viewport=PHONE, has_touch=True)
    yield context
    context.close()


@pytest.fixture(scope="module")
def phone_without_javascript(browser):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, java_script_enabled=False)
    yield context
    context.close()


@pytest.mark.parametrize("path", READ or [""])
def test_on_a_phone(phone, site_url, path):
    """Read from the top, the page as it loads, its lower blocks skipped at their placeholder sizes: no text a
    colour rule can fault, in either scheme (a skipped block that overran its placeholder put Home's last links on
    the footer). Then a reader who arrives at a section has every block laid out from the start (html.aih-landed):
    a formula or a table wider than a phone must scroll inside its own box, not the page sideways. (Read from the
    top, a skipped block clips what runs past it instead, so the check needs the landed page.) Then the figure
    text, each content tab opened in turn."""
    page = new_tab(phone, site_url)
    try:
        page.goto(site_url + path, wait_until="networkidle")
        assert not page.evaluate("document.documentElement.classList.contains('aih-landed')")
        colours_as_loaded_in_both_schemes(page, f"{path or 'home'} on a phone, read from the top")
        page.goto("about:blank")  # so that the address with a section is a load of its own, not a scroll
        page.goto(site_url + path + "#__top", wait_until="networkidle")
        assert page.evaluate("document.documentElement.classList.contains('aih-landed')")
        assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("innerWidth"), wide_blocks(page)[:3]
        assert_letters_big_enough(page, path)
    finally:
        page.close()


@pytest.mark.parametrize("path", READ or [""])
def test_without_javascript(phone_without_javascript, site_url, path):
    """The figures and the MathML are in the HTML itself: with JavaScript off the heatmaps stay SVG, and the
    page shows them all."""
    page = new_tab(phone_without_javascript, site_url)
    try:
        page.goto(site_url + path)
        # in one evaluation: a page's formulas number in the thousands on print/, and a round trip each cost
        # Chromium and Playwright about 40 CPU seconds there
        figures, formulas = page.evaluate("""() => [
          [...document.querySelectorAll("figure.aih-figure svg")].map((svg) => {
            const box = svg.getBoundingClientRect();
            const shown = box.width > 0 && box.height > 0 && svg.checkVisibility({visibilityProperty: true});
            return shown ? [Math.round(box.width), Math.round(box.height)] : null;  // not in a closed tab
          }),
          // not in a closed table of numbers: laid out once the reader opens it
          [...document.querySelectorAll("math")].filter((math) => !math.closest("details:not([open])"))
            .map((math) => math.getBoundingClientRect().width),
        ]""")
        shown = [box for box in figures if box is not None]
        assert len(shown) >= min(1, len(figures)), f"{path}: none of its {len(figures)} figures is shown"
        for k, (width, height) in enumerate(shown):
            assert width > 100 and height > 100, f"{path}: figure {k} has no size: {width} × {height}"
        not_laid_out = [k for k, width in enumerate(formulas) if not width > 0]
        assert not not_laid_out, f"{path}: formulas {not_laid_out[:10]} (of {len(formulas)}) are not laid out"
        assert_letters_big_enough(page, path)
    finally:
        page.close()
