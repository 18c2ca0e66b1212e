"""The your-sentence page's flow in Chromium: after Run the heatmap shows the reader's sentence at once (the first
pattern's strongest head), the status follows the box, the button and the progress bar name one size, Copy link
round-trips, and a #s= link runs at once, with no request for the weights, when the browser holds the model.

The model's numbers are checked against numpy in test_your_sentence_browser.py; here, what the reader sees when.
"""
import functools
import http.server
import json
import re
import threading
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from conftest import PREFIX, SITE, _SubPathHandler
from figures_src.engine.text import num

RUN_TIMEOUT = 180_000  # ms: a 24 MB download and the forward pass on a shared machine
FIRST = "The trophy didn't fit in the brown suitcase because it was too big."
SECOND = "A cat sat on the mat."


def run(page, text):
    page.fill("#aih-yours-text", text)
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours")).to_have_attribute("data-text", text, timeout=RUN_TIMEOUT)
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "done")


def test_after_run_the_heatmap_shows_the_new_sentence_at_the_first_patterns_strongest_head(page, site_url):
    page.goto(site_url + "your-sentence/")
    viewer = page.locator("#your-sentence-viewer")
    for text in (FIRST, SECOND):
        run(page, text)
        tokens = page.locator("[data-slot=tokens]").inner_text().split(" ")
        expect(viewer).to_have_class(re.compile("aih-on"))  # no click: it opened by itself
        expect(viewer.locator("[role=rowheader]")).to_have_text(tokens)  # this sentence's queries, never the previous one's
        strongest = page.locator("[data-slot=scores] tr").first.locator("td").nth(1).inner_text()  # "layer 2, head 3"
        layer, head = (int(n) for n in re.fullmatch(r"layer (\d+), head (\d+)", strongest).groups())
        expect(page.locator("[data-slot=open]")).to_contain_text(f"Showing layer {layer}, head {head};")
        expect(viewer.locator("[data-slot=lead]")).to_have_value(str(head - 1))  # the menu counts from 0 underneath


def test_the_status_follows_the_box(page, site_url):
    page.goto(site_url + "your-sentence/")
    run(page, SECOND)
    status = page.locator("[data-slot=status]")
    expect(status).to_contain_text("computed in your browser")
    page.click("[data-preset]:text('coreference')")
    expect(status).to_have_text("The coreference sentence is in the box. Press Run to see its heads.")
    page.fill("#aih-yours-text", "Something else.")
    page.locator("#aih-yours-text").dispatch_event("input")
    expect(status).to_have_text("The box holds a new sentence. Press Run to see its heads.")


def test_the_button_and_the_progress_bar_name_the_same_size(page, site_url):
    manifest_path = next((SITE / "models").glob("model.*.json"))
    total = sum(entry["bytes"] for entry in json.loads(manifest_path.read_text())["integrity"].values())
    size = f"{num(total / 1e6, 1)} MB"
    page.goto(site_url + "your-sentence/")
    expect(page.locator("[data-slot=run]")).to_have_text(f"Run the model ({size} download, once)")
    seen = []
    page.expose_function("sawStatus", lambda text: seen.append(text))
    page.evaluate("""() => new MutationObserver(() => sawStatus(document.querySelector('[data-slot=status]').textContent))
        .observe(document.querySelector('[data-slot=status]'), { childList: true, characterData: true, subtree: true })""")
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    progress = [text for text in seen if text.startswith("Downloading the model:")]
    assert progress and all(text.endswith(f" of {size}.") for text in progress), progress[-3:]
    assert progress[-1] == f"Downloading the model: {size.removesuffix(' MB')} of {size}."
    assert page.locator("[data-slot=progress]").evaluate("bar => bar.max") == total


def test_copy_link_copies_the_sentences_link_and_says_so(browser, site_url):
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.split(PREFIX)[0])
    page = context.new_page()
    page.goto(site_url + "your-sentence/")
    sentence = "Ünïcode & spaces: it works?"
    page.fill("#aih-yours-text", sentence)
    page.click("[data-slot=copy]")
    expect(page.locator("[data-slot=copied]")).to_have_text("Link copied: it opens this page with the sentence in the box.")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == site_url + "your-sentence/#s=" + quote(sentence, safe="~()*!.'")
    other = context.new_page()
    other.goto(link)
    expect(other.locator("#aih-yours-text")).to_have_value(sentence)
    context.close()


@pytest.fixture
def counted_site():
    """The built site/ on a server of its own that counts the requests for each path."""
    counts = {}

    class Counting(_SubPathHandler):
        def do_GET(self):
            counts[self.path] = counts.get(self.path, 0) + 1
            super().do_GET()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Counting, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}{PREFIX}", counts
    server.shutdown()


def test_a_link_runs_at_once_when_the_model_is_cached_and_asks_for_no_weights(browser, counted_site):
    site_url, counts = counted_site
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + "your-sentence/#s=" + quote(SECOND))
    page.wait_for_timeout(1000)
    assert page.locator("#aih-yours").get_attribute("data-state") is None, "a first visit must not download by itself"
    page.click("[data-slot=run]")  # the first visit downloads the model
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    weights = [path for path in counts if path.endswith(".bin")]
    assert [counts[path] for path in weights] == [1], counts
    later = context.new_page()  # the same browser, later: the model is in its cache
    later.goto(site_url + "your-sentence/#s=" + quote(FIRST))
    expect(later.locator("#aih-yours")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)  # no click
    expect(later.locator("#aih-yours")).to_have_attribute("data-text", FIRST)
    expect(later.locator("#your-sentence-viewer")).to_have_class(re.compile("aih-on"))
    assert [counts[path] for path in weights] == [1], f"the weights were requested again: {counts}"
    context.close()


def test_the_button_and_the_status_say_when_the_model_needs_no_download(browser, site_url):
    """Issue 54: with the model in the browser's storage the button still offered a 29.2 MB download. First visit:
    the size; once the model runs in the page, a plain Run; a later visit that finds it stored says so."""
    manifest_path = next((SITE / "models").glob("model.*.json"))
    total = sum(entry["bytes"] for entry in json.loads(manifest_path.read_text())["integrity"].values())
    size = f"{num(total / 1e6, 1)} MB"
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + "your-sentence/")
    button = page.locator("[data-slot=run]")
    expect(button).to_have_text(f"Run the model ({size} download, once)")
    run(page, SECOND)
    expect(button, "once the model runs in the page, the button offers no download").to_have_text("Run the model")
    later = context.new_page()  # the same browser, later: the model is in its storage
    later.goto(site_url + "your-sentence/")
    expect(later.locator("[data-slot=run]"), "a model in the browser's storage is no download").to_have_text(
        "Run the model (stored in your browser, no download)")
    expect(later.locator("[data-slot=status]")).to_have_text("The model is stored in your browser: running it downloads nothing.")
    seen = []
    later.expose_function("sawStatus", lambda text: seen.append(text))
    later.evaluate("""() => new MutationObserver(() => sawStatus(document.querySelector('[data-slot=status]').textContent))
        .observe(document.querySelector('[data-slot=status]'), { childList: true, characterData: true, subtree: true })""")
    run(later, FIRST)
    assert not [text for text in seen if "Download" in text], f"a stored model is not downloaded, yet the page said: {seen}"
    context.close()
