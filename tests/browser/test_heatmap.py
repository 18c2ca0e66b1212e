"""The interactive heatmap in real Chromium: what the reader sees after each action equals the example JSON
(or attention/ for a changed scale, mask or head), to the digits shown.
"""
import json
import math
import re
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

import attention
from figures_src.engine.text import BY_HAND_DIGITS
from figures_src.engine.text import cell as cell_text
from figures_src.engine.text import num as fmt
from tests import by_hand
from conftest import reveal_heatmaps, wait_for_the_page

SITE = Path(__file__).resolve().parents[2] / "site"

DEMO = "#fig-demo-scaled-scores"


def example(example_id):
    return json.loads((SITE / "examples" / f"{example_id}.json").read_text())


def vec(v):
    return "[" + ", ".join(fmt(x) for x in v) + "]"


def open_page(page, site_url, path):
    page.goto(site_url + path)
    wait_for_heatmaps(page)


def wait_for_heatmaps(page):
    """Until every heatmap figure is interactive or merged, each scrolled to (they wait for the viewport)."""
    reveal_heatmaps(page)


def cell(page, figure, i, j):
    return page.locator(f"{figure} .aih-grid [data-i='{i}'][data-j='{j}']")


def grid_texts(page, figure):
    return page.eval_on_selector_all(
        f"{figure} .aih-grid [role=row]:not(:first-child)",
        "rows => rows.map(r => [...r.querySelectorAll('[data-j]')].map(c => c.textContent))",
    )


def slot(page, figure, name):
    return page.locator(f"{figure} .aih-live [data-slot='{name}']").first.text_content()


def expected(values, mask=None, weights=False):
    return [[("0" if weights else fmt(-math.inf)) if mask is not None and not mask[i][j] else cell_text(v)
             for j, v in enumerate(row)] for i, row in enumerate(values)]


@pytest.fixture
def demo(page, site_url):
    open_page(page, site_url, "demo/")
    return page


def test_the_pair_of_demo_figures_becomes_one_heatmap(demo):
    assert demo.locator(f"{DEMO}.aih-on .aih-live").count() == 1
    assert demo.locator("#fig-demo-weights").get_attribute("class").split().count("aih-merged") == 1
    assert demo.locator("#fig-demo-weights").is_hidden()
    assert demo.locator(f"{DEMO} svg").is_hidden()
    assert demo.locator(f"{DEMO} details.aih-data table").count() == 0, "the table waits until its block opens"
    demo.locator(f"{DEMO} details.aih-data summary").click()
    expect(demo.locator(f"{DEMO} details.aih-data table")).to_have_count(1)  # the data table stays (a task later)


def test_mode_switch_changes_numbers_colours_and_legend(demo):
    ex = example("ex-demo")
    button = demo.locator(f"{DEMO} .aih-modes button[value='%s']")
    assert demo.locator(f"{DEMO} .aih-modes [aria-pressed=true]").get_attribute("value") == "scaled_scores"
    assert grid_texts(demo, DEMO) == expected(ex["steps"]["scaled_scores"])
    limit = max(abs(x) for row in ex["steps"]["scaled_scores"] for x in row)
    assert (slot(demo, DEMO, "low"), slot(demo, DEMO, "high")) == (fmt(-limit), fmt(limit))
    assert slot(demo, DEMO, "quantity") == "scaled score"
    score_colour = cell(demo, DEMO, 0, 0).evaluate("c => getComputedStyle(c).backgroundColor")

    demo.locator(f"{DEMO} .aih-modes button[value='weights']").click()
    assert demo.locator(f"{DEMO} .aih-modes [aria-pressed=true]").get_attribute("value") == "weights"
    assert grid_texts(demo, DEMO) == expected(ex["steps"]["weights"])
    assert (slot(demo, DEMO, "low"), slot(demo, DEMO, "high"), slot(demo, DEMO, "quantity")) == ("0.00", "1.00", "weight")
    assert cell(demo, DEMO, 0, 0).evaluate("c => getComputedStyle(c).backgroundColor") != score_colour
    assert cell(demo, DEMO, 0, 0).get_attribute("aria-label") == (
        f"{ex['tokens'][0]} to {ex['tokens'][0]}, weight {fmt(ex['steps']['weights'][0][0])}"
    )

    demo.locator(f"{DEMO} .aih-modes button[value='scores']").click()
    assert grid_texts(demo, DEMO) == expected(ex["steps"]["scores"])
    assert button  # the selector template is used above


def exact(x):
    """x printed with the fewest decimals (2 to 8) that show it exactly, as the readout prints a scaled score."""
    return next(fmt(x, d) for d in range(2, 9) if abs(x * 10**d - round(x * 10**d)) < 1e-6 or d == 8)


def readout_slots(page, figure):
    """The text of every slot of the readout and the output, by name (the first element of each)."""
    return page.eval_on_selector_all(
        f"{figure} .aih-live [data-slot]",
        "els => Object.fromEntries(els.reverse().map(e => [e.dataset.slot, e.textContent]))")


def check_readout_by_hand(slots, d_k, multiplier="1"):
    """Every line of the readout follows from the numbers it prints (tests/by_hand.py)."""
    N = by_hand.number
    query, key = (slots[name].strip("[]").split(", ") for name in ("query", "key"))
    products = slots["products"].split(" + ")
    assert len(products) == len(query) == len(key)
    for q, k, p in zip(query, key, products):
        assert by_hand.follows(N(q) * N(k), p), (q, k, p)
    assert by_hand.follows(sum(N(p) for p in products), slots["score"]), (products, slots["score"])
    root = math.isqrt(d_k)
    factor = Decimal(1) / root if root * root == d_k else Decimal(1 / math.sqrt(d_k))
    scaled = slots["scaledScore"].split(",")[0]
    assert by_hand.follows(N(slots["score"]) * factor * N(multiplier), scaled), (slots["score"], scaled)
    if "masked" in slots["scaledScore"]:
        return
    # the softmax on max-shifted scores, as softmax/ teaches: m is the row's largest printed scaled score, and
    # every exponent is a printed scaled score minus m, exactly (so no term is above e^0 = 1)
    exponents = [x for x in slots["terms"].split("e")[1:]]
    exponents = [x.strip(" +") for x in exponents]
    assert N(slots["shifted"]) == N(scaled) - N(slots["rowMax"]), (scaled, slots["rowMax"], slots["shifted"])
    assert slots["shifted"] in exponents and max(N(x) for x in exponents) == 0, exponents
    assert by_hand.follows(by_hand.exp(N(slots["shifted"])), slots["numerator"], sig=True), (slots["shifted"], slots["numerator"])
    total = sum(by_hand.exp(N(x)) for x in exponents)
    assert by_hand.follows(total, slots["denominator"], sig=True), (exponents, slots["denominator"])
    assert by_hand.follows(N(slots["numerator"]) / N(slots["denominator"]), slots["pairWeight"])


@pytest.mark.parametrize("i, j", [(0, 0), (1, 2), (5, 3), (3, 5)])
def test_hover_readout_shows_the_pair_step_by_step(demo, i, j):
    ex = example("ex-demo")
    s = ex["steps"]
    cell(demo, DEMO, i, j).hover()
    q, k = s["Q"][i], s["K"][j]
    row = s["scaled_scores"][i]
    readout = {
        "queryToken": ex["tokens"][i], "keyToken": ex["tokens"][j], "query": vec(q), "key": vec(k),
        "products": " + ".join(f"({fmt(a * b)})" if a * b < 0 else fmt(a * b) for a, b in zip(q, k)),
        "score": fmt(s["scores"][i][j]), "factor": f"1/√{ex['d_k']}", "scaledScore": exact(row[j]),
        "pairWeight": fmt(s["weights"][i][j]), "entropy": fmt(s["entropy"][i]), "flatEntropy": fmt(math.log(len(row))),
        "keyCount": str(len(row)),
        "queryIndex": str(i + 1), "keyIndex": str(j + 1), "pair": f"{i + 1},{j + 1}",  # counted from 1
    }
    slots = readout_slots(demo, DEMO)
    for name, want in readout.items():
        assert slots[name] == want, name
    top = max(by_hand.number(exact(x)) for x in row)
    assert slots["rowMax"] == exact(float(top))
    assert slots["terms"] == " + ".join(f"e{fmt(d, max(0, -d.normalize().as_tuple().exponent))}"
                                        for d in (by_hand.number(exact(x)) - top for x in row))
    check_readout_by_hand(slots, ex["d_k"])
    assert demo.locator(f"{DEMO} [data-slot=masked]").is_hidden()
    assert demo.locator(f"{DEMO} .aih-readout").get_attribute("aria-live") == "polite"
    # row i and column j are highlighted, nothing else
    lit = demo.eval_on_selector_all(f"{DEMO} .aih-grid [data-j].aih-hl", "cs => cs.map(c => [+c.dataset.i, +c.dataset.j])")
    n = len(ex["tokens"])
    assert sorted(map(tuple, lit)) == sorted({(i, c) for c in range(n)} | {(r, j) for r in range(n)})


def test_keyboard_moves_a_single_tab_stop_around_the_grid(demo):
    n = len(example("ex-demo")["tokens"])
    demo.locator(f"{DEMO} .aih-modes button").last.focus()
    for key in ["Tab"] * 4:  # past the slider and the mask selector, into the grid
        demo.keyboard.press(key)
        if demo.evaluate("document.activeElement.dataset.j !== undefined"):
            break

    def at():
        return demo.evaluate("[+document.activeElement.dataset.i, +document.activeElement.dataset.j]")

    assert at() == [0, 0]
    moves = [("ArrowRight", [0, 1]), ("ArrowDown", [1, 1]), ("End", [1, n - 1]), ("ArrowRight", [1, n - 1]),
             ("Home", [1, 0]), ("ArrowLeft", [1, 0]), ("Control+End", [n - 1, n - 1]), ("ArrowDown", [n - 1, n - 1]),
             ("PageUp", [0, n - 1]), ("Control+Home", [0, 0]), ("ArrowUp", [0, 0]), ("PageDown", [n - 1, 0])]
    for key, want in moves:
        demo.keyboard.press(key)
        assert at() == want, key
        assert demo.locator(f"{DEMO} .aih-grid [tabindex='0']").count() == 1
        assert slot(demo, DEMO, "pair") == f"{want[0] + 1},{want[1] + 1}"
    outline = demo.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid", "focus is visible"
    assert demo.locator(f"{DEMO} .aih-grid [role=row]").count() == n + 1
    assert demo.locator(f"{DEMO} .aih-grid").get_attribute("role") == "grid"


@pytest.mark.parametrize("how", ["click", "enter"])
def test_follow_the_output_of_a_row(demo, how):
    ex = example("ex-demo")
    i = 2
    assert demo.locator(f"{DEMO} [data-slot=sum]").is_hidden()
    if how == "click":
        cell(demo, DEMO, i, 4).click()
    else:
        cell(demo, DEMO, i, 4).focus()
        demo.keyboard.press("Enter")
    lines = demo.locator(f"{DEMO} [data-slot=lines] p").all_text_contents()
    check_output_by_hand(lines, slot(demo, DEMO, "output"), ex["tokens"])
    assert slot(demo, DEMO, "output") == vec(ex["outputs"]["out"][i])
    assert slot(demo, DEMO, "followedRow") == str(i + 1)
    assert slot(demo, DEMO, "followedToken") == ex["tokens"][i]
    assert demo.locator(f"{DEMO} [data-slot=hint]").is_hidden()
    assert demo.locator(f"{DEMO} .aih-grid .aih-picked").count() == 1


def test_a_followed_rows_weights_keep_one_precision_at_every_scale(demo):
    """Issue 54: the followed row printed its weights as 0.047 at ×1, 0.1640 at ×0.1 and 0.00 at ×10. One rule
    now, output/'s (text.BY_HAND_DIGITS decimals, every weight of the row alike, more only where those miss the
    printed output), and the lines still add up by hand."""
    ex = example("ex-demo")
    cell(demo, DEMO, 2, 4).click()
    for exponent in (0, -1, 1):
        set_scale(demo, DEMO, exponent)
        lines = demo.locator(f"{DEMO} [data-slot=lines] p").all_text_contents()
        check_output_by_hand(lines, slot(demo, DEMO, "output"), ex["tokens"])
        decimals = {len(line.split(" × ")[0].split(".")[1]) for line in lines}
        assert decimals == {BY_HAND_DIGITS}, (f"a followed row's weights have {BY_HAND_DIGITS} decimals at every "
                                              f"scale (text.BY_HAND_DIGITS): ×10^{exponent}", lines)


def check_output_by_hand(lines, output, tokens):
    """The followed row's lines "w × [v] (token)" add up to the printed output, entry by entry."""
    N = by_hand.number
    parsed = [re.fullmatch(r"(\S+) × \[(.*)\] \((.*)\)", line).groups() for line in lines]
    assert [token for *_, token in parsed] == tokens
    weights = [N(w) for w, _, _ in parsed]
    values = [[N(x) for x in v.split(", ")] for _, v, _ in parsed]
    for c, shown in enumerate(output.strip("[]").split(", ")):
        assert by_hand.follows(sum(w * v[c] for w, v in zip(weights, values)), shown), (c, lines, output)


def set_scale(page, figure, exponent):
    page.locator(f"{figure} [data-slot=slider]").fill(str(exponent))


def test_scale_slider_recomputes_weights_and_entropy(demo):
    ex = example("ex-demo")
    Q, K, V = (np.array(ex["steps"][k]) for k in "QKV")
    demo.locator(f"{DEMO} .aih-modes button[value='weights']").click()
    entropies = {}
    for exponent in (1, -1, 0.5):
        multiplier = float(fmt(10.0 ** exponent))  # the slider's multiplier is the number it prints
        set_scale(demo, DEMO, exponent)
        out, weights = attention.attend(Q, K, V, scale=ex["scale"] * multiplier)
        assert grid_texts(demo, DEMO) == expected(weights)
        entropy = attention.row_entropy(weights)
        shown = demo.eval_on_selector_all(f"{DEMO} .aih-grid [role=row] > :last-child:not([role=columnheader])", "cs => cs.map(c => c.textContent)")
        assert shown == [fmt(h) for h in entropy]
        # the label says what the factor is: 1/√dₖ times the multiplier ("×1.00 → 0.50" did not)
        assert slot(demo, DEMO, "scale") == f"×{fmt(multiplier)} (scores × 1/√dₖ × {fmt(multiplier)} = {exact(ex['scale'] * multiplier)})"
        cell(demo, DEMO, 1, 1).hover()
        assert slot(demo, DEMO, "factor") == f"1/√{ex['d_k']} × {fmt(multiplier)}"
        slots = readout_slots(demo, DEMO)
        check_readout_by_hand(slots, ex["d_k"], fmt(multiplier))
        assert "e+" not in slots["denominator"] and by_hand.number(slots["numerator"]) <= 1, "the max-shifted form"
        entropies[exponent] = entropy
    # 10×: rows close to one-hot; 0.1×: rows close to flat
    assert entropies[1].max() < entropies[-1].min()
    assert entropies[-1].min() > 0.95 * math.log(len(ex["tokens"]))


def test_causal_mask_shows_minus_infinity_and_renormalises(demo):
    ex = example("ex-demo")
    Q, K, V = (np.array(ex["steps"][k]) for k in "QKV")
    n = len(ex["tokens"])
    mask = attention.causal_mask(n)
    demo.locator(f"{DEMO} [data-slot=mask]").select_option("causal")
    scaled = np.where(mask, attention.scaled_scores(Q, K), -np.inf)
    assert grid_texts(demo, DEMO) == expected(scaled, mask)
    assert demo.locator(f"{DEMO} .aih-grid .aih-masked").count() == n * (n - 1) // 2
    demo.locator(f"{DEMO} .aih-modes button[value='weights']").click()
    out, weights = attention.attend(Q, K, V, mask=mask)
    assert grid_texts(demo, DEMO) == expected(weights, mask, weights=True)
    cell(demo, DEMO, 1, 4).hover()
    assert demo.locator(f"{DEMO} [data-slot=masked]").is_visible()
    assert all(line.is_hidden() for line in demo.locator(f"{DEMO} [data-slot=weight]").all())
    assert slot(demo, DEMO, "scaledScore") == f"{exact(ex['steps']['scores'][1][4] * ex['scale'])}, masked: −∞"
    for i in (0, 2, n - 1):  # a row's even spread is over the keys it may attend to: i + 1 of them
        cell(demo, DEMO, i, 0).hover()
        assert (slot(demo, DEMO, "keyCount"), slot(demo, DEMO, "flatEntropy")) == (str(i + 1), fmt(math.log(i + 1)))
        assert slot(demo, DEMO, "entropy") == fmt(attention.row_entropy(weights)[i])
    bars = demo.eval_on_selector_all(f"{DEMO} .aih-grid [role=row]:not(:first-child) > :last-child",
                                     "cs => cs.map(c => Number(c.style.getPropertyValue('--aih-entropy')))")
    ceilings = [math.log(i + 1) for i in range(n)]
    assert bars == pytest.approx([h / c if c else 0 for h, c in zip(attention.row_entropy(weights), ceilings)])
    cell(demo, DEMO, 2, 4).click()
    assert slot(demo, DEMO, "output") == vec(out[2])
    demo.locator(f"{DEMO} [data-slot=mask]").select_option("none")
    assert grid_texts(demo, DEMO) == expected(ex["steps"]["weights"])


def test_padding_mask_and_sequence_selector(page, site_url):
    figure = "#fig-mask-padding"
    open_page(page, site_url, "masks/")
    ex = example("ex-mask-padding")
    assert page.locator(f"{figure} [data-slot=mask]").input_value() == "padding"
    page.locator(f"{figure} [data-slot=lead]").select_option("1")
    weights = ex["steps"]["weights"][1]
    mask = ex["inputs"]["mask"][1]
    assert grid_texts(page, figure) == expected(weights, mask, weights=True)
    heads = page.eval_on_selector_all(f"{figure} .aih-grid [role=columnheader]", "cs => cs.map(c => c.textContent)")
    assert heads[1:-1] == ex["batch_tokens"][1]
    assert page.locator(f"{figure} .aih-grid .aih-masked").count() == sum(not x for row in mask for x in row)


def test_head_selector(page, site_url):
    figure = "#fig-multi-head-h0"
    open_page(page, site_url, "multi-head/")
    ex = example("ex-multi-head")
    assert page.locator("#fig-multi-head-h1").is_hidden(), "the two head figures became one heatmap"
    assert grid_texts(page, figure) == expected(ex["steps"]["weights"][0])
    page.locator(f"{figure} [data-slot=lead]").select_option("1")
    assert grid_texts(page, figure) == expected(ex["steps"]["weights"][1])
    cell(page, figure, 2, 3).click()
    assert slot(page, figure, "output") == vec(ex["steps"]["heads"][1][2])



@pytest.mark.parametrize("path, figure, name, options", [
    ("multi-head/", "#fig-multi-head-h0", "Head", ["head 1", "head 2"]),
    ("masks/", "#fig-mask-padding", "Sequence", None),
])
def test_the_lead_menu_is_named_for_heads_or_sequences(page, site_url, path, figure, name, options):
    open_page(page, site_url, path)
    assert page.locator(f"{figure} .aih-lead").is_visible()
    assert slot(page, figure, "leadName") == name
    shown = page.locator(f"{figure} [data-slot=lead] option").all_text_contents()
    assert shown == (options or [" ".join(tokens) for tokens in example("ex-mask-padding")["batch_tokens"]])

def test_step_slider_walks_through_the_training_checkpoints(page, site_url):
    figure = "#fig-learning-checkpoints"
    open_page(page, site_url, "learning/")
    ex = example("ex-learning-checkpoints")
    assert slot(page, figure, "leadName") == "Steps done", "the slider counts the updates done, as the page counts steps"
    slider = page.locator(f"{figure} input[data-slot=lead]")
    assert slider.get_attribute("type") == "range" and slider.get_attribute("max") == str(len(ex["checkpoints"]) - 1)
    label = page.locator(f"{figure} .aih-lead")
    assert " ".join(label.text_content().split()) == "Steps done 0"  # once "Step step 0"
    assert grid_texts(page, figure) == expected(ex["steps"]["weights"][0])
    last = len(ex["checkpoints"]) - 1
    slider.focus()
    page.keyboard.press("End")  # a range input's own keys: the last checkpoint, announced as its step
    assert " ".join(label.text_content().split()) == f"Steps done {ex['checkpoints'][last]}"
    assert slider.get_attribute("aria-valuetext") == f"after {ex['checkpoints'][last]} steps", (
        "a checkpoint is read out as a count of the steps done, not as a step counted from 0")
    assert grid_texts(page, figure) == expected(ex["steps"]["weights"][last])
    cell(page, figure, 3, 2).click()
    assert slot(page, figure, "output") == vec(ex["outputs"]["out"][last][3])


def test_checkpoint_caption_names_the_step_from_the_example(page, site_url):
    """The caption composed for a checkpoint names it as the example's leading_axis does ("step 45"), not by
    its position on the axis under another name ("sequence 5")."""
    figure = "#fig-learning-checkpoints"
    open_page(page, site_url, "learning/")
    ex = example("ex-learning-checkpoints")
    slider = page.locator(f"{figure} input[data-slot=lead]")
    for index in (3, 4):
        slider.fill(str(index))
        text = caption(page, figure)
        assert f"{ex['leading_axis']['name']} {ex['leading_axis']['labels'][index]} " in text, text
        assert not re.search(r"sequence \d", text), text


def test_checkpoint_caption_describes_the_shown_step_from_load_with_its_mean(page, site_url):
    """On load the figure shows the weights before training (after 0 steps), and so does its caption (not the static figure's four steps); each checkpoint
    the slider reaches gets the build's caption for it, with that step's mean weight on i − 1 from the example."""
    figure = "#fig-learning-checkpoints"
    open_page(page, site_url, "learning/")
    ex = example("ex-learning-checkpoints")
    captions = ex["leading_axis"]["captions"]["weights"]
    assert caption(page, figure) == captions[0]
    assert "after 0 steps of training" in captions[0] and "0, 20, 30 and 120" not in caption(page, figure)
    slider = page.locator(f"{figure} input[data-slot=lead]")
    for index in (2, len(ex["checkpoints"]) - 1):
        slider.fill(str(index))
        mean = ex["steps"]["weights"][index]
        mean = sum(mean[t][t - 1] for t in range(1, len(mean))) / (len(mean) - 1)
        assert caption(page, figure) == captions[index]
        assert f"after {ex['checkpoints'][index]} steps of training" in captions[index], "a checkpoint is the steps done"
        assert f"the mean weight on it here is {mean:.2f}." in captions[index]


def listener_count(page, selector):
    """Event listeners attached to the element matched by `selector` (Chrome DevTools Protocol)."""
    cdp = page.context.new_cdp_session(page)
    handle = cdp.send("Runtime.evaluate", {"expression": f"document.querySelector({json.dumps(selector)})"})
    count = len(cdp.send("DOMDebugger.getEventListeners", {"objectId": handle["result"]["objectId"]})["listeners"])
    window = cdp.send("Runtime.evaluate", {"expression": "window"})
    on_window = len(cdp.send("DOMDebugger.getEventListeners", {"objectId": window["result"]["objectId"]})["listeners"])
    cdp.detach()
    return count, on_window


def test_a_round_trip_sets_the_demo_up_once_again(demo, site_url):
    """Away to softmax and back to the demo by the sidebar, twice: each page view is a full load, and the demo's
    heatmap is set up once, with its four listeners."""
    for _ in range(2):
        for path in ("softmax/", "demo/"):
            demo.locator(f".md-sidebar--primary a.md-nav__link[href$='/{path}']").first.click()
            wait_for_the_page(demo, path)
            wait_for_heatmaps(demo)
        assert demo.locator(".aih-live").count() == 1
        assert listener_count(demo, f"{DEMO} .aih-grid")[0] == 4  # pointerover, focusin, click, keydown
    cell(demo, DEMO, 4, 1).hover()
    assert slot(demo, DEMO, "pair") == "5,2"


def test_touch_tap_selects_a_row(browser, site_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    open_page(page, site_url, "demo/")
    cell(page, DEMO, 3, 1).tap()
    assert slot(page, DEMO, "pair") == "4,2"
    assert slot(page, DEMO, "followedToken") == example("ex-demo")["tokens"][3]
    context.close()


def test_without_javascript_the_static_figures_and_tables_remain(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "demo/")
    for figure in ("#fig-demo-scaled-scores", "#fig-demo-weights"):
        assert page.locator(f"{figure} svg").is_visible()
        assert page.locator(f"{figure} details.aih-data table").count() == 1
    assert page.locator(".aih-live").count() == 0
    context.close()


@pytest.mark.parametrize("path", ["", "scores/", "softmax/", "demo/", "masks/", "multi-head/", "learning/"])
def test_every_heatmap_page_enhances_cleanly(page, site_url, path):
    open_page(page, site_url, path)
    figures = page.locator("figure.aih-heatmap[data-example]").count()
    assert figures >= 1
    assert page.locator(".aih-live").count() + page.locator(".aih-merged").count() == figures


@pytest.mark.parametrize("path, figure, example_id", [
    ("demo/", DEMO, "ex-demo"),
    ("real-heads/", "#fig-real-heads-viewer", None),
])
@pytest.mark.parametrize("width", [1280, 390])
def test_token_labels_are_shown_whole_and_the_grid_fits_a_desktop(page, site_url, path, figure, example_id, width):
    """Every query and key label is on screen in full (no collapsed or clipped column) at desktop and phone
    width, and on a desktop the whole grid fits its column without a scroll bar."""
    page.set_viewport_size({"width": width, "height": 900})
    open_page(page, site_url, path)
    rows = page.eval_on_selector_all(
        f"{figure} .aih-grid [role=rowheader]",
        "hs => hs.map(h => [h.textContent, h.getBoundingClientRect().width, h.scrollWidth <= h.clientWidth])")
    tokens = example(example_id)["tokens"] if example_id else None
    assert rows and all(width_px > 20 for _, width_px, _ in rows), rows
    assert all(whole for text, _, whole in rows if len(text) <= 12), rows
    if tokens:
        assert [text for text, _, _ in rows] == tokens
    if width >= 1280:
        scroll = page.eval_on_selector(f"{figure} .aih-scroll", "s => [s.scrollWidth, s.clientWidth]")
        assert scroll[0] <= scroll[1], f"the grid scrolls on a desktop: {scroll}"


@pytest.mark.parametrize("path, figure, example_id, heads", [
    ("demo/", DEMO, "ex-demo", [None]),
    ("masks/", "#fig-mask-causal-scores", "ex-mask-causal", [None]),
    ("multi-head/", "#fig-multi-head-h0", "ex-multi-head", [0, 1]),
])
def test_every_cells_readout_checks_out_by_hand(page, site_url, path, figure, example_id, heads):
    """Every cell's readout, and every row's output, redone from the numbers it prints; the weight it ends
    on is the weight the grid shows, and its rows and columns count from 1."""
    open_page(page, site_url, path)
    ex = example(example_id)
    for head in heads:
        weights = ex["steps"]["weights"] if head is None else ex["steps"]["weights"][head]
        if head is not None:
            page.locator(f"{figure} [data-slot=lead]").select_option(str(head))
        n_q, n_k = len(weights), len(weights[0])
        for i in range(n_q):
            for j in range(n_k):
                cell(page, figure, i, j).hover()
                slots = readout_slots(page, figure)
                assert (slots["queryIndex"], slots["keyIndex"]) == (str(i + 1), str(j + 1))
                check_readout_by_hand(slots, ex["d_k"])
                if "masked" not in slots["scaledScore"]:
                    assert slots["pairWeight"] == fmt(weights[i][j]), (head, i, j)
            cell(page, figure, i, 0).click()
            lines = page.locator(f"{figure} [data-slot=lines] p").all_text_contents()
            check_output_by_hand(lines, slot(page, figure, "output"), ex["tokens"])


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_masked_cells_are_hatched_in_both_colour_schemes(page, site_url, scheme):
    open_page(page, site_url, "masks/")
    page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    figure = "#fig-mask-causal-scores"
    masked = page.eval_on_selector_all(
        f"{figure} .aih-grid .aih-masked",
        "cs => cs.map(c => [getComputedStyle(c).backgroundImage, getComputedStyle(c).backgroundColor])")
    n = len(example("ex-mask-causal")["tokens"])
    assert len(masked) == n * (n - 1) // 2
    assert all(image.startswith("repeating-linear-gradient") and colour == "rgb(158, 158, 158)" for image, colour in masked), masked
    allowed = cell(page, figure, 1, 0).evaluate("c => getComputedStyle(c).backgroundImage")
    assert allowed == "none", "only masked cells are hatched"


def caption(page, figure):
    return page.locator(f"{figure} figcaption").text_content()


def test_the_caption_says_what_the_heatmap_shows_now(demo):
    tokens = " ".join(example("ex-demo")["tokens"])
    published = {q: demo.locator(f"#fig-demo-{q.replace('_', '-')} figcaption").get_attribute("data-published")
                 for q in ("scaled_scores", "weights")}
    assert published["scaled_scores"].startswith("Scaled scores") and published["weights"].startswith("Attention weights")
    assert caption(demo, DEMO) == published["scaled_scores"]
    demo.locator(f"{DEMO} .aih-modes button[value='weights']").click()
    assert caption(demo, DEMO) == published["weights"], "the weights figure's own caption"
    demo.locator(f"{DEMO} .aih-modes button[value='scores']").click()
    assert caption(demo, DEMO).startswith(f"Raw scores QKᵀ for “{tokens}”: red above zero")
    assert "decimals" not in caption(demo, DEMO), "raw scores print 2 decimals everywhere"
    demo.locator(f"{DEMO} [data-slot=mask]").select_option("causal")
    assert "under the causal mask (grey, hatched cells are masked)" in caption(demo, DEMO)
    demo.locator(f"{DEMO} .aih-modes button[value='scaled_scores']").click()
    shown = [c for row in grid_texts(demo, DEMO) for c in row if re.fullmatch(r"−?\d+\.\d{3}", c)]
    assert shown and caption(demo, DEMO).endswith(
        f"Cells show 2 decimals, or 3 where 2 would round a value that lies exactly halfway, as {shown[0]}.")
    demo.locator(f"{DEMO} .aih-modes button[value='weights']").click()
    assert caption(demo, DEMO).startswith("Attention weights") and "causal" in caption(demo, DEMO)
    demo.locator(f"{DEMO} [data-slot=mask]").select_option("none")
    set_scale(demo, DEMO, 1)
    assert "with the scale multiplied by 10.00" in caption(demo, DEMO)
    set_scale(demo, DEMO, 0)
    assert caption(demo, DEMO) == published["weights"]


def test_a_caption_names_the_entropy_bars_only_where_the_figure_shows_them(page, site_url):
    """scaling/'s heatmap leaves out the entropy control: its composed caption never mentions entropy."""
    open_page(page, site_url, "scaling/")
    figure = "#fig-scaling-weights"
    assert "entropy" not in page.get_attribute(figure, "data-controls").split()
    set_scale(page, figure, 1)
    assert "scale multiplied by 10.00" in caption(page, figure) and "entropy" not in caption(page, figure)
    page.locator(f"{figure} .aih-modes button[value='scores']").click()
    assert caption(page, figure).startswith("Raw scores") and "entropy" not in caption(page, figure)
    open_page(page, site_url, "demo/")  # no data-controls: every part shows, the entropy bars too
    page.locator(f"{DEMO} .aih-modes button[value='scores']").click()
    assert "the bar after each row is its entropy" in caption(page, DEMO)


def test_the_entropy_bars_end_in_the_dotted_line_the_softmax_caption_names(page, site_url):
    open_page(page, site_url, "softmax/")
    assert "dotted line" in caption(page, "#fig-softmax-entropy")
    style = page.eval_on_selector_all(
        "#fig-softmax-entropy .aih-grid [role=row]:not(:first-child) > :last-child",
        "cs => cs.map(c => getComputedStyle(c, '::before').borderRightStyle)")
    assert style and set(style) == {"dotted"}


def test_no_row_or_column_is_outlined_until_the_reader_points_at_one(demo):
    assert demo.locator(".aih-grid .aih-hl").count() == 0
    assert demo.locator(".aih-grid [data-j]").first.evaluate("c => getComputedStyle(c).boxShadow") == "none"
    cell(demo, DEMO, 2, 3).hover()
    assert demo.locator(f"{DEMO} .aih-grid [data-j].aih-hl").count() == 2 * len(example("ex-demo")["tokens"]) - 1


@pytest.mark.parametrize("path", ["", "scores/", "softmax/", "demo/", "masks/", "multi-head/", "real-heads/"])
def test_at_phone_width_no_number_or_header_overflows_its_cell(browser, site_url, path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        open_page(page, site_url, path)
        cells = page.eval_on_selector_all(
            ".aih-grid [role=gridcell], .aih-grid [role=columnheader], .aih-grid [role=rowheader]",
            "cs => cs.filter(c => c.offsetParent).map(c => [c.textContent, c.scrollWidth, c.clientWidth])")
        assert cells, "no visible grid"
        spilled = [c for c in cells if c[1] > c[2]]
        assert not spilled, spilled[:10]
    finally:
        context.close()


def test_what_follows_the_readout_stays_put_as_the_pointer_moves_on(page, site_url):
    """The readout's lines wrap differently from pair to pair: on a phone, a masked pair's line is one short
    line and a last row's e^s two lines. The readout keeps the tallest height it has had, so what follows it
    moves only when a pair needs more room than any before it (at most 3 times over a whole grid, measured;
    up to 250 times, and up to 67 px, before), never back up. The height it was first drawn at counts too:
    on the padding heatmap, pair 1,1's readout is taller than that of the masked pair 1,4."""
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, site_url, "masks/")

    def below_the_readout(figure):
        return page.eval_on_selector(f"{figure} .aih-output",
                                     "(o) => o.getBoundingClientRect().top - o.closest('figure').getBoundingClientRect().top")

    causal = "#fig-mask-causal-scores"
    last = len(example("ex-mask-causal")["tokens"]) - 1
    tops = []
    for i, j in [(0, last), (last, last), (0, last), (1, 2)]:  # masked, a row of every e^s, masked again, masked
        cell(page, causal, i, j).hover()
        tops.append(below_the_readout(causal))
    assert tops[1] > tops[0], f"the last row's readout should need more room than a masked pair's here: {tops}"
    assert all(abs(top - tops[1]) < 0.5 for top in tops[1:]), tops

    padding = "#fig-mask-padding"
    first = below_the_readout(padding)
    cell(page, padding, 0, 3).hover()
    assert below_the_readout(padding) > first - 0.5


def test_the_readout_lets_go_of_its_kept_height_at_a_new_width_only(page, site_url):
    """A phone's address bar coming and going changes the window's height only: the readout keeps its height.
    At a new width its lines wrap anew, and it lets go of it."""
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, site_url, "masks/")
    causal = "#fig-mask-causal-scores"
    last = len(example("ex-mask-causal")["tokens"]) - 1
    cell(page, causal, last, 0).hover()  # a row of every e^s: the tallest readout
    cell(page, causal, 0, last).hover()  # masked: one short line, kept at the tallest height
    kept = page.eval_on_selector(f"{causal} .aih-readout", "(r) => r.style.minHeight")
    assert kept.endswith("px"), kept

    def min_height_after(size):
        page.set_viewport_size(size)
        page.wait_for_timeout(200)  # a frame or two: the size is observed after layout
        return page.eval_on_selector(f"{causal} .aih-readout", "(r) => r.style.minHeight")

    assert min_height_after({"width": 390, "height": 700}) == kept
    assert min_height_after({"width": 420, "height": 700}) == ""
