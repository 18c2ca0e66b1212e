"""Issue 16 in a real browser: every embed page inside an <iframe> on another origin (alone: test_every_page.py); the print
stylesheet on two pages; `make pdf`'s PDF holding every section heading and every worked example's ID."""
import functools
import html
import http.server
import json
import re
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from conftest import WATCH_SHIFTS, new_tab, reveal_heatmaps
from figures_src.engine.site import nav_entries

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
EMBEDS = sorted(p.parent.name for p in (SITE / "embed").glob("*/index.html"))


@pytest.fixture(scope="module")
def foreign_origin(tmp_path_factory):
    """A second local server, on another port (so another origin), serving pages that frame the embeds."""
    folder = tmp_path_factory.mktemp("foreign")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_there_are_embeds():
    assert len(EMBEDS) >= 10, "run `make site`: too few embed pages"


def shows_its_heatmap(frame, name):
    expect(frame.locator(f'figure[data-example="{name}"].aih-on')).to_have_count(1)
    cells = frame.locator("[data-slot=grid] [data-i]")
    assert cells.count() >= 4
    expect(cells.first).to_be_visible()
    assert frame.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"), \
        "the embed is wider than its frame"


@pytest.mark.parametrize("name", EMBEDS)
def test_embed_in_an_iframe_on_another_origin(desktop, site_url, foreign_origin, name):
    folder, foreign_url = foreign_origin
    (folder / f"{name}.html").write_text(
        f'<!doctype html><html lang="en"><head><title>A course page</title><link rel="icon" href="data:,"></head><body><h1>A course page</h1>'
        f'<iframe src="{site_url}embed/{name}/" title="{name}" width="520" height="640"></iframe></body></html>',
        encoding="utf-8")
    page = new_tab(desktop, site_url)
    site_host, foreign_host = urlparse(site_url).netloc, urlparse(foreign_url).netloc
    assert site_host != foreign_host
    requests, errors = [], []
    page.on("request", lambda r: requests.append((r.frame.url, r.url)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(foreign_url + f"{name}.html", wait_until="networkidle")
    frame = next(f for f in page.frames if f.url == f"{site_url}embed/{name}/")
    shows_its_heatmap(frame, name)
    embed_requests = [url for frame_url, url in requests if urlparse(frame_url).netloc == site_host]
    assert embed_requests and all(urlparse(url).netloc == site_host for url in embed_requests), embed_requests
    assert all(urlparse(url).netloc in (site_host, foreign_host) for _, url in requests)
    assert not errors, errors
    page.close()



@pytest.mark.parametrize("viewport", [{"width": 412, "height": 823}, {"width": 1350, "height": 940}],
                         ids=["phone", "desktop"])
def test_drawing_the_heatmap_shifts_nothing_on_any_embed_page(browser, site_url, viewport):
    """The panel grows below what the page shows before it is drawn (title, credit, caption): no layout shift."""
    shifted = {}
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()  # one tab going from embed to embed: each document watches its own shifts
        page.add_init_script(WATCH_SHIFTS)
        for name in EMBEDS:
            page.goto(f"{site_url}embed/{name}/", wait_until="networkidle")
            expect(page.locator(f'figure[data-example="{name}"].aih-on')).to_have_count(1)
            page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            shifts = page.evaluate("window.__aihShifts")
            if sum(value for value, _ in shifts) > 0:
                shifted[name] = shifts
    finally:
        context.close()
    assert not shifted, shifted


def test_the_open_table_has_its_final_column_widths_before_its_last_rows_arrive(browser, site_url):
    """An embed's table is open, and a loaded machine lays it out while the page is still arriving: cut after its
    header row, or after its first row of numbers, the page must place every column header where the whole page
    does. (A row label or a number wider than those before it widened its column and moved the rest: a layout
    shift of 0.002 at a phone's width.) The collapsed first row that holds the widths (figures_src/engine/
    figures.py, _sizer_row) is never shown and takes no height."""
    moved = {}
    context = browser.new_context(viewport={"width": 412, "height": 823}, java_script_enabled=False)  # the static table
    try:
        page = context.new_page()
        for name in EMBEDS:
            url = f"{site_url}embed/{name}/"
            text = (SITE / "embed" / name / "index.html").read_text(encoding="utf-8")
            cuts = {"the header row": text.index("</thead>"),
                    "the first row": re.search(r'<tr><th scope="row">.*?</tr>', text).end()}
            page.goto(url)
            expect(page.locator("tr.aih-sizer")).to_be_hidden()
            assert page.locator("tr.aih-sizer").evaluate("row => row.getBoundingClientRect().height") == 0, name
            whole = column_headers(page)
            for where, end in cuts.items():
                page.route(url, lambda route, request: route.fulfill(content_type="text/html", body=text[:end]), times=1)
                page.goto(url)
                cut = column_headers(page)
                if cut != whole:
                    first = next((k for k, (a, b) in enumerate(zip(cut, whole)) if a != b), min(len(cut), len(whole)))
                    moved[f"{name}, cut after {where}"] = f"column {first + 1}: {cut[first:first + 1]} against {whole[first:first + 1]}"
    finally:
        context.close()
    assert not moved, f"column headers (x, width) in the cut page against the whole page: {moved}"


def column_headers(page):
    return page.evaluate("""() => [...document.querySelectorAll("table.aih-numbers thead th[scope=col]")]
        .map((th) => { const box = th.getBoundingClientRect(); return [box.x, box.width]; })""")


def shows_the_static_figure(page, name):
    """The figure as the reading pages draw it, and its numbers as a table: one row per query, one cell per key."""
    example = json.loads((SITE / "examples" / f"{name}.json").read_text(encoding="utf-8"))
    tokens = example["batch_tokens"][0] if "batch_tokens" in example else example["tokens"]
    figure = page.locator(f'figure[data-example="{name}"]')
    expect(figure.locator(".aih-figure__graphic svg.aih-svg")).to_be_visible()
    table = figure.locator("table.aih-numbers")
    expect(table).to_be_visible()
    assert table.locator("tbody tr").count() == len(tokens)
    assert table.locator("tbody td").count() == len(tokens) ** 2
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")


@pytest.mark.parametrize("name", ["ex-scores", "ex-multi-head", "ex-mask-padding"])
def test_without_javascript_an_embed_shows_the_static_figure_and_its_table(browser, site_url, name):
    """Issue 41: it said only that the heatmap needs JavaScript; a course page framing it showed nothing."""
    context = browser.new_context(viewport={"width": 412, "height": 823}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{site_url}embed/{name}/")
        shows_the_static_figure(page, name)
        link = page.locator(".aih-embed-json a")
        expect(link).to_have_text(f"{name}.json")
        response = page.request.get(link.evaluate("a => a.href"))
        assert response.ok and response.json()["id"] == name
        for selector in ("figcaption", ".aih-embed-credit"):
            expect(page.locator(selector)).to_be_visible()
        # the title, credit and caption above the heatmap's place, so the heatmap grows the page downwards
        tops = [page.locator(s).bounding_box()["y"] for s in
                (".aih-embed-title", ".aih-embed-credit", ".aih-embed-json", "figcaption", ".aih-figure__graphic")]
        assert tops == sorted(tops), tops
    finally:
        context.close()


@pytest.mark.parametrize("answer", [{"status": 200, "body": '{"id": "ex-scores", GARBAGE'},
                                    {"status": 200, "body": '{"id": "ex-scores", "steps": {"weights": "x"}}'},
                                    {"status": 404, "body": "not found"}], ids=["garbage", "wrong-shape", "404"])
def test_an_embed_whose_json_is_bad_keeps_its_static_figure_and_says_the_interactive_view_failed(browser, site_url,
                                                                                                 answer):
    context = browser.new_context(viewport={"width": 412, "height": 823})
    try:
        page = context.new_page()
        page.route("**/examples/ex-scores.json", lambda route: route.fulfill(content_type="application/json", **answer))
        page.goto(f"{site_url}embed/ex-scores/", wait_until="networkidle")
        expect(page.locator(".aih-static-note")).to_contain_text("Static figure")
        expect(page.locator("figure.aih-on")).to_have_count(0)
        shows_the_static_figure(page, "ex-scores")
    finally:
        context.close()


def test_an_embed_without_the_heatmaps_template_keeps_its_static_figure_with_a_note(failing_page, site_url):
    """An embed page carries the heatmap's template, its words in the page's language (figures_src/engine/embed.py;
    it had fetched 404.html's, which is English). Without it the heatmap cannot draw, and the page says why (issue
    55, D8: it had thrown and said nothing)."""
    page = failing_page

    def without_template(route):
        response = route.fetch()
        body = re.sub(r'<template id="aih-heatmap">.*?</template>', "", response.text(), flags=re.S)
        route.fulfill(response=response, body=body)

    page.route("**/embed/ex-scores/", without_template)
    page.goto(f"{site_url}embed/ex-scores/", wait_until="networkidle")
    note = page.locator(".aih-static-note")
    expect(note, "an embed that cannot have the heatmap's words says why it stays static").to_contain_text(
        "Static figure: the interactive view failed (no heatmap template in this page")
    expect(page.locator("figure.aih-on")).to_have_count(0)
    shows_the_static_figure(page, "ex-scores")


@pytest.mark.parametrize("path", ["scores/", "demo/"])
def test_printing_a_page_hides_the_controls_and_keeps_the_figures(page, site_url, path):
    page.goto(site_url + path, wait_until="networkidle")
    reveal_heatmaps(page)
    live = page.locator(".aih-live")
    assert live.count() >= 1
    expect(live.first).to_be_visible()
    page.emulate_media(media="print")
    page.evaluate("dispatchEvent(new Event('beforeprint'))")  # as the browser does when the reader prints
    for selector in (".aih-live", ".md-header", ".md-sidebar--primary", ".md-search", ".aih-download",
                     "details.aih-data > summary"):
        for k in range(page.locator(selector).count()):
            expect(page.locator(selector).nth(k)).to_be_hidden()
    figures = page.locator("figure.aih-figure")
    assert figures.count() >= 2
    for k in range(figures.count()):
        figure = figures.nth(k)
        expect(figure.locator(".aih-figure__graphic svg")).to_be_visible()
        expect(figure.locator("table.aih-numbers").first).to_be_visible()
        number = figure.locator("figcaption").evaluate("c => getComputedStyle(c, '::before').content")
        assert number.startswith('"Figure "') or "Figure" in number, number


def _text(markup):
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def squeeze(text):
    """Letters and digits only: the PDF's text breaks lines, hyphenates and spaces math its own way."""
    return re.sub(r"[^0-9a-z]", "", unicodedata.normalize("NFKC", text).lower())


def test_make_pdf_holds_every_section_heading_and_example_id(tmp_path):
    import pypdf  # noqa: PLC0415  (test-only: pinned in the test extra)

    output = tmp_path / "attention-is-a-heatmap.pdf"  # what `make pdf` runs, into a folder of the test's own
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_pdf.py"), str(SITE), str(output)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    reader = pypdf.PdfReader(output)
    assert len(reader.pages) >= 30
    text = squeeze(" ".join(p.extract_text() for p in reader.pages))

    printed = (SITE / "print" / "index.html").read_text(encoding="utf-8")
    headings = [_text(h) for h in re.findall(r"<h[12][^>]*>(.*?)</h[12]>", printed, re.S)]
    assert len(headings) >= 40
    missing = [h for h in headings if squeeze(h.removesuffix("¶")) not in text]
    assert not missing, f"headings not in the PDF: {missing}"

    ids = [p.stem for p in (SITE / "examples").glob("*.json")]
    assert len(ids) >= 20
    missing = [i for i in ids if squeeze(i) not in text]
    assert not missing, f"worked examples not in the PDF: {missing}"

    nav = [markdown.removesuffix(".md") for _, markdown in nav_entries()]
    sections = re.findall(r'<section class="aih-print-page" id="print-([a-z-]+)">', printed)
    assert sections == nav, "the print edition has every page, in the nav's order"


def test_print_edition_says_where_the_controls_its_instructions_mention_are():
    """The print copy has no controls: a page whose text says hover, click or drag the slider (the demo's "What to do"
    and "Try this"), or type and press Generate (Watch it write), gets a note after its title that quotes those words,
    with its web address; a page without such instructions gets none."""
    from finish import edition as print_edition  # noqa: PLC0415

    printed = (SITE / "print" / "index.html").read_text(encoding="utf-8")
    sections = dict(re.findall(r'<section class="aih-print-page" id="print-([a-z-]+)">(.*?)</section>', printed, re.S))
    demo = sections["demo"]
    assert "What to do" in demo and "Try this" in demo
    note = re.search(r'</h1><p class="aih-web-note"><em>[^<]*<a href="(http[^"]+)">\1</a>', demo)
    assert note and note.group(1).endswith("/demo/"), demo[:600]
    assert "aih-web-note" in sections["learning"]  # its Step slider
    assert "aih-web-note" not in sections["qkv"]
    write = re.search(r'<p class="aih-web-note">(.*?)</p>', sections["watch-it-write"]).group(1)
    assert "“type”" in write and "“press”" in write and "hover" not in write, write  # its digit box and Generate
    assert print_edition.web_note("<h1>T</h1><p>Plain text.</p>", "http://x/p/") == "<h1>T</h1><p>Plain text.</p>"
    assert 'href="http://x/p/"' in print_edition.web_note("<h1>T</h1><p>Drag the slider.</p>", "http://x/p/")
    quoted = ", ".join(print_edition.WORDS.line("web-note/word", word=word) for word in ("drag", "slider"))
    assert print_edition.web_note("<h1>T</h1><p>Drag the slider.</p>", "http://x/p/") == (
        '<h1>T</h1><p class="aih-web-note">' + print_edition.WORDS.line("web-note", words=quoted, address="http://x/p/")
        + "</p><p>Drag the slider.</p>"), "the note's sentence is words/site.md's web-note, quoting the page's words"


def test_print_edition_links_its_own_pages_within_itself():
    """A section's link to a page of the edition, or to a place in one, leads to that place in the edition, renamed
    if the edition renamed it (../masks/#recap -> #masks-recap), never out to the web page."""
    printed = (SITE / "print" / "index.html").read_text(encoding="utf-8")
    sections = dict(re.findall(r'<section class="aih-print-page" id="print-([a-z-]+)">(.*?)</section>', printed, re.S))
    pages = {"" if name == "index" else f"{name}/" for name in sections}
    outward = [href for body in sections.values() for href in re.findall(r'href="\.\./([^"#]*)', body) if href in pages]
    assert not outward, outward[:10]
    ids = set(re.findall(r'\bid="([^"]+)"', printed))
    missing = {href for body in sections.values() for href in re.findall(r'href="#([^"]+)"', body)} - ids
    assert not missing, sorted(missing)[:10]
    assert 'href="#notation"' in sections["masks"]  # its line under the page, to Home's table
    assert 'href="#causal-no-looking-ahead"' in sections["watch-it-write"]
