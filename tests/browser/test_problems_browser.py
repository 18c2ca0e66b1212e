"""The Problems page in headless Chromium: checking, hints, solutions and new variants, against the
published problems/<set>.json. The `page` fixture fails a test on any console error or foreign request."""
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect
from conftest import wait_for_the_page

from figures_src.engine.text import SUBSCRIPTED
from figures_src.pages.problems.sets import fmt
from tests.by_hand import PLAIN_SUBSCRIPT

SITE = Path(__file__).resolve().parents[2] / "site"

SETS = ["scale-scores", "soften-rows", "weighted-sum", "end-to-end", "masks", "multi-head", "push-gradient", "decode-step",
        "positions", "grouped-query"]


def published(set_id):
    return json.loads((SITE / "problems" / f"{set_id}.json").read_text(encoding="utf-8"))


def open_problems(page, site_url, *only):
    """The page, with these sets (all, if none is named) set up by their script."""
    page.goto(site_url + "problems/")
    for set_id in only or SETS:  # near the viewport, the script reads the problem's JSON and shows its buttons
        page.locator(f"#problem-{set_id}").scroll_into_view_if_needed()
        page.locator(f"#problem-{set_id} .aih-problem__actions").wait_for(state="visible")
    page.evaluate("scrollTo(0, 0)")
    return page


def cells(page, set_id):
    return page.locator(f"#problem-{set_id} .aih-problem-grid input")


def answer_text(x):
    return f"{x:.4f}"


# Each entry as a reader's typing leaves it: the value, then an input event (what the script listens to). In one
# evaluation for a whole grid: a Playwright fill a cell cost a round trip each, some 1,500 in this file.
# test_one_wrong_entry_is_marked_and_only_that_one and test_empty_and_non_numeric_entries_get_a_clear_message type
# with Playwright's own fill and keys.
TYPE_INTO = """([inputs, texts]) => inputs.forEach((input, k) => {
  input.focus();
  input.value = texts[k];
  input.dispatchEvent(new InputEvent("input", {bubbles: true, inputType: "insertText", data: texts[k]}));
})"""


def type_answers(page, set_id, texts):
    inputs = cells(page, set_id)
    assert inputs.count() == len(texts)
    inputs.evaluate_all(f"(inputs, texts) => ({TYPE_INTO})([inputs, texts])", texts)


def fill_answers(page, set_id, variant, wrong_at=None, typed_by_playwright=False):
    """Type the variant's answers in row-major order; entry number `wrong_at` gets a wrong one. In one evaluation
    (TYPE_INTO), or with `typed_by_playwright` one Playwright fill a cell, which also checks each is editable."""
    values = [x for p in variant["parts"] for row in p["values"] for x in row]
    texts = [answer_text(x + 1 if k == wrong_at else x) for k, x in enumerate(values)]
    if typed_by_playwright:
        inputs = cells(page, set_id)
        assert inputs.count() == len(values)
        for k, text in enumerate(texts):
            inputs.nth(k).fill(text)
    else:
        type_answers(page, set_id, texts)
    return len(values)


def matrix_texts(locator):
    """Every table under `locator` as (caption, [[cell text]])."""
    return locator.evaluate_all("""tables => tables.map(t => [
        t.caption ? t.caption.textContent : null,
        [...t.tBodies[0].rows].map(r => [...r.cells].slice(1).map(c => c.textContent))])""")


def as_text(plain):
    """What the page's text reads for the data's plain text: each subscript set as <sub> (W_Q reads WQ)."""
    return SUBSCRIPTED.sub(r"\1\2", plain)


def expected_matrix(m):
    """A matrix as the page shows it: its label's subscripts set as <sub> (W_Q reads WQ as text)."""
    return [as_text(m["label"]), [[fmt(x) for x in row] for row in m["values"]]]


@pytest.mark.parametrize("set_id", SETS)
def test_right_answers_are_all_marked_right(page, site_url, set_id):
    open_problems(page, site_url, set_id)
    total = fill_answers(page, set_id, published(set_id)["variants"][0])
    page.click(f"#problem-{set_id} [data-action=check]")
    root = page.locator(f"#problem-{set_id}")
    assert root.locator("td.aih-right").count() == total
    assert root.locator("[aria-invalid=true]").count() == 0
    assert root.locator(".aih-problem__status").text_content() == f"All {total} entries are right."
    tick = root.locator("td.aih-right").first.evaluate("td => getComputedStyle(td, '::after').content")
    assert tick == '"✓"'


@pytest.mark.parametrize("set_id", ["soften-rows", "end-to-end", "multi-head"])
def test_one_wrong_entry_is_marked_and_only_that_one(page, site_url, set_id):
    open_problems(page, site_url, set_id)
    wrong_at = 3
    total = fill_answers(page, set_id, published(set_id)["variants"][0], wrong_at=wrong_at, typed_by_playwright=True)
    cells(page, set_id).nth(0).press("Enter")  # Enter in a cell checks, like the button
    root = page.locator(f"#problem-{set_id}")
    invalid = root.locator("input[aria-invalid=true]")
    assert invalid.count() == 1
    assert invalid.evaluate("(el, k) => el === document.querySelectorAll(`#${el.closest('.aih-problem').id} .aih-problem-grid input`)[k]",
                            wrong_at)
    assert root.locator("td.aih-wrong").count() == 1 and root.locator("td.aih-right").count() == total - 1
    mark = root.locator("td.aih-wrong").evaluate("td => getComputedStyle(td, '::after').content")
    assert mark == '"✗"'
    status = root.locator(".aih-problem__status").text_content()
    assert status.startswith(f"{total - 1} of {total} right. 1 wrong.")
    label = invalid.get_attribute("aria-label")
    assert label.split(", row ")[0] in status or "Look again at row" in status


def first_slips():
    """(set, part index, slip) for the first slip of each part of each set's first variant."""
    return [(set_id, k, part["slips"][0]) for set_id in SETS
            for k, part in enumerate(published(set_id)["variants"][0]["parts"]) if part["slips"]]


@pytest.mark.parametrize(("set_id", "k", "slip"), first_slips(), ids=lambda x: x if isinstance(x, str) else None)
def test_a_common_slip_is_named_and_the_right_answer_is_still_right(page, site_url, set_id, k, slip):
    """Typing what the slip gives in one part (the others right) names the slip; then the right answer is right."""
    open_problems(page, site_url, set_id)
    variant = published(set_id)["variants"][0]
    root = page.locator(f"#problem-{set_id}")
    places = cells(page, set_id).evaluate_all("(inputs) => inputs.map((i) => [i.dataset.part, i.dataset.row, i.dataset.col].map(Number))")
    type_answers(page, set_id, [answer_text((slip["values"] if part == k else variant["parts"][part]["values"])[row][col])
                                for part, row, col in places])
    root.locator("[data-action=check]").click()
    status = root.locator(".aih-problem__status")
    label = variant["parts"][k]["label"]
    named = as_text(slip["message"] if len(variant["parts"]) == 1 else f"{label}: {slip['message']}")
    assert named in status.text_content()
    assert "Look again" not in status.text_content()  # the slip explains every wrong entry
    assert root.locator("td.aih-wrong").count() >= 1
    total = fill_answers(page, set_id, variant)
    root.locator("[data-action=check]").click()
    assert status.text_content() == f"All {total} entries are right."


def test_an_answer_that_is_no_slip_gets_look_again(page, site_url):
    open_problems(page, site_url, "scale-scores")
    variant = published("scale-scores")["variants"][0]
    fill_answers(page, "scale-scores", variant, wrong_at=0)
    page.click("#problem-scale-scores [data-action=check]")
    status = page.locator("#problem-scale-scores .aih-problem__status").text_content()
    assert "Look again at" in status and not any(as_text(s["message"]) in status for s in variant["parts"][0]["slips"])


def test_empty_and_non_numeric_entries_get_a_clear_message(page, site_url):
    open_problems(page, site_url, "scale-scores")
    first = cells(page, "scale-scores").nth(0)
    first.fill("abc")
    cells(page, "scale-scores").nth(1).fill("−1.5")  # a true minus sign is a number too
    page.click("#problem-scale-scores [data-action=check]")
    status = page.locator("#problem-scale-scores .aih-problem__status").text_content()
    total = cells(page, "scale-scores").count()
    assert "1 not a number: type a number such as" in status and f"{total - 2} still empty." in status
    assert first.get_attribute("aria-invalid") == "true"
    assert page.locator("#problem-scale-scores td.aih-bad").count() == 1
    first.fill("0")  # editing a marked cell clears its mark
    assert first.get_attribute("aria-invalid") is None


def test_hints_come_one_at_a_time(page, site_url):
    open_problems(page, site_url, "masks")
    hints = published("masks")["variants"][0]["hints"]
    root = page.locator("#problem-masks")
    assert root.locator(".aih-problem__all-hints").is_hidden()
    for k in range(len(hints) + 1):
        root.locator("[data-action=hint]").click()
    items = root.locator(".aih-problem__hints li")
    assert items.all_text_contents() == [as_text(h) for h in hints]
    assert root.locator(".aih-problem__status").text_content() == "No more hints: open the solution."


@pytest.mark.parametrize("set_id", SETS)
def test_solution_shows_the_numbers_of_the_data_file(page, site_url, set_id):
    open_problems(page, site_url, set_id)
    variant = published(set_id)["variants"][0]
    root = page.locator(f"#problem-{set_id}")
    root.locator("[data-action=solution]").click()
    solution = root.locator(".aih-problem__solution")
    assert solution.get_attribute("open") is not None
    assert page.evaluate("document.activeElement.closest('.aih-problem__solution') !== null")
    texts = solution.locator(".aih-problem__steps > p").all_text_contents()
    assert texts == [as_text(s["text"]) for s in variant["solution"]]
    shown = matrix_texts(solution.locator("table.aih-problem-matrix"))
    assert shown == [expected_matrix(s["matrix"]) for s in variant["solution"] if "matrix" in s]
    assert matrix_texts(root.locator(".aih-problem__inputs table")) == [expected_matrix(m) for m in variant["inputs"]]


def test_new_variant_changes_the_inputs_and_is_remembered(page, site_url):
    open_problems(page, site_url, "end-to-end", "scale-scores")
    data = published("end-to-end")
    root = page.locator("#problem-end-to-end")
    before = matrix_texts(root.locator(".aih-problem__inputs table"))
    cells(page, "end-to-end").nth(0).fill("1")
    root.locator("[data-action=next]").click()
    after = matrix_texts(root.locator(".aih-problem__inputs table"))
    assert after != before
    assert after == [expected_matrix(m) for m in data["variants"][1]["inputs"]]
    assert root.locator(".aih-problem__id").text_content() == "end-to-end-02"
    assert root.locator(".aih-problem__prompt").text_content() == as_text(data["variants"][1]["prompt"])
    assert cells(page, "end-to-end").nth(0).input_value() == ""
    assert f"Variant 2 of {len(data['variants'])}" in root.locator(".aih-problem__status").text_content()
    # Right answers of the new variant are right: the check follows the variant shown.
    total = fill_answers(page, "end-to-end", data["variants"][1])
    root.locator("[data-action=check]").click()
    assert root.locator("td.aih-right").count() == total

    page.reload()
    open_problems(page, site_url)  # every set set up: none but end-to-end stores anything
    assert root.locator(".aih-problem__id").text_content() == "end-to-end-02"
    assert page.locator("#problem-scale-scores .aih-problem__id").text_content() == "scale-scores-01"
    stored = page.evaluate("Object.entries(localStorage).filter(([k]) => k.startsWith('aih-problems:'))")
    assert stored == [["aih-problems:end-to-end", "1"]]  # only the position, nothing the reader typed


def test_variants_wrap_around(page, site_url):
    open_problems(page, site_url, "weighted-sum")
    root = page.locator("#problem-weighted-sum")
    count = len(published("weighted-sum")["variants"])
    for _ in range(count):
        root.locator("[data-action=next]").click()
    assert root.locator(".aih-problem__id").text_content() == "weighted-sum-01"


def test_controls_are_labelled_buttons_and_inputs(page, site_url):
    open_problems(page, site_url)
    labels = page.locator(".aih-problem-grid input").evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    assert all(labels) and len(set(labels)) == len(labels)
    names = page.locator("#problem-masks .aih-problem__actions button").all_text_contents()
    assert names == ["Check", "Hint", "Solution", "New variant"]
    assert page.locator("#problem-masks .aih-problem__status").get_attribute("role") == "status"


def test_back_from_another_page_shows_the_variant_the_reader_was_on(page, site_url):
    """Each page view is a full load: Back sets the page up afresh (or the browser keeps it whole), with the
    set on the variant the reader left it at, and each button doing its work once."""
    open_problems(page, site_url, "masks")
    page.locator("#problem-masks [data-action=next]").click()
    page.click(".md-content a[href$='masks/']")
    wait_for_the_page(page, "masks/")
    page.go_back()
    wait_for_the_page(page, "problems/")
    page.locator("#problem-masks").scroll_into_view_if_needed()
    expect(page.locator("#problem-masks .aih-problem__id")).to_have_text("masks-02")
    page.locator("#problem-masks [data-action=hint]").click()
    assert page.locator("#problem-masks .aih-problem__hints li").count() == 1  # one listener, not two


def test_without_javascript_the_solutions_are_in_collapsible_blocks(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(site_url + "problems/")
        variant = published("soften-rows")["variants"][0]
        root = page.locator("#problem-soften-rows")
        assert root.locator(".aih-problem__actions").is_hidden()
        # the inputs and the answer grid are there to work on by hand, with the note on checking
        assert matrix_texts(root.locator(".aih-problem__inputs table")) == [expected_matrix(m) for m in variant["inputs"]]
        assert root.locator(".aih-problem-grid input").count() == sum(len(p["rows"]) * len(p["cols"]) for p in variant["parts"])
        assert root.locator(".aih-problem__nojs").is_visible()
        assert root.locator("details.aih-problem__all-hints li").all_text_contents() == [as_text(h) for h in variant["hints"]]
        solution = root.locator("details.aih-problem__solution")
        assert solution.get_attribute("open") is None
        solution.locator("summary").click()
        shown = matrix_texts(solution.locator("table.aih-problem-matrix"))
        assert shown == [expected_matrix(s["matrix"]) for s in variant["solution"] if "matrix" in s]
    finally:
        context.close()


AXE = SITE.parent / "node_modules" / "axe-core" / "axe.min.js"


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_checked_hinted_and_solved_problems_have_no_axe_violations(page, site_url, scheme):
    """axe-core inside the problem blocks, after checking (right, wrong and non-numeric entries), hints and
    an open solution, in both colour schemes. Evaluated over DevTools, so the page's CSP does not stop it."""
    open_problems(page, site_url)
    page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
    for set_id in SETS:
        fill_answers(page, set_id, published(set_id)["variants"][0], wrong_at=0)
        cells(page, set_id).nth(1).fill("abc")
        root = page.locator(f"#problem-{set_id}")
        root.locator("[data-action=check]").click()
        root.locator("[data-action=hint]").click()
        root.locator("[data-action=solution]").click()
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    results = page.evaluate("axe.run({include: [['.aih-problem']]}, {resultTypes: ['violations']})")
    assert [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in results["violations"]] == []


def test_a_missing_data_file_leaves_the_static_problem_and_says_so(browser, site_url):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.route("**/problems/masks.json", lambda route: route.fulfill(status=404, body="not here"))
        page.goto(site_url + "problems/")
        page.locator("#problem-scale-scores .aih-problem__actions").wait_for(state="visible")
        root = page.locator("#problem-masks")
        root.scroll_into_view_if_needed()  # its data is fetched near the viewport
        status = root.locator(".aih-problem__status")
        status.filter(has_text="did not load").wait_for()
        assert "404" in status.text_content()
        assert root.locator(".aih-problem__actions").is_hidden()
        root.locator("details.aih-problem__solution summary").click()  # opened, the static solution is still there
        # its body is unwrapped on the <details>' toggle event, a task after the click: wait for it, then count
        root.locator("details.aih-problem__solution table").first.wait_for()
        assert root.locator("details.aih-problem__solution table").count() > 1
    finally:
        context.close()


@pytest.mark.parametrize("stored", ["2.5", "-1", "-Infinity", "12", "garbage"])
def test_a_bad_stored_variant_is_ignored_and_the_first_variant_works(page, site_url, stored):
    page.add_init_script(f"localStorage.setItem('aih-problems:scale-scores', {json.dumps(stored)})")
    open_problems(page, site_url, "scale-scores")
    root = page.locator("#problem-scale-scores")
    count = len(published("scale-scores")["variants"])
    assert root.locator(".aih-problem__id").text_content() == "scale-scores-01"
    assert root.locator(".aih-problem__number").text_content() == "1"
    root.locator("[data-action=hint]").click()
    assert root.locator(".aih-problem__hints li").count() == 1
    root.locator("[data-action=check]").click()
    assert "still empty" in root.locator(".aih-problem__status").text_content()
    root.locator("[data-action=next]").click()
    assert f"Variant 2 of {count}" in root.locator(".aih-problem__status").text_content()
    assert root.locator(".aih-problem__id").text_content() == "scale-scores-02"


def test_data_that_cannot_be_shown_leaves_the_static_problem_and_says_so(browser, site_url):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.route("**/problems/masks.json", lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps({"set": "masks", "variants": [{"id": "x"}]})))
        page.goto(site_url + "problems/")
        page.locator("#problem-scale-scores .aih-problem__actions").wait_for(state="visible")
        root = page.locator("#problem-masks")
        root.scroll_into_view_if_needed()  # its data is fetched near the viewport
        root.locator(".aih-problem__status").filter(has_text="did not load").wait_for()
        assert root.locator(".aih-problem__actions").is_hidden()
        assert root.locator(".aih-problem__all-hints").is_visible()  # the static hints, as the status line says
    finally:
        context.close()


# Every variant of a set in turn (New variant), each with all its hints shown: what the reader then reads, and
# how many subscripts it holds. In one evaluation a set: the script redraws a variant as the click's own work.
EVERY_VARIANT = """(root, [shown, count, hints]) => {
  const seen = [];
  for (let k = 0; k < count; k += 1) {
    if (k) root.querySelector("[data-action=next]").click();
    for (let h = 0; h < hints[k]; h += 1) root.querySelector("[data-action=hint]").click();
    const blocks = [...root.querySelectorAll(shown)];
    seen.push([blocks.map((block) => block.textContent), new Set(blocks.flatMap((block) => [...block.querySelectorAll("sub")])).size]);
  }
  return seen;
}"""


def test_every_variant_typesets_its_symbols(page, site_url):
    """The data write d_k, W_Q, w_ij as plain text; every variant the script draws sets them as subscripts."""
    open_problems(page, site_url)
    shown = ".aih-problem__prompt, .aih-problem__inputs caption, .aih-problem-part legend, .aih-problem__steps, .aih-problem__hints"
    plain_in_data = 0
    for set_id in SETS:
        variants = published(set_id)["variants"]
        seen = page.locator(f"#problem-{set_id}").evaluate(
            EVERY_VARIANT, [shown, len(variants), [len(variant["hints"]) for variant in variants]])
        assert len(seen) == len(variants)
        for k, (variant, (texts, subscripts)) in enumerate(zip(variants, seen)):
            plain_in_data += len(PLAIN_SUBSCRIPT.findall(json.dumps(variant, ensure_ascii=False)))
            assert not [t for t in texts if PLAIN_SUBSCRIPT.search(t)], (set_id, k, texts)
            assert subscripts >= len(PLAIN_SUBSCRIPT.findall(json.dumps([variant["prompt"], variant["hints"]], ensure_ascii=False))), (set_id, k)
        assert page.locator(f"#problem-{set_id} .aih-problem__id").text_content() == variants[-1]["id"]  # it did move on
    assert plain_in_data > 50, plain_in_data


GRID = """(id) => { const grid = document.querySelector(`#problem-${id} .aih-problem-grid`);
  if (!grid) return [document.querySelectorAll(`#problem-${id} *`).length];
  const box = grid.getBoundingClientRect();
  return [grid.querySelectorAll("input").length, Math.round(box.width), Math.round(box.height)] }"""


def test_a_set_far_below_is_built_as_it_nears_and_drawn_as_without_javascript(browser, site_url):
    """At load, on a phone, a set several screens down has no inputs and no answer grid yet: they wait as the text
    of a <noscript> each (the page's elements at load stay within Lighthouse's 1,500). Scrolled to, the set has
    its matrices and one text box per entry. Without JavaScript the same grid is there from the start, the same size."""
    entries = sum(len(row) for row in published("masks")["variants"][0]["parts"][0]["values"])
    context = browser.new_context(viewport={"width": 412, "height": 823})
    try:
        page = context.new_page()
        page.goto(site_url + "problems/", wait_until="networkidle")
        (elements,) = page.evaluate(GRID, "masks")
        assert elements < 40, f"the masks set far below holds {elements} elements at load"
        assert page.locator("#problem-masks noscript.aih-near").count() == 2
        page.locator("#problem-masks").scroll_into_view_if_needed()
        page.locator("#problem-masks .aih-problem__actions").wait_for(state="visible")
        inputs, width, height = page.evaluate(GRID, "masks")
        assert inputs == entries
        assert page.locator("#problem-masks .aih-problem__inputs table").count() == 2
        inputs_box = page.locator("#problem-masks .aih-problem__inputs").bounding_box()
    finally:
        context.close()
    context = browser.new_context(viewport={"width": 412, "height": 823}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(site_url + "problems/", wait_until="networkidle")
        assert page.evaluate(GRID, "masks") == [entries, width, height]
        # the input matrices laid out as the script lays them out (the <noscript> lays out as its contents)
        box = page.locator("#problem-masks .aih-problem__inputs").bounding_box()
        assert (round(box["width"]), round(box["height"])) == (round(inputs_box["width"]), round(inputs_box["height"]))
    finally:
        context.close()


def test_a_reader_who_lands_on_a_set_has_every_set_above_whole_at_once(browser, site_url):
    """Arriving at problems/#positions (an address with a section): the sets above are put in before the page is
    put at its place, so the page holds every set's inputs and grids, and the heading stays where it landed."""
    context = browser.new_context(viewport={"width": 412, "height": 823})
    try:
        page = context.new_page()
        page.goto(site_url + "problems/#positions", wait_until="networkidle")
        at_load = page.locator("#positions").bounding_box()["y"]
        assert page.locator("noscript.aih-near").count() == 0
        assert page.locator(".aih-problem .aih-problem-grid").count() >= len(SETS)
        page.wait_for_timeout(1000)
        assert abs(page.locator("#positions").bounding_box()["y"] - at_load) < 2 and 0 <= at_load < 823
    finally:
        context.close()


# Each piece of a choice's text (its text nodes and its <sub>s), as laid out: [left, top] of its first line box and
# [right, top] of its last.
CHOICE_PIECES = """(label) => [...label.childNodes].filter((node) => node.localName !== "input")
  .flatMap((node) => node.nodeType === Node.TEXT_NODE || node.localName === "sub" ? [node] : [...node.childNodes])
  .filter((node) => node.nodeType !== Node.TEXT_NODE || node.textContent.trim())
  .map((node) => { const range = document.createRange(); range.selectNodeContents(node);
    const boxes = range.getClientRects(), first = boxes[0], last = boxes[boxes.length - 1];
    return [first.left, first.top, last.right, last.top]; })"""


def test_a_choice_with_subscripts_reads_as_one_line_of_text(page, site_url):
    """Concept question 4's answer names W_Q and W_K. The label lays out its radio button and its text side by side
    (display: flex): each text node and each <sub> of the choice must not become a box of its own, set apart by the
    gap (W, then Q 8 px further on). The pieces run on, each starting where the one before it ends."""
    page.set_viewport_size({"width": 1350, "height": 823})
    page.goto(site_url + "problems/")
    label = page.locator("#concepts-04 label").filter(has=page.locator("sub")).first
    label.scroll_into_view_if_needed()
    pieces = label.evaluate(CHOICE_PIECES)
    assert len(pieces) >= 4, pieces  # text, W's Q, text, W's K, …
    gaps = [round(after[0] - before[2], 1) for before, after in zip(pieces, pieces[1:]) if abs(after[1] - before[3]) < 8]
    assert gaps and all(abs(gap) < 2 for gap in gaps), f"the choice's text is torn into flex items: gaps {gaps} px"


def test_a_wide_answer_grid_scrolls_in_its_own_box_on_a_phone(page, site_url):
    """Share keys and values asks for one entry per query head (4 to 16 boxes in a row): on a 390 px phone the grid
    scrolls inside its box and the page itself never scrolls sideways (a fieldset is as wide as its content unless
    told otherwise, and the first variant's grid widened the page to 441 px)."""
    page.set_viewport_size({"width": 390, "height": 844})
    open_problems(page, site_url, "grouped-query")
    root = page.locator("#problem-grouped-query")
    for _ in range(len(published("grouped-query")["variants"])):
        page.wait_for_timeout(50)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px phone: a problem's grid must scroll in its box"
        root.locator("[data-action=next]").click()


def test_large_answers_are_accepted_as_printed_and_shown_whole_on_a_phone(page, site_url):
    """The solution prints 3,932,160: typed that way (or with thin spaces) it is right; on a 390 px phone every box
    of a grid with such answers shows the whole printed answer (65536000 was clipped to 655360)."""
    page.set_viewport_size({"width": 390, "height": 844})
    open_problems(page, site_url, "grouped-query")
    variant = published("grouped-query")["variants"][0]
    values = [x for p in variant["parts"] for row in p["values"] for x in row]
    texts = [fmt(x).replace(",", "\u2009") if k % 2 else fmt(x) for k, x in enumerate(values)]
    assert any("," in t for t in texts), "the first variant has answers of four digits and more"
    type_answers(page, "grouped-query", texts)
    page.click("#problem-grouped-query [data-action=check]")
    status = page.locator("#problem-grouped-query .aih-problem__status").text_content()
    assert status.startswith(f"All {len(values)} entries are right."), status
    for box in cells(page, "grouped-query").all():
        fits = box.evaluate("b => b.scrollWidth <= b.clientWidth")
        assert fits, f"{box.input_value()} does not fit its box on a phone"
