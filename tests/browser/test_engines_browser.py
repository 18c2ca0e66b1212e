"""Zensical's pages in Chromium (tests/test_engines.py: the same content as MkDocs'). What differs between the
engines is the frame around the content (the theme's own files, its inline scripts, its links), so each page of
a sample is loaded as test_every_page.py loads MkDocs' pages: every reference answers, no console error and no
Content-Security-Policy violation, axe in both schemes as it loads and once every widget is set up, every heatmap
interactive and the theme's script running. The sample holds a page of each kind: Home, heatmaps, the problems,
the two live widgets (the decoder, the reader's sentence), the many links of cite/, the print edition and the 404
page.
"""
import functools
import re
import http.server
import threading

import pytest
from playwright.sync_api import expect

from conftest import PREFIX, PageProblems, _SubPathHandler, new_tab, scroll_through
from test_a11y import axe_in_both_schemes, watch_changes, without_transitions
from test_every_page import assert_everything_referenced_loads

SAMPLE = ["", "scores/", "problems/", "watch-it-write/", "your-sentence/", "cite/", "print/", "404.html"]


@pytest.fixture(scope="module")
def zensical_url(zensical_site):
    """Zensical's site, served under the sub-path as GitHub Pages would serve it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_SubPathHandler, directory=str(zensical_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    server.shutdown()


@pytest.mark.parametrize("path", SAMPLE)
def test_zensicals_page_works_as_mkdocs_does(desktop, zensical_url, path):
    page = new_tab(desktop, zensical_url)
    problems = PageProblems(page, zensical_url)
    statuses, violations = {}, []
    page.on("response", lambda r: statuses.setdefault(r.url, r.status))
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    response = page.goto(zensical_url + path, wait_until="networkidle", timeout=120_000)
    if path != "404.html":
        assert_everything_referenced_loads(page, zensical_url, path, response, statuses)
    without_transitions(page)
    watch_changes(page)
    axe_in_both_schemes(page, "as Zensical's page loads")
    scroll_through(page)
    axe_in_both_schemes(page, "once every widget of Zensical's page is set up", changed=True)
    expect(page.locator("figure.aih-heatmap[data-example]:not(.aih-on):not(.aih-merged)")).to_have_count(0)
    if path != "404.html":
        assert page.evaluate("typeof document$") == "object", "the theme's own script ran on Zensical's page"
    assert not violations, f"{path}: Zensical's page breaks its Content-Security-Policy: {violations[:3]}"
    problems.assert_clean()


def test_zensicals_own_search_finds_a_word_of_the_site(desktop, zensical_url):
    """Zensical brings its own search (a dialog, search.json), in place of Material's: it opens and finds pages."""
    page = new_tab(desktop, zensical_url)
    problems = PageProblems(page, zensical_url)
    page.goto(zensical_url, wait_until="networkidle")
    page.locator(".md-search__button").click()
    page.keyboard.type("softmax")
    expect(page.get_by_text(re.compile(r"^\d+ results$"))).to_be_visible()
    expect(page.get_by_role("link", name=re.compile("Softmax")).first).to_be_visible()
    problems.assert_clean()
