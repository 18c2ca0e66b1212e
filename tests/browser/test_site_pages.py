"""Every page of the built site, served under /attention-heatmap/ as GitHub Pages serves it, in Chromium.

Each page and everything it loads answers HTTP 200; every link to this site resolves; nothing is requested
from another host (the `page` fixture fails the test on that, and on any console error); other hosts appear
only in plain <a href> links a reader clicks.
"""
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

SITE = Path(__file__).resolve().parents[2] / "site"
PAGES = sorted(
    p.parent.relative_to(SITE).as_posix() + "/" if p.parent != SITE else ""
    for p in SITE.rglob("index.html")
    if "assets" not in p.parts
) if SITE.is_dir() else []

_checked_links = {}  # url -> status, shared by all pages: each internal link is fetched once


@pytest.mark.parametrize("path", PAGES or pytest.fail("site/ is not built: run `make site`", pytrace=False))
def test_page_and_everything_it_references_load(page, site_url, path):
    statuses = {}
    page.on("response", lambda r: statuses.setdefault(r.url, r.status))
    response = page.goto(site_url + path, wait_until="networkidle")
    assert response.status == 200, f"{path}: HTTP {response.status}"
    bad = {url: status for url, status in statuses.items() if status != 200 and not url.startswith("data:")}
    assert not bad, f"{path}: requests that did not answer 200: {bad}"

    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.evaluate("document.querySelector('meta[name=description]').content").strip()

    host = urlparse(site_url).netloc
    # The canonical <link> names the page's address under site_url; browsers never fetch it.
    references = page.evaluate("""() => [...document.querySelectorAll(
        '[href]:not(link[rel=canonical]), [src], [srcset]')].map(e => ({
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


@pytest.mark.parametrize("path", PAGES or [""])
def test_figures_and_math_render_without_javascript_help(page, site_url, path):
    """The inline SVG figures and the MathML are in the HTML itself: the page shows them with JS off."""
    context = page.context.browser.new_context(java_script_enabled=False)
    try:
        static = context.new_page()
        static.goto(site_url + path)
        figures = static.locator("figure.aih-figure svg")
        shown = [figures.nth(k) for k in range(figures.count()) if figures.nth(k).is_visible()]  # not in a closed tab
        assert len(shown) >= min(1, figures.count()), f"{path}: none of its {figures.count()} figures is shown"
        for k, figure in enumerate(shown):
            box = figure.bounding_box()
            assert box and box["width"] > 100 and box["height"] > 100, f"{path}: figure {k} has no size: {box}"
        for k in range(static.locator("math").count()):
            box = static.locator("math").nth(k).bounding_box()
            assert box and box["width"] > 0, f"formula {k} is not laid out"
    finally:
        context.close()


def test_the_scheme_toggle_switches_and_is_remembered_with_the_palette_stylesheet_trimmed(page, site_url):
    """hooks/palette_switch.py takes the theme's `[data-md-color-switching] *` rule out (it restyled every element
    as each page started). No stylesheet the page loads keys a rule on that attribute, and the theme's toggle still
    works: a click switches the scheme, the browser's colour scheme and theme colour follow, the toggle offers
    the way back, and the next page opens in the scheme chosen."""
    from playwright.sync_api import expect

    page.emulate_media(color_scheme="light")
    page.goto(site_url, wait_until="networkidle")
    switching_rules = page.evaluate("""() => {
        const found = [];
        const walk = (rules) => { for (const rule of rules) {
            if (rule.cssRules) walk(rule.cssRules);
            if (rule.selectorText?.includes("data-md-color-switching")) found.push(rule.selectorText);
        } };
        for (const sheet of document.styleSheets) walk(sheet.cssRules);
        return found;
    }""")
    assert switching_rules == []
    meta = "(name) => document.querySelector(`meta[name=${name}]`).content"
    assert page.evaluate("document.body.dataset.mdColorScheme") == "default"
    assert page.evaluate(meta, "color-scheme") == "light"

    page.locator('label[title="Switch to the dark scheme"]').click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    expect(page.locator('label[title="Switch to the light scheme"]')).to_be_visible()
    expect(page.locator('label[title="Switch to the dark scheme"]')).to_be_hidden()
    expect(page.locator("body")).not_to_have_attribute("data-md-color-switching", "")
    header = page.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor")
    rgb = "#" + "".join(f"{int(part):02x}" for part in header[header.index("(") + 1:-1].split(",")[:3])
    assert page.evaluate(meta, "theme-color") == rgb
    assert page.evaluate(meta, "color-scheme") == "dark"

    page.goto(site_url + "scores/", wait_until="networkidle")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    expect(page.locator('label[title="Switch to the light scheme"]')).to_be_visible()
