"""The watch-it-write page in Chromium: nothing of the model loads before Generate; Generate writes the numpy
model's tokens one row at a time; the cache's bytes and the dot products follow n, and n² without the cache;
the page works without JavaScript; axe finds nothing in either scheme after a run.
"""
import json
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from figures_src.engine.text import num
from figures_src.pages.watch_it_write import CONFIG, cache_bytes, dot_products
from models import decoder

from test_a11y import SCHEMES, axe_violations, open_in_scheme

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "generated" / "public"
RUN_TIMEOUT = 30_000  # ms
STEP_PAUSE = 250  # ms between two steps (watch-it-write-app.js's STEP_DELAY)
ON_DEMAND = ("/models/", "watch-it-write-app", "decoder.js")


@pytest.fixture(scope="module")
def model():
    published = json.loads(next(PUBLIC.glob("models/reverse-digits.*.json")).read_text())
    return {name: np.array(value) for name, value in published["params"].items()}, tuple(published["job_head"])


def open_armed(page, site_url):
    """The page, once its script has armed Generate and the presets (before, a click submits the bare form)."""
    page.goto(site_url + "watch-it-write/")
    expect(page.locator("[data-slot=status]")).to_contain_text("Nothing is downloaded")


def generate(page, site_url, digits, recompute=False):
    open_armed(page, site_url)
    page.fill("#aih-write-digits", digits)
    if recompute:
        page.check("[data-slot=recompute]")
    page.click("[data-slot=run]")
    expect(page.locator("#aih-write")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)


def step_rows(page):
    return [[cell.inner_text() for cell in row.locator("td").all()] for row in page.locator("[data-slot=steps] tr").all()]


def test_nothing_of_the_model_loads_before_generate(page, site_url):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url + "watch-it-write/", wait_until="networkidle")
    expect(page.locator("[data-slot=status]")).to_contain_text("Nothing is downloaded until you press Generate")
    assert not [url for url in requests if any(part in url for part in ON_DEMAND)]
    page.click("[data-slot=run]")
    expect(page.locator("#aih-write")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    assert [url for url in requests if "/models/reverse-digits." in url]


# Every number of rows the grid has had, in order, each once (and not the empty grid): from the page's own
# observer, which sees every change the script makes, where a poll from the test sees some.
COUNT_ROWS = """() => {
  window.__aihRows = [];
  new MutationObserver(() => {
    const rows = document.querySelectorAll("[data-slot=grid] tbody tr").length;
    if (rows && rows !== window.__aihRows.at(-1)) window.__aihRows.push(rows);
  }).observe(document.querySelector("#aih-write"), {subtree: true, childList: true});
}"""


@pytest.mark.parametrize("digits", ["314159", "907210"])
def test_generate_writes_the_models_tokens_one_row_per_step(page, site_url, model, digits):
    params, (layer, head) = model
    expected = decoder.generate(params, CONFIG, np.array([int(d) for d in digits]))
    open_armed(page, site_url)
    page.fill("#aih-write-digits", digits)
    page.evaluate(COUNT_ROWS)
    page.click("[data-slot=run]")
    grid_rows = page.locator("[data-slot=grid] tbody tr")
    expect(page.locator("#aih-write")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    # the heatmap grows by one row a step (counted in the page: polling from here could miss a step on a busy machine)
    assert page.evaluate("window.__aihRows") == list(range(1, CONFIG.n_positions + 1))
    written = "".join(decoder.SYMBOLS[t] for t in expected["tokens"][CONFIG.length + 1:])
    assert written == digits[::-1]
    assert page.locator("[data-slot=tokens]").inner_text() == written
    # each row's weights: the job head's, as numpy computed them, printed as the site prints them
    for i in range(CONFIG.n_positions):
        cells = grid_rows.nth(i).locator("td").all_inner_texts()
        assert cells[:i + 1] == [num(w) for w in expected["weights"][layer, i, head, :i + 1]]
        assert cells[i + 1:] == [""] * (CONFIG.n_positions - i - 1)
    rows = step_rows(page)
    assert [int(row[4]) for row in rows] == [dot_products(n, True) for n in range(1, CONFIG.n_positions + 1)]
    assert [int(row[3].replace(",", "")) for row in rows] == [cache_bytes(n) for n in range(1, CONFIG.n_positions + 1)]
    assert [int(row[4]) for row in rows] == [4 * n for n in range(1, CONFIG.n_positions + 1)]  # n per head and layer


def test_recompute_everything_writes_the_same_tokens_at_n_squared(page, site_url):
    generate(page, site_url, "271828", recompute=True)
    assert page.locator("[data-slot=tokens]").inner_text() == "828172"
    rows = step_rows(page)
    assert [int(row[4]) for row in rows] == [dot_products(n, False) for n in range(1, CONFIG.n_positions + 1)]
    assert [int(row[4]) for row in rows] == [4 * n * n for n in range(1, CONFIG.n_positions + 1)]


def test_bad_digits_get_a_clear_message(page, site_url):
    open_armed(page, site_url)
    page.fill("#aih-write-digits", "12a4")
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=status]")).to_contain_text("Type exactly 6 digits")
    expect(page.locator("[data-slot=results]")).to_be_hidden()


def flipped(body: bytes) -> bytes:
    return body[:100] + bytes([body[100] ^ 1]) + body[101:]


@pytest.mark.parametrize("served", ["missing", "cut short", "one byte changed"])
def test_a_failed_or_corrupted_weights_download_is_named_and_nothing_runs(failing_page, site_url, served):
    page = failing_page
    def answer(route):
        if served == "missing":
            return route.fulfill(status=404, body="not here")
        body = route.fetch().body()
        route.fulfill(status=200, body=body[:-10] if served == "cut short" else flipped(body),
                      headers={"content-type": "application/json"})

    page.route("**/models/reverse-digits.*.json", answer)
    open_armed(page, site_url)
    page.click("[data-slot=run]")
    status = page.locator("[data-slot=status]")
    # the answer goes through Playwright (route.fetch, then fulfil): on a loaded machine that took over the default 5 s
    expect(status).to_contain_text("The model could not be loaded: models/reverse-digits.", timeout=30_000)
    expect(status).to_contain_text("HTTP 404" if served == "missing" else "is not the file this page was built with")
    expect(page.locator("[data-slot=results]")).to_be_hidden()
    assert page.locator("#aih-write").get_attribute("data-state") != "done"


def test_a_preset_fills_the_box(page, site_url):
    open_armed(page, site_url)
    page.click("[data-preset='271828']")
    expect(page.locator("#aih-write-digits")).to_have_value("271828")


def test_without_javascript_the_static_run_is_there(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "watch-it-write/")
    expect(page.locator("#fig-write-run svg")).to_be_visible()
    expect(page.locator("#fig-write-training svg")).to_be_visible()
    expect(page.locator("[data-slot=status]")).to_contain_text("needs JavaScript")
    context.close()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_nothing_after_a_run(page, site_url, scheme):
    open_in_scheme(page, site_url, "watch-it-write/", scheme)
    page.click("[data-slot=run]")
    expect(page.locator("#aih-write")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    assert axe_violations(page) == []


def test_on_a_phone_the_grids_caption_stays_outside_its_scroll_box(page, site_url):
    page.set_viewport_size({"width": 390, "height": 844})
    generate(page, site_url, "314159")
    caption = page.locator(".aih-write__caption")
    expect(caption).to_contain_text("one row per step")
    assert page.locator(".aih-write__grid .aih-write__caption, .aih-write__grid caption").count() == 0
    box = caption.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # whole on the screen, wrapped, not scrolled away


def test_print_shows_one_line_instead_of_the_form(page, site_url):
    page.goto(site_url + "watch-it-write/")
    expect(page.locator(".aih-write__print")).to_be_hidden()
    page.emulate_media(media="print")
    for hidden in (".aih-write__form", "[data-slot=status]", ".aih-write__until"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.locator(".aih-write__print")).to_have_text(
        "Online, you can run the model yourself; here is one run, computed when the site was built.")
    expect(page.locator("#fig-write-run svg")).to_be_visible()


# ---------------------------------------------------------------- the review's findings (issue 54)

def test_until_you_press_generate_goes_once_generated(page, site_url):
    open_armed(page, site_url)
    until = page.locator(".aih-write__until")
    expect(until).to_contain_text("Until you press Generate")
    expect(until).to_be_visible()
    page.click("[data-slot=run]")
    expect(page.locator("#aih-write")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    expect(until, "once the reader has generated, 'Until you press Generate' no longer holds").to_be_hidden()


def test_an_invalid_input_after_a_run_clears_the_old_result(page, site_url):
    generate(page, site_url, "271828")
    expect(page.locator("[data-slot=tokens]")).to_have_text("828172")
    page.fill("#aih-write-digits", "12a4")
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=status]")).to_contain_text("Type exactly 6 digits")
    rule = "no old 'Written:' stays beside an error about another input"
    expect(page.locator("[data-slot=results]"), rule).to_be_hidden()
    expect(page.locator("[data-slot=tokens]"), rule).to_have_text("")


@pytest.mark.parametrize("typed", [" 314159", "314 159", "3 1 4 1 5 9"])
def test_digits_typed_with_spaces_are_read_whole(page, site_url, typed):
    """The box once cut " 314159" to " 31415" (maxlength 6): the reader typed six digits and was told they were not."""
    open_armed(page, site_url)
    box = page.locator("#aih-write-digits")
    box.fill("")
    box.press_sequentially(typed)  # keystroke by keystroke, as a reader types: a maxlength would cut here
    expect(box, "the box keeps every character typed: no maxlength cuts the last digit").to_have_value(typed)
    page.click("[data-slot=run]")
    expect(page.locator("#aih-write")).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    expect(page.locator("[data-slot=tokens]")).to_have_text("951413")


# When the grid reaches `rows` rows, the page's own observer types `digits` into the box and submits, between two
# steps of the run on screen (from the test, a click could come a step late on a busy machine). Every status the
# page shows is kept, in order.
SUBMIT_AT_ROW = """([rows, digits]) => {
  window.__aihStatuses = [];
  const root = document.querySelector("#aih-write");
  const status = root.querySelector("[data-slot=status]");
  new MutationObserver(() => window.__aihStatuses.push(status.textContent))
    .observe(status, {childList: true, characterData: true, subtree: true});
  const grid = new MutationObserver(() => {
    if (root.querySelectorAll("[data-slot=grid] tbody tr").length < rows) return;
    grid.disconnect();
    root.querySelector("#aih-write-digits").value = digits;
    root.querySelector("form").requestSubmit();
  });
  grid.observe(root, {subtree: true, childList: true});
}"""


def test_a_run_overtaken_at_its_last_step_never_says_done(page, site_url):
    """A Generate pressed during the last step's pause: the run it replaced said "Done: … 951413" over the newer
    run's rows for a second and a half (issue 55, D6)."""
    open_armed(page, site_url)
    page.fill("#aih-write-digits", "314159")
    page.evaluate(SUBMIT_AT_ROW, [CONFIG.n_positions, "271828"])
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=tokens]")).to_have_text("828172", timeout=RUN_TIMEOUT)
    expect(page.locator("#aih-write")).to_have_attribute("data-state", "done")
    statuses = page.evaluate("window.__aihStatuses")
    assert not [text for text in statuses if "951413" in text], \
        f"a run a newer Generate took over never writes its result over the newer one's: {statuses}"


def test_a_bad_entry_during_a_run_leaves_no_run_going(page, site_url):
    open_armed(page, site_url)
    page.fill("#aih-write-digits", "314159")
    page.evaluate(SUBMIT_AT_ROW, [3, "12a4"])
    page.click("[data-slot=run]")
    expect(page.locator("[data-slot=status]")).to_contain_text("Type exactly 6 digits")
    page.wait_for_timeout(STEP_PAUSE * (CONFIG.n_positions + 2))  # every step the stopped run had left, and more
    expect(page.locator("[data-slot=status]")).to_contain_text("Type exactly 6 digits")
    assert page.locator("#aih-write").get_attribute("data-state") is None, \
        "after a bad entry no run is said to be going: the run it interrupted stops"
    expect(page.locator("[data-slot=results]")).to_be_hidden()


def test_generate_runs_where_the_browser_has_no_crypto_subtle(page, site_url):
    """A page served over plain http (not a secure context) has no crypto.subtle: Generate failed there with
    "Cannot read properties of undefined (reading 'digest')" (issue 55, D2). The byte count still checks the file."""
    page.add_init_script("Object.defineProperty(Crypto.prototype, 'subtle', { get: () => undefined })")
    generate(page, site_url, "314159")
    expect(page.locator("[data-slot=tokens]"), "without crypto.subtle the model still runs").to_have_text("951413")
