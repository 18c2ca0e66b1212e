"""The your-sentence page in Chromium: nothing downloads before the reader asks; Run draws the grid and the
scores, whose numbers equal the numpy encoder's on the same shipped weights; the URL carries the sentence;
the page says what it needs without JavaScript and when the download fails; axe finds nothing.

Needs the model package and tokenizers (the test extra), as tests/test_your_sentence.py.
"""
import hashlib
import json
import random
import re
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from playwright.sync_api import expect

from figures_src.engine.text import num
from figures_src.pages.your_sentence import MAX_CHARACTERS, MAX_TOKENS
from models.minilm import analysis
from models.minilm.encoder import EncoderParams, encode
from models.minilm.model import load_model
from models.minilm.rollout import attention_rollout
from models.minilm.shipped import dequantize, pack, unpack

from test_a11y import SCHEMES, axe_violations

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "generated" / "public"
SENTENCE = "The trophy didn't fit in the brown suitcase because it was too big."
RUN_TIMEOUT = 180_000  # ms: a 29 MB download and the forward pass on a shared machine


@pytest.fixture(scope="module")
def numpy_weights():
    """SENTENCE's tokens and weights (L, H, n, n) from the numpy encoder on the shipped (dequantized) weights."""
    model = load_model()
    manifest_path = next(PUBLIC.glob("models/model.*.json"))
    manifest = json.loads(manifest_path.read_text())
    blob = (PUBLIC / manifest["files"]["weights"]).read_bytes()
    params = EncoderParams.from_state_dict(dequantize(manifest["tensors"], unpack(blob)), model.config)
    tokens, ids = model.tokenize(SENTENCE)
    assert len(ids) <= MAX_TOKENS
    return tokens, encode(params, model.config, ids).weights


def run(page, site_url, sentence=None):
    page.goto(site_url + "your-sentence/" + (f"#s={quote(sentence)}" if sentence else ""))
    if sentence is None:
        page.fill("#aih-yours-text", SENTENCE)
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)


def score_rows(page):
    return {row.get_attribute("data-kind"): [cell.inner_text() for cell in row.locator("td").all()]
            for row in page.locator("[data-slot=scores] tr").all()}


def test_nothing_downloads_before_the_reader_asks(page, site_url):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url + "your-sentence/", wait_until="networkidle")
    size = re.search(r'data-size="([^"]+)"', (ROOT / "generated" / "snippets" / "your-sentence.md").read_text())[1]
    expect(page.locator("[data-slot=run]")).to_contain_text(size)
    assert not [url for url in requests if "/models/" in url or "your-sentence-app" in url or "encoder.js" in url]


def test_run_draws_the_grid_and_scores_equal_to_numpy(page, site_url, numpy_weights):
    tokens, weights = numpy_weights
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    run(page, site_url)
    assert page.locator("[data-slot=tokens]").inner_text() == " ".join(tokens)
    canvas = page.locator("canvas[data-slot=grid]")
    expect(canvas).to_be_visible()
    assert canvas.evaluate("c => c.width") > 12 * 44
    # the thumbnail of layer 0, head 0 is coloured: its first pixel is not the canvas's blank
    assert canvas.evaluate("c => c.getContext('2d').getImageData(60 * devicePixelRatio, 20 * devicePixelRatio, 1, 1).data[3]") == 255
    rows = score_rows(page)
    entries = analysis._pattern_entries(weights)
    tables = {"previous": entries["previous"].mean(-1), "next": entries["next"].mean(-1),
              "sink": entries["cls"].mean(-1) + entries["sep"].mean(-1)}
    tie = float(page.locator("#aih-yours").get_attribute("data-tie-margin"))
    for kind, table in tables.items():
        pick = analysis.best_head(kind, table)
        named = pick.label if pick.score - pick.runner_up >= tie else f"{pick.label} and {pick.runner_up_label} (tied within rounding)"
        assert rows[kind][1:] == [named, num(pick.score, 3), num(pick.median, 3)], kind
    # the pronoun link: the weight the page names is numpy's, and no head weighs that word more from "it"
    what, label, score, _ = rows["pronoun"]
    query, key = re.fullmatch(r"from pronoun “(.+)”, most weight to “(.+)”", what).groups()
    layer, head = (int(n) - 1 for n in re.match(r"layer (\d+), head (\d+)", label).groups())  # counted from 1
    row, column = tokens.index(query), tokens.index(key)
    assert query == "it" and score == num(weights[layer, head, row, column], 3)
    assert weights[layer, head, row, column] == weights[:, :, row, column].max()
    # the first pattern's strongest head is open at once; a click on the canvas opens another in the site's heatmap widget
    viewer = page.locator("#your-sentence-viewer")
    expect(page.locator("[data-slot=open]")).to_contain_text(f"Showing {rows['previous'][1]};")
    shrink = canvas.evaluate("c => c.clientWidth / parseFloat(c.style.width)")  # the grid is scaled to its column
    canvas.click(position={"x": (52 + 3 * 48 + 20) * shrink, "y": (16 + 2 * 48 + 20) * shrink})  # weights[2, 3]: layer 3, head 4 to a reader
    expect(page.locator("[data-slot=open]")).to_contain_text("layer 3, head 4")
    expect(viewer).to_have_class(re.compile("aih-on"))
    expect(viewer.locator("[role=gridcell][data-i='1'][data-j='0']")).to_have_text(num(weights[2, 3, 1, 0]))
    # the arrow keys move to the next head
    canvas.press("ArrowRight")
    expect(page.locator("[data-slot=open]")).to_contain_text("layer 3, head 5")
    expect(viewer.locator("[role=gridcell][data-i='0'][data-j='0']")).to_have_text(num(weights[2, 4, 0, 0]))
    assert all(url.startswith(site_url) for url in requests)


def test_the_url_carries_the_sentence_and_reproduces_it(page, site_url, numpy_weights):
    run(page, site_url)
    assert page.url.endswith("#s=" + quote(SENTENCE, safe="~()*!.'"))
    first = score_rows(page)
    page.reload()
    expect(page.locator("#aih-yours-text")).to_have_value(SENTENCE)
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    assert score_rows(page) == first


def test_a_long_input_is_cut_with_a_note(page, site_url):
    run(page, site_url, "word " * 100)
    expect(page.locator("[data-slot=cut]")).to_be_visible()
    expect(page.locator("[data-slot=cut]")).to_contain_text("100 tokens; the first 62 are kept")


def test_without_javascript_the_page_says_what_it_needs(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "your-sentence/")
    expect(page.locator("[data-slot=status]")).to_contain_text("needs JavaScript")
    expect(page.locator("[data-slot=run]")).to_be_disabled()
    expect(page.locator("h2#what-runs-where")).to_be_visible()
    context.close()


def test_a_failed_download_is_reported_and_the_page_keeps_working(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/models/*.bin", lambda route: route.abort())
    page.goto(site_url + "your-sentence/")
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=status]")).to_contain_text("could not be loaded", timeout=30_000)
    expect(page.locator("[data-slot=progress]")).to_be_hidden()
    page.click("[data-slot=run]")  # pressed again: the same message, no error
    expect(page.locator("[data-slot=status]")).to_contain_text("reload the page to try again")
    page.click("text=Cite and reuse")  # the rest of the site still works
    expect(page.locator("h1")).to_contain_text("Cite and reuse")
    assert errors == []
    context.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_axe_violations_after_a_run(page, site_url, scheme):
    run(page, site_url)
    page.locator("canvas[data-slot=grid]").click(position={"x": 52 + 20, "y": 16 + 20})  # the first layer's first head opens
    expect(page.locator("#your-sentence-viewer")).to_have_class(re.compile("aih-on"))
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important }")
    page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
    assert axe_violations(page) == []


# ---------------------------------------------------------------- a failed or corrupted download never looks like success

def published():
    """(manifest dict, its bytes, the weights' bytes, the weights' file name) as the build published them."""
    manifest_bytes = next(PUBLIC.glob("models/model.*.json")).read_bytes()
    manifest = json.loads(manifest_bytes)
    return manifest, manifest_bytes, (PUBLIC / manifest["files"]["weights"]).read_bytes(), manifest["files"]["weights"].split("/")[-1]


def press_run_and_wait_for_the_failure(page, site_url):
    page.goto(site_url + "your-sentence/")
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "failed", timeout=RUN_TIMEOUT)
    page.wait_for_timeout(3000)  # whatever else was on its way has arrived by now
    status = page.locator("[data-slot=status]")
    expect(page.locator("[data-slot=progress]")).to_be_hidden()
    expect(page.locator("[data-slot=results]")).to_be_hidden()
    return status


def test_a_failed_vocabulary_download_stays_on_screen_naming_the_file(failing_page, site_url):
    """The vocabulary's 503 came first, then the weights' progress overwrote it: the page said "Downloading the
    model: 24.3 of 24.3 MB" under a progress bar while it had failed. The failure stops the other download, and
    stays."""
    page = failing_page
    manifest, *_ = published()
    vocabulary = manifest["files"]["vocabulary"].split("/")[-1]
    page.route("**/models/vocab.*.txt", lambda route: route.fulfill(status=503, body="busy"))
    status = press_run_and_wait_for_the_failure(page, site_url)
    expect(status).to_have_text(re.compile(rf"^The model could not be loaded \({re.escape(vocabulary)}: HTTP 503\)\."))


def test_a_missing_manifest_says_so_not_that_it_is_not_json(failing_page, site_url):
    page = failing_page
    page.route("**/models/model.*.json", lambda route: route.fulfill(status=404, body="<html>not found</html>"))
    status = press_run_and_wait_for_the_failure(page, site_url)
    expect(status).to_contain_text(re.compile(r"\(model\.[0-9a-f]{12}\.json: HTTP 404\)"))


def changed_bytes(blob):
    """The weights with 20,000 bytes changed at random places (same length)."""
    rng = random.Random(41)
    corrupted = bytearray(blob)
    for position in rng.sample(range(len(blob)), 20_000):
        corrupted[position] = (corrupted[position] + rng.randrange(1, 256)) % 256
    return bytes(corrupted)


@pytest.mark.parametrize("corrupt, what", [
    (changed_bytes, "its SHA-256 is not the one the site published"),
    (lambda blob: b"\x7f" * len(blob), "its SHA-256 is not the one the site published"),
    (lambda blob: blob[:-1000], None),
], ids=["20000 bytes changed", "all 0x7f", "cut short"])
def test_corrupted_weights_are_refused_naming_the_file(failing_page, site_url, served_bytes, corrupt, what):
    page = failing_page
    manifest, _, blob, name = published()
    body = corrupt(blob)
    what = what or f"{len(body)} bytes, not {len(blob)}"
    broken = served_bytes(body)
    page.route("**/models/*.bin", lambda route: route.continue_(url=broken))
    status = press_run_and_wait_for_the_failure(page, site_url)
    expect(status).to_have_text(f"The model could not be loaded (the download of {name} is corrupted: {what}). The rest of "
                                "the page and the site work without it; reload the page to try again.")
    expect(page.locator("[data-slot=tokens]")).to_have_text("")


def test_results_that_are_not_numbers_are_an_error_not_a_success(failing_page, site_url, served_bytes):
    """Weights that pass the file checks (here a manifest that vouches for all-0x7f weights) but give NaN: the page
    said "16 tokens … computed in your browser" over a grid of NaN. Now the run fails and says why."""
    page = failing_page
    manifest, _, blob, _ = published()
    body = pack(b"\x7f" * len(unpack(blob)))  # every int16 and every step 0x7f7f…: infinite weights
    manifest["integrity"]["weights"] = {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
    page.route("**/models/model.*.json", lambda route: route.fulfill(status=200, body=json.dumps(manifest), content_type="application/json"))
    broken = served_bytes(body)
    page.route("**/models/*.bin", lambda route: route.continue_(url=broken))
    status = press_run_and_wait_for_the_failure(page, site_url)
    expect(status).to_have_text(re.compile(r"^The model could not run on this sentence \(layer 1's weights are not all finite numbers\)"))


def test_a_failed_run_clears_the_previous_sentence(page, site_url):
    """Anything that fails in a run (here the address bar refusing the sentence) leaves no earlier sentence's
    tokens or grid on screen as if they were current, and says what failed."""
    run(page, site_url)
    expect(page.locator("[data-slot=tokens]")).not_to_have_text("")
    page.evaluate("() => { history.replaceState = () => { throw new Error('the address could not be changed'); }; }")
    page.fill("#aih-yours-text", "Another sentence.")
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "failed")
    expect(page.locator("[data-slot=status]")).to_have_text(
        "The model could not run on this sentence (the address could not be changed). Reload the page to try again.")
    expect(page.locator("[data-slot=results]")).to_be_hidden()
    expect(page.locator("[data-slot=tokens]")).to_have_text("")


def test_a_lone_surrogate_runs_as_the_replacement_character(page, site_url):
    """Half a character (a lone surrogate, which a script or a paste can put in the box) made encodeURIComponent
    throw: the page stayed on "Running all six layers…". It runs as U+FFFD, which the tokenizer drops."""
    model = load_model()
    run(page, site_url, "The cat sat.")
    page.evaluate("document.querySelector('#aih-yours-text').value = 'abc\\ud800def'")
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=tokens]")).to_have_text(" ".join(model.tokenize("abcdef")[0]), timeout=RUN_TIMEOUT)
    expect(page.locator("#aih-yours")).to_have_attribute("data-state", "done")
    assert page.url.endswith("#s=abc%EF%BF%BDdef")


def test_a_sentence_in_the_link_is_cut_at_the_boxs_limit_and_the_page_says_so(page, site_url):
    page.goto(site_url + "your-sentence/#s=" + "x" * 10_000)
    assert page.locator("#aih-yours-text").get_attribute("maxlength") == str(MAX_CHARACTERS)
    expect(page.locator("#aih-yours-text")).to_have_value("x" * MAX_CHARACTERS)
    expect(page.locator("[data-slot=status]")).to_contain_text(
        f"The sentence in the link was cut to its first {MAX_CHARACTERS} characters, the box's limit.")
    page.goto(site_url + "your-sentence/#s=short")
    page.reload()
    expect(page.locator("#aih-yours-text")).to_have_value("short")
    expect(page.locator("[data-slot=status]")).not_to_contain_text("was cut")


@pytest.mark.parametrize("text", ["", "   \t ", "\u200b\u200b\u200b", "\x07\x1b\x7f", "\ufffd \ufffd"],
                         ids=["empty", "white space", "zero-width spaces", "control characters", "U+FFFD"])
def test_an_empty_box_is_refused_and_the_model_not_run(page, site_url, text):
    """An empty or whitespace-only box would run the model on [CLS] [SEP] alone and score heads on nothing; so
    would a box of characters the tokenizer's normalisation drops (issue 55, D7: it reported scores of 1.000)."""
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url + "your-sentence/", wait_until="networkidle")
    page.fill("#aih-yours-text", text)
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=status]")).to_contain_text("Type a sentence first")
    page.wait_for_timeout(500)
    assert page.locator("#aih-yours").get_attribute("data-state") is None
    expect(page.locator("[data-slot=results]")).to_be_hidden()
    assert not [url for url in requests if "/models/" in url or "your-sentence-app" in url], \
        "a box with nothing the tokenizer keeps is refused before anything of the model loads"


def test_a_link_whose_sentence_is_half_a_character_is_refused_as_empty(page, site_url):
    """#s=%ED%A0%80 (a lone surrogate's bytes) reads as U+FFFD, which the tokenizer drops: nothing to run."""
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url + "your-sentence/#s=%ED%A0%80", wait_until="networkidle")
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=status]")).to_contain_text("Type a sentence first")
    page.wait_for_timeout(500)
    assert page.locator("#aih-yours").get_attribute("data-state") is None
    assert not [url for url in requests if "/models/" in url or "your-sentence-app" in url], \
        "a link's sentence with nothing the tokenizer keeps is refused before anything of the model loads"


@pytest.mark.parametrize("encoded", ["%0A", "%0D%0A", "%0D"])
def test_a_line_break_in_the_links_sentence_becomes_a_space(page, site_url, encoded):
    """The one-line box drops a line break, joining the words either side ("line oneline two", issue 55, D13)."""
    page.goto(site_url + f"your-sentence/#s=line%20one{encoded}line%20two")
    expect(page.locator("#aih-yours-text"), "a line break in #s= is read as one space").to_have_value(
        "line one line two")


def test_a_wrongly_shaped_manifest_is_never_kept_and_a_kept_one_is_fetched_again(failing_page, site_url):
    """A manifest that parses but is not one ({"error": …}, null) was kept in Cache Storage for good: every later
    visit failed with "Cannot convert undefined or null to object", asking the network for nothing (issue 55, D1)."""
    page = failing_page
    page.goto(site_url + "your-sentence/")
    manifest_url = site_url + page.locator("#aih-yours").get_attribute("data-model")  # from the site root
    page.evaluate("async (url) => (await caches.open('aih-your-sentence-model')).put(url, new Response('null'))",
                  manifest_url)
    name = manifest_url.rsplit("/", 1)[1]
    asked = []
    def answer(route):
        asked.append(route.request.url)
        route.fulfill(status=200, body='{"error": "busy"}', headers={"content-type": "application/json"})
    page.route("**/models/model.*.json", answer)
    status = press_run_and_wait_for_the_failure(page, site_url)
    assert asked, "a kept manifest of the wrong shape is dropped and asked for again"
    expect(status).to_contain_text(f"({name} is not the model's manifest")
    kept = page.evaluate("async (url) => !!(await (await caches.open('aih-your-sentence-model')).match(url))",
                         manifest_url)
    assert not kept, "a manifest of the wrong shape is never kept"
    page.unroute("**/models/model.*.json")
    page.goto(site_url + "your-sentence/")
    page.fill("#aih-yours-text", "A cat sat.")
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours"), "once the server answers with the manifest, the model runs").to_have_attribute(
        "data-state", "done", timeout=RUN_TIMEOUT)


def test_a_later_pronoun_is_scored_when_the_first_has_no_candidate(page, site_url):
    """"She" and "her" have no content word two tokens before them; "its" has "cat" (and "said"), so the page
    scores "its" instead of saying the sentence has no pronoun link."""
    run(page, site_url, "She said her cat ate its dinner.")
    rows = score_rows(page)
    assert "pronoun" in rows and rows["pronoun"][0].startswith("from pronoun “its”, "), rows
    expect(page.locator("[data-slot=no-pronoun]")).to_be_hidden()
    # the explanation under the table names the pronoun the page scores: the first one that has a candidate
    expect(page.locator("#aih-yours")).to_contain_text("from the first pronoun that has an earlier content word")


def test_the_rollout_beside_the_grid_is_numpys(page, site_url, numpy_weights):
    """The rollout heatmap is drawn, and the shares its sentence states are numpy's rollout of the same weights."""
    tokens, weights = numpy_weights
    run(page, site_url)
    rollout = attention_rollout(weights)[-1]
    n = len(tokens)
    own, special = np.diag(rollout).mean(), (rollout[:, 0] + rollout[:, n - 1]).mean()
    canvas = page.locator("canvas[data-slot=rollout]")
    expect(canvas).to_be_visible()
    assert canvas.evaluate("c => c.getContext('2d').getImageData(c.width - 2, c.height - 2, 1, 1).data[3]") == 255
    expected = (f"keeps on average {num(own, 2)} of its own token and takes {num(special, 2)} from [CLS] and [SEP]")
    expect(page.locator("[data-slot=rollout-summary]")).to_contain_text(expected)
    assert expected in canvas.get_attribute("aria-label")


def test_without_javascript_no_button_looks_usable(browser, site_url):
    """Without JavaScript, Run and the preset buttons would do nothing: they are disabled, as the page says."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "your-sentence/")
    buttons = page.locator("#aih-yours [data-preset], #aih-yours [data-slot=run]")
    assert buttons.count() == 4
    for button in buttons.all():
        expect(button).to_be_disabled()
    context.close()


def test_with_javascript_the_presets_fill_the_box(page, site_url):
    page.goto(site_url + "your-sentence/")
    preset = page.locator("[data-preset]").last
    expect(preset).to_be_enabled()
    preset.click()
    expect(page.locator("#aih-yours-text")).to_have_value(preset.get_attribute("data-preset"))


def test_on_paper_one_line_stands_for_the_form(page, site_url):
    """Printed, the form, its status and its no-JavaScript note give way to one sentence, which the screen hides."""
    page.goto(site_url + "your-sentence/")
    line = page.locator(".aih-yours-print")
    expect(line).to_be_hidden()
    page.emulate_media(media="print")
    expect(line).to_be_visible()
    for hidden in ("[data-slot=form]", "[data-slot=status]", "#aih-yours-text", "[data-preset]"):
        expect(page.locator(hidden).first).to_be_hidden()


# the mean of the opaque pixels in a box of CSS pixels [x, y, width, height]: the labels left of the cells
LABEL_BOXES = {"grid": [0, 16, 50, 44], "rollout": [0, 64, 60, 60]}  # "layer 1"; the rollout's first rows' tokens
LABEL_COLOUR = """(c, [x, y, width, height]) => {
  const ratio = devicePixelRatio;
  const data = c.getContext('2d').getImageData(x * ratio, y * ratio, width * ratio, height * ratio).data;
  let total = 0, count = 0;
  for (let k = 0; k < data.length; k += 4) if (data[k + 3] > 150) { total += data[k] + data[k + 1] + data[k + 2]; count++; }
  return count ? total / (3 * count) : null;
}"""


def test_a_scheme_switch_draws_the_labels_again(page, site_url):
    """The canvases' labels are drawn in the text colour: dark on the light scheme, light once the reader switches."""
    run(page, site_url)
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important }")
    for scheme, dark in (("default", True), ("slate", False), ("default", True)):
        page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
        for name in ("grid", "rollout"):
            page.wait_for_function(f"([c, box, dark]) => {{ const v = ({LABEL_COLOUR})(c, box); return v !== null && (dark ? v < 100 : v > 155); }}",
                                   arg=[page.locator(f"canvas[data-slot={name}]").element_handle(), LABEL_BOXES[name], dark], timeout=5_000)


def test_a_long_sentence_labels_every_third_token_of_the_rollout(page, site_url):
    """At 64 tokens the rollout's rows are 3.4 px: one label in three, and the summary says so."""
    run(page, site_url, " ".join(["word"] * 80))
    expect(page.locator("[data-slot=rollout-summary]")).to_contain_text("With 64 tokens, every third token is labelled")


# ---------------------------------------------------------------- issue 54: what the page says matches what is on screen

NO_ANTECEDENT = "The keys to the old cabinet are on the table, she said."  # nothing here is what “she” stands for


def test_the_pronoun_row_says_where_the_pronoun_looks_not_what_it_refers_to(page, site_url):
    """“she” → “cabinet” read as coreference in a sentence where “she” refers to nothing: the row names the
    word the pronoun weighs most, in words that say so, and the text under the table says it is no reference."""
    run(page, site_url, NO_ANTECEDENT)
    what = score_rows(page)["pronoun"][0]
    assert re.fullmatch(r"from pronoun “she”, most weight to “[^”]+”", what), (
        f"the pronoun row reads {what!r}: it must word the link as where the pronoun's weight goes, not as what it refers to")
    expect(page.locator("#aih-yours"), "the text under the table says the link is no reference").to_contain_text(
        "That word is where the pronoun looks, not what it refers to")


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_submit_after_a_run_takes_the_old_results_away(page, site_url, text):
    """The results on screen must be the box's sentence's: after an empty submit there is no sentence, so none."""
    run(page, site_url, "A cat sat on the mat.")
    expect(page.locator("[data-slot=results]")).to_be_visible()
    page.fill("#aih-yours-text", text)
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=status]")).to_contain_text("Type a sentence first")
    expect(page.locator("[data-slot=results]"), "an empty submit must not leave another sentence's results").to_be_hidden()
    assert page.locator("[data-slot=tokens]").inner_text() == "" and page.locator("[data-slot=scores] tr").count() == 0
    assert page.locator("#aih-yours").get_attribute("data-state") is None
    assert page.locator("#aih-yours").get_attribute("data-text") is None
    page.fill("#aih-yours-text", "A dog sat.")  # and the page still runs the next sentence
    page.click("[data-slot=run]")
    expect(page.locator("#aih-yours")).to_have_attribute("data-text", "A dog sat.", timeout=RUN_TIMEOUT)


def test_the_causal_mask_option_is_explained_beside_the_heatmap(page, site_url):
    """The head's heatmap offers the causal mask, a decoder's: the page says what it does and that this encoder
    was trained without it, next to the heatmap, where no change of the figure rewrites it (the caption is)."""
    run(page, site_url, "A cat sat on the mat.")
    viewer = page.locator("#your-sentence-viewer")
    expect(viewer).to_have_class(re.compile("aih-on"))
    viewer.locator("[data-slot=mask]").select_option("causal")
    note = page.locator("[data-slot=mask-note]")
    expect(note).to_be_visible()
    for words in ("causal mask", "at or before its query", "trained without that mask"):
        expect(note, f"the causal mask on an encoder must be explained: {words!r}").to_contain_text(words)
    assert viewer.locator("[data-slot=mask-note]").count() == 0, "the note stands outside the figure its menu rewrites"

