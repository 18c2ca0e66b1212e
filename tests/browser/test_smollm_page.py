"""The smollm page's side in Chromium, with a scripted worker (smollm_scripted_worker.js) in place of the model's:
it speaks the worker's protocol with made-up numbers, so each step and each failure can be forced and waited for.
The model's own numbers (greedy tokens against the numpy reference, memory over runs, a corrupted download) are
tests/browser/test_smollm_model.py's.

What is checked here: nothing is downloaded before Write; Write shows the prompt's rows and then one row per token
(the grid grows); Stop stops; rapid clicks leave one run on screen, the newest; the cut notice; hostile prompts
never break the page; the layer and head chooser names the key/value head and the query heads that share it; the
KV cache in bytes from the page's config; a #p= link repeats prompt and settings; a load failure and a write
failure are named; the page without JavaScript says what it needs; axe finds nothing after a run.
"""
import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from figures_src.pages.smollm import MAX_CHARACTERS, MAX_PROMPT_TOKENS
from models.smollm.model import CACHE_ITEMSIZE, load_config

from test_a11y import SCHEMES, axe_violations

SCRIPTED = (Path(__file__).parent / "smollm_scripted_worker.js").read_text(encoding="utf-8")
ROOT = "#aih-smollm"
TIMEOUT = 30_000


def scripted(page):
    """`page` with the scripted worker served for smollm-worker.js (and no weights: it asks for none)."""
    page.route("**/smollm-worker.js", lambda route: route.fulfill(body=SCRIPTED, content_type="text/javascript"))
    return page


def write(page, prompt, *, n=None, wait="done"):
    page.fill("#aih-smollm-prompt", prompt)
    if n is not None:
        page.fill("input[name=n]", str(n))
    page.click("[data-slot=write]")
    if wait:
        expect(page.locator(ROOT)).to_have_attribute("data-state", wait, timeout=TIMEOUT)


def grid_rows(page):
    """The grid's rows: its canvas is drawn one cell a row, so its height is rows × the cell's device pixels."""
    return page.evaluate("""() => { const c = document.querySelector('[data-slot=grid]');
        const text = document.querySelector('[data-slot=row]').textContent; return Number(/^Row (\\d+)/.exec(text)?.[1] ?? 0); }""")


def test_nothing_is_downloaded_before_write(page, site_url):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url + "smollm/")
    expect(page.locator("[data-slot=status]")).to_contain_text("Nothing is downloaded until you press Write")
    page.wait_for_timeout(500)
    loaded = [url for url in requests if "/models/" in url or "smollm-app" in url or "smollm-worker" in url]
    assert not loaded, f"the model's files and scripts load only when the reader asks: {loaded}"


def test_write_shows_the_prompt_then_one_row_per_token(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "The capital of France is", n=5)  # 24 characters: 8 pieces of the scripted worker's
    text = page.locator("[data-slot=text]")
    expect(text).to_have_text("The capital of France is w1 w2 w3 w4 w5")
    expect(page.locator("mark.aih-smollm__written")).to_have_count(5)
    assert grid_rows(page) == 8 + 5, "the grid has the prompt's rows, then one row per written token"
    expect(page.locator("[data-slot=status]")).to_have_text(
        "Done: the model wrote 5 tokens after the prompt's 8 tokens and stopped because it reached the number of tokens asked for.")
    top = page.locator("[data-slot=top] tr")
    expect(top).to_have_count(5)
    expect(top.first).to_contain_text("␣w5 (written)")  # a token's space is shown
    expect(page.locator("[data-slot=top-step]")).to_have_text(
        "The step that wrote row 13, “␣w5”: the five tokens the model found most probable after row 12 (“␣w4”), with its own "
        "probabilities (the softmax of its logits, before the temperature and top-k change them); the one it wrote is marked."), (
        "the table is the prediction made at the row before the newest token, in the model's own probabilities: the caption says so")
    expect(page.locator("[data-slot=cut]")).to_be_hidden()


def test_the_grid_grows_while_it_writes(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "abcdef", n=40, wait=None)
    seen = set()
    for _ in range(40):
        seen.add(grid_rows(page))
        if page.locator(ROOT).get_attribute("data-state") == "done":
            break
        page.wait_for_timeout(50)
    assert len(seen - {0}) >= 5, f"rows seen while writing: {sorted(seen)}: the grid grows a row at a time, not at the end"


def test_stop_stops_and_write_starts_again(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "Once upon a time", n=64, wait=None)
    expect(page.locator("mark.aih-smollm__written")).not_to_have_count(0, timeout=TIMEOUT)
    page.click("[data-slot=stop]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    expect(page.locator("[data-slot=status]")).to_contain_text("because you stopped it")
    written = page.locator("mark.aih-smollm__written").count()
    assert 0 < written < 64, written
    page.wait_for_timeout(300)
    assert page.locator("mark.aih-smollm__written").count() == written, "no token arrives after Stop"
    expect(page.locator("[data-slot=stop]")).to_be_disabled()
    write(page, "Once upon a time", n=3)
    expect(page.locator("mark.aih-smollm__written")).to_have_count(3)


def test_rapid_clicks_leave_the_newest_run_alone_on_screen(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    page.fill("input[name=n]", "6")
    for prompt in ["first prompt", "second", "third one here"]:
        page.fill("#aih-smollm-prompt", prompt)
        for _ in range(3):
            page.click("[data-slot=write]")
        page.click("[data-slot=stop]")
        page.click("[data-slot=write]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    page.wait_for_timeout(500)  # anything an older run still had on its way has arrived
    expect(page.locator("[data-slot=text]")).to_have_text("third one here w1 w2 w3 w4 w5 w6")
    page.problems.assert_clean()


def test_a_prompt_over_the_token_limit_is_cut_and_the_page_says_so(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "x" * (3 * MAX_PROMPT_TOKENS + 30), n=1)
    cut = page.locator("[data-slot=cut]")
    expect(cut).to_be_visible()
    expect(cut).to_have_text(f"Your prompt is longer than {MAX_PROMPT_TOKENS} tokens: the model reads only its last {MAX_PROMPT_TOKENS}.")
    write(page, "short", n=1)
    expect(cut).to_be_hidden()


@pytest.mark.parametrize("prompt", [" ", "   \t\n ", "\u200b\u200c\u200d\ufeff", "a" * 5000, "🙂👍🏽👨‍👩‍👧 emoji",
                                    "مرحبا بالعالم \u202eRTL", "\x00\x01\x07\x1b[31m\x7f", "\ud800 lone"],
                         ids=["space", "whitespace", "zero-width", "5000", "emoji", "rtl", "control", "surrogate"])
def test_hostile_prompts_never_break_the_page(page, site_url, prompt):
    scripted(page).goto(site_url + "smollm/")
    page.evaluate("(p) => { const box = document.querySelector('#aih-smollm-prompt'); box.value = p; }", prompt)
    page.fill("input[name=n]", "2")
    page.click("[data-slot=write]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    expect(page.locator("mark.aih-smollm__written")).to_have_count(2)
    page.problems.assert_clean()


def test_an_empty_prompt_is_refused_and_nothing_is_loaded(page, site_url):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    scripted(page).goto(site_url + "smollm/")
    page.fill("#aih-smollm-prompt", "")
    page.click("[data-slot=write]")
    expect(page.locator("[data-slot=status]")).to_have_text("Type a prompt first: the model continues a text, and the box is empty.")
    assert not [url for url in requests if "smollm-app" in url], "an empty box loads nothing"


def test_the_chooser_names_the_shared_key_value_head(page, site_url):
    config = load_config()
    scripted(page).goto(site_url + "smollm/")
    write(page, "Hello there", n=2)
    expect(page.locator("[data-slot=layer] option")).to_have_count(config.n_layers)
    expect(page.locator("[data-slot=heads] input[type=radio]")).to_have_count(config.n_heads)
    expect(page.locator("[data-slot=heads] fieldset")).to_have_count(config.n_kv_heads)
    page.select_option("[data-slot=layer]", label="7")
    page.locator("[data-slot=heads] label", has_text=re.compile(r"^5$")).click()
    # query head 5 (4 from 0) reads key/value head 4 // 3 = 1, counted from 1: 2, with query heads 4 and 6
    expect(page.locator("[data-slot=sharing]")).to_have_text(
        "Layer 7, query head 5 reads key/value head 2, as query heads 4 and 6 do: "
        "the 3 compare their own queries with the same keys and average the same values.")
    expect(page.locator("fieldset.aih-smollm__group--chosen legend")).to_have_text("Query heads reading key/value head 2")
    expect(page.locator("[data-slot=which]")).to_have_text(
        "Layer 7 · query head 5 · reads key/value head 2 (shared with query heads 4 and 6)"), "the grid says which head it shows"
    expect(page.locator("[data-slot=row]")).to_contain_text("in layer 7, query head 5")


def test_the_kv_cache_is_counted_from_the_config(page, site_url):
    config = load_config()
    scripted(page).goto(site_url + "smollm/")
    write(page, "abcdefghi", n=4)  # 3 pieces, then 4 rows
    n = 3 + 4
    grouped = config.cache_numbers(n) * CACHE_ITEMSIZE
    full = config.cache_numbers(n, config.n_heads) * CACHE_ITEMSIZE
    expect(page.locator("[data-slot=cache]")).to_have_text(
        f"KV cache after {n} tokens: {grouped:,} bytes with {config.n_kv_heads} key/value heads per layer; "
        f"{full:,} bytes if each of the {config.n_heads} query heads had its own.")


def test_a_link_repeats_the_prompt_and_the_settings(browser, site_url):
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.split("/attention-heatmap/")[0])
    page = scripted(context.new_page())
    page.goto(site_url + "smollm/")
    page.fill("#aih-smollm-prompt", "Once upon a time, a small robot")
    page.fill("input[name=t]", "0.7")
    page.fill("input[name=k]", "20")
    page.fill("input[name=seed]", "42")
    page.fill("input[name=n]", "9")
    page.click("[data-slot=copy]")
    expect(page.locator("[data-slot=copied]")).to_contain_text("Link copied")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link.endswith("#p=Once+upon+a+time%2C+a+small+robot&t=0.7&k=20&seed=42&n=9"), link
    other = scripted(context.new_page())
    other.goto(link)
    for name, value in {"t": "0.7", "k": "20", "seed": "42", "n": "9"}.items():
        expect(other.locator(f"input[name={name}]")).to_have_value(value)
    expect(other.locator("#aih-smollm-prompt")).to_have_value("Once upon a time, a small robot")
    context.close()


def test_a_links_prompt_is_cut_at_the_boxs_limit_and_the_page_says_so(page, site_url):
    page.goto(site_url + "smollm/#p=" + quote("y" * (MAX_CHARACTERS + 10)))
    expect(page.locator("#aih-smollm-prompt")).to_have_value("y" * MAX_CHARACTERS)
    expect(page.locator("[data-slot=status]")).to_contain_text(f"cut to its first {MAX_CHARACTERS} characters")


def test_a_failed_load_is_named_and_the_page_keeps_working(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    page.evaluate("() => { document.querySelector('#aih-smollm').dataset.model += '?fail=load'; }")
    page.click("[data-slot=write]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "failed", timeout=TIMEOUT)
    expect(page.locator("[data-slot=status]")).to_have_text(
        "The model could not be loaded (smollm-weights-0.0123.bin: HTTP 503). The rest of the page and the site work "
        "without it; if your connection dropped, reloading the page tries again.")
    expect(page.locator("[data-slot=results]")).to_be_hidden()
    expect(page.locator("[data-slot=stop]")).to_be_disabled()
    page.click("[data-slot=write]")  # again: the same message, no error
    expect(page.locator("[data-slot=status]")).to_contain_text("could not be loaded")


def test_a_missing_worker_is_named(page, site_url):
    page.route("**/smollm-worker.js", lambda route: route.fulfill(status=404, body="not found"))
    page.goto(site_url + "smollm/")
    page.click("[data-slot=write]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "failed", timeout=TIMEOUT)
    expect(page.locator("[data-slot=status]")).to_contain_text("The model could not be loaded (")
    page.problems.console_errors.clear()  # Chromium logs the 404 itself


def test_a_failed_write_clears_the_previous_run_and_says_so(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "fine", n=2)
    write(page, "please FAIL", wait="failed")
    expect(page.locator("[data-slot=status]")).to_have_text(
        "The page failed while the model wrote (the scripted worker was told to fail)."), (
        "an internal failure is named without a remedy (reloading) that cannot fix it")
    expect(page.locator("[data-slot=results]")).to_be_hidden()


def test_without_javascript_the_page_says_what_it_needs(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "smollm/")
    expect(page.locator("[data-slot=status]")).to_contain_text("needs JavaScript")
    expect(page.locator("[data-slot=write]")).to_be_disabled()
    for preset in page.locator("[data-preset]").all():
        expect(preset).to_be_disabled()
    expect(page.locator("h2#what-runs-where")).to_be_visible()
    expect(page.locator(f"{ROOT} .aih-smollm__sample")).to_contain_text("The capital of France is Paris."), (
        "without JavaScript the page shows the build's sample run")
    context.close()


def test_on_paper_one_line_stands_for_the_widget(page, site_url):
    page.goto(site_url + "smollm/")
    page.emulate_media(media="print")
    expect(page.locator(".aih-smollm-print")).to_be_visible()
    expect(page.locator(ROOT)).to_be_hidden()
    sample = page.locator(".aih-smollm-print .aih-smollm__sample")
    expect(sample).to_contain_text("The capital of France is Paris.")  # the build checks the first token is " Paris"
    expect(sample).to_contain_text(re.compile(r"KV cache after \d+ tokens: [\d,]+ bytes")), "paper shows a run and its cache"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_axe_violations_after_a_run(page, site_url, scheme):
    scripted(page).goto(site_url + "smollm/")
    write(page, "The capital of France is", n=3)
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important }")
    page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
    assert axe_violations(page) == []


def test_the_manifest_lists_every_file_with_its_length_and_sha256(site_url):
    """What the worker checks before it uses a file: the build wrote each under a content-hashed name."""
    import hashlib

    from conftest import SITE

    manifests = list((SITE / "models").glob("smollm.*.json"))
    assert len(manifests) == 1, manifests
    manifest = json.loads(manifests[0].read_text())
    assert manifest["files"].keys() == manifest["integrity"].keys()
    for stem, name in manifest["files"].items():
        content = (SITE / name).read_bytes()
        assert manifest["integrity"][stem] == {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}, name
        assert hashlib.sha256(content).hexdigest()[:12] in name, f"{name}: a new name whenever the content changes"


def test_a_cell_under_the_pointer_is_read_out(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "abcdefghijkl", n=2)  # 4 pieces, 2 rows: 6 rows, each row i's weights 1/i in the scripted worker
    grid = page.locator("[data-slot=grid]")
    grid.evaluate("grid => grid.scrollIntoView({ block: 'center' })")  # not under the sticky header
    box = grid.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.5 / 6, box["y"] + box["height"] * 3.5 / 6)  # row 4, key 1
    expect(page.locator("[data-slot=row]")).to_have_text("Row 4 (“jkl”), key 1 (“abc”) in layer 1, query head 1: weight 0.250.")
    page.mouse.move(box["x"] + box["width"] * 5.5 / 6, box["y"] + box["height"] * 0.5 / 6)  # row 1, key 6: masked
    expect(page.locator("[data-slot=row]")).to_contain_text("masked, a later token")
    page.mouse.move(0, 0)
    expect(page.locator("[data-slot=row]")).to_have_text(re.compile(r"^Row 6 "))


def test_the_arrow_keys_read_out_a_cell_and_label_the_grid(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "abcdefghijkl", n=2)  # 6 rows; row i's weights 1/i in the scripted worker
    grid = page.locator("[data-slot=grid]")
    grid.focus()
    for key in ["ArrowUp", "ArrowUp", "ArrowRight"]:  # from row 6, key 1: row 4, key 2
        page.keyboard.press(key)
    readout = "Row 4 (“jkl”), key 2 (“def”) in layer 1, query head 1: weight 0.250."
    expect(page.locator("[data-slot=row]")).to_have_text(readout)
    expect(grid).to_have_attribute("aria-label", readout)
    expect(grid).not_to_have_attribute("aria-labelledby", re.compile("."))
    page.keyboard.press("Escape")
    expect(page.locator("[data-slot=row]")).to_have_text(re.compile(r"^Row 6 "))
    expect(grid).to_have_attribute("aria-labelledby", "aih-smollm-grid-which aih-smollm-grid-caption")


def test_done_shows_every_readout_of_the_last_token_at_once(page, site_url):
    """When "Done" appears, the cache and the grid's row already count the last token: none a frame behind."""
    scripted(page).goto(site_url + "smollm/")
    page.evaluate("""() => { const root = document.querySelector('#aih-smollm');
        new MutationObserver(() => { if (root.dataset.state === 'done') window.seen = ['status', 'cache', 'row']
            .map((name) => root.querySelector(`[data-slot=${name}]`).textContent); })
        .observe(root, { attributes: true, attributeFilter: ['data-state'] }); }""")
    write(page, "Once upon a time", n=64, wait=None)  # 6 pieces
    expect(page.locator("mark.aih-smollm__written")).not_to_have_count(0, timeout=TIMEOUT)
    page.click("[data-slot=stop]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    status, cache, row = page.evaluate("window.seen")
    written = int(re.search(r"wrote (\d+) token", status).group(1))
    assert f"KV cache after {6 + written} tokens" in cache, f"at Done: {status!r} but {cache!r}: one count, not a frame apart"
    assert row.startswith(f"Row {6 + written} "), f"at Done: {status!r} but {row!r}"


def test_write_is_off_while_it_stops(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "Once upon a time", n=64, wait=None)
    expect(page.locator("mark.aih-smollm__written")).not_to_have_count(0, timeout=TIMEOUT)
    buttons = page.evaluate("""() => { document.querySelector('[data-slot=stop]').click();
        return ['write', 'stop'].map((name) => document.querySelector(`[data-slot=${name}]`).disabled); }""")
    assert buttons == [True, True], "while it stops (until the worker says done) neither Write nor Stop can be pressed"
    expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    expect(page.locator("[data-slot=write]")).to_be_enabled()


def test_a_refused_run_hides_the_previous_results(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    write(page, "fine", n=2)
    expect(page.locator("[data-slot=results]")).to_be_visible()
    page.fill("#aih-smollm-prompt", "")
    page.click("[data-slot=write]")
    expect(page.locator("[data-slot=results]")).to_be_hidden(), "a run that does not start shows no older run's results"


def test_stopped_before_the_first_token_shows_no_empty_table(page, site_url):
    scripted(page).goto(site_url + "smollm/")
    page.route("**/smollm-worker.js", lambda route: route.fulfill(
        body=SCRIPTED.replace("setTimeout(resolve, 30)", "setTimeout(resolve, 2000)"), content_type="text/javascript"))
    write(page, "Once upon a time", n=5, wait=None)
    expect(page.locator("[data-slot=results]")).to_be_visible(timeout=TIMEOUT)
    page.click("[data-slot=stop]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=TIMEOUT)
    expect(page.locator("[data-slot=top-box]")).to_be_hidden(), "no top five before the first token: the table is hidden"


def test_only_milestones_are_announced(page, site_url):
    """The status changes with every tick and token; a screen reader hears the start, done and errors only."""
    scripted(page).goto(site_url + "smollm/")
    status = page.locator("[data-slot=status]")
    assert status.get_attribute("role") is None and status.get_attribute("aria-live") in (None, "off"), "the visible status is not live"
    page.evaluate("""() => { window.said = []; const live = document.querySelector('[data-slot=announce]');
        new MutationObserver(() => window.said.push(live.textContent)).observe(live, { childList: true, characterData: true, subtree: true }); }""")
    write(page, "Once upon a time", n=20)
    said = page.evaluate("window.said")
    expect(page.locator("[data-slot=announce]")).to_have_attribute("role", "status")
    assert 2 <= len(said) <= 15 and said[-1].startswith("Done:"), f"announced: {said}"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_write_looks_like_the_primary_button_and_the_chosen_group_shows(page, site_url, scheme):
    scripted(page).goto(site_url + "smollm/")
    page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
    write(page, "fine", n=2)
    colours = page.evaluate("""() => { const style = (q) => getComputedStyle(document.querySelector(q));
        const probe = document.createElement('span'); probe.style.color = 'var(--md-primary-fg-color)'; document.body.append(probe);
        return { write: style('[data-slot=write]').backgroundColor, primary: getComputedStyle(probe).color,
                 group: style('.aih-smollm__group--chosen').borderTopColor, text: style('.aih-smollm').color }; }""")
    assert colours["write"] == colours["primary"], f"{scheme}: Write in the site's primary colour, not grey: {colours}"
    assert colours["group"] == colours["text"], f"{scheme}: the chosen group's border in the text colour, seen in both schemes"
