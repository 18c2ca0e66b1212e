"""axe-core finds no violation on any page of the site, in the light and the dark scheme: as the page loads
(its widgets still static), once the page has been scrolled through and every widget is set up, and in the
heatmap's changed states (a hovered cell, a followed row, a mask, 10× scale).
"""
from pathlib import Path

import pytest
from playwright.sync_api import expect
from conftest import scroll_through

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SCHEMES = ["default", "slate"]


def page_paths():
    pages = sorted(p for p in SITE.rglob("index.html") if "assets" not in p.relative_to(SITE).parts)
    return ["404.html"] + [p.parent.relative_to(SITE).as_posix().replace(".", "") + ("/" if p.parent != SITE else "") for p in pages]


def axe_violations(page):
    """Run axe-core in the page (evaluated over DevTools, so the page's CSP does not stop it), all rules.

    Left out: Material's <nav class="md-code__nav">, which its script adds unlabelled to every code block
    (landmark-unique, a best-practice rule, on pages with two code blocks) and no template can label.
    """
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    results = page.evaluate("axe.run({exclude: [['.md-code__nav']]}, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] if isinstance(n["target"][0], str) else str(n["target"]) for n in v["nodes"][:5])
        for v in results["violations"]
    ]


def open_in_scheme(page, site_url, path, scheme, *, enhance=True):
    page.goto(site_url + path, wait_until="networkidle")
    # no colour transitions: axe must see the scheme's final colours, not a blend half way; and every block laid
    # out: one that content-visibility skips (site.css) stands at a placeholder height, so a table taller than
    # that reads as a scrolled region until it has been on screen once
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important;"
                               " content-visibility: visible !important }")
    page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
    if enhance:
        scroll_through(page)


def test_axe_core_is_installed():
    assert AXE.exists(), "run `npm ci` (make test does) to install axe-core"
    assert len(page_paths()) >= 10


@pytest.mark.parametrize("path", page_paths())
def test_no_axe_violations(page, site_url, path):
    """First as loaded, the widgets below the first screen still static (multi-head's two heads, side by side,
    scrolled there and no keyboard could reach them); then scrolled through, every widget set up. Each time in
    both schemes, switched on the one page as the reader's toggle switches them (a load and a scroll-through
    per page, not per scheme)."""
    open_in_scheme(page, site_url, path, SCHEMES[0], enhance=False)
    for moment in ("as the page loads", "once every widget is set up"):
        if moment != "as the page loads":
            scroll_through(page)
        for scheme in SCHEMES:
            page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
            assert axe_violations(page) == [], f"{moment}, in the {scheme} scheme"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_axe_violations_in_the_demos_changed_states(page, site_url, scheme):
    open_in_scheme(page, site_url, "demo/", scheme)
    figure = page.locator("figure.aih-on").first
    figure.locator("[data-slot=mask]").select_option("causal")
    figure.locator("[data-slot=slider]").fill("1")
    figure.locator(".aih-grid [data-i='3'][data-j='1']").click()
    figure.locator(".aih-grid [data-i='1'][data-j='4']").hover()
    assert axe_violations(page) == []
    figure.locator(".aih-modes button[value='weights']").click()
    figure.locator("[data-slot=slider]").fill("-1")
    assert axe_violations(page) == []
