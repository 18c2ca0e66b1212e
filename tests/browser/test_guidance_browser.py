"""Guidance in real Chromium: Home's heatmap shows the weights alone, later pages add the controls they
introduce; every "try this" task of the demo, done as it says, shows what it claims (and what attention/
computes); the conceptual questions answer right and wrong as they should; every page's why and recap."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

import attention
from conftest import reveal_heatmaps
from figures_src.engine.site import nav_entries
from figures_src.engine.text import num, vector

SITE = Path(__file__).resolve().parents[2] / "site"
NAV = [markdown for _, markdown in nav_entries()]
DEMO = "#fig-demo-scaled-scores"


def example(example_id):
    return json.loads((SITE / "examples" / f"{example_id}.json").read_text())


def open_page(page, site_url, path):
    page.goto(site_url + path)
    reveal_heatmaps(page)  # they become interactive near the viewport


def grid_texts(page, figure):
    return page.eval_on_selector_all(
        f"{figure} .aih-grid [role=row]:not(:first-child)",
        "rows => rows.map(r => [...r.querySelectorAll('[data-j]')].map(c => c.textContent))")


def entropy_texts(page, figure):
    return page.eval_on_selector_all(f"{figure} .aih-grid [role=row]:not(:first-child) > :last-child",
                                     "cells => cells.map(c => c.textContent)")


def visible(page, figure, selector):
    return page.locator(f"{figure} .aih-live {selector}").first.is_visible()


PARTS = {"modes": ".aih-modes", "scale": "[data-slot=slider]", "mask": "[data-slot=mask]",
         "readout": ".aih-readout", "softmax": "[data-slot=weight]", "output": ".aih-output",
         "entropy": ".aih-grid [role=row]:first-child > :last-child"}


@pytest.mark.parametrize("path, figure, shown", [
    ("", "#fig-home-weights", set()),
    ("scores/", "#fig-scores-heatmap", {"readout"}),
    ("scaling/", "#fig-scaling-weights", {"modes", "scale", "readout", "softmax"}),
    ("softmax/", "#fig-softmax-entropy", {"modes", "scale", "readout", "softmax", "entropy"}),
    ("demo/", DEMO, set(PARTS)),
])
def test_each_heatmap_shows_the_controls_its_page_has_introduced(page, site_url, path, figure, shown):
    open_page(page, site_url, path)
    assert {name for name, selector in PARTS.items() if visible(page, figure, selector)} == shown


def test_home_shows_the_weights_with_their_numbers_and_lights_up_the_pointed_row(page, site_url):
    open_page(page, site_url, "")
    weights = example("ex-softmax")["steps"]["weights"]
    assert grid_texts(page, "#fig-home-weights") == [[num(w) for w in row] for row in weights]
    assert page.locator("#fig-home-weights .aih-controls").is_hidden()
    page.locator("#fig-home-weights .aih-grid [data-i='3'][data-j='1']").hover()
    assert page.locator("#fig-home-weights .aih-grid [data-j].aih-hl").count() == 2 * len(weights) - 1
    assert "Point at a cell" in page.locator("#fig-home-weights").evaluate("f => f.previousElementSibling.textContent")


@pytest.fixture
def demo(page, site_url):
    open_page(page, site_url, "demo/")
    tasks = page.locator("#try-this ~ ol").first.locator("> li").all_text_contents()
    assert len(tasks) == 5
    return page, tasks


def claimed(pattern, text):
    match = re.search(pattern, text)
    assert match, (pattern, text)
    return match.groups()


def test_demo_tasks_show_what_they_claim(demo):
    page, tasks = demo
    ex = example("ex-demo")
    tokens = ex["tokens"]
    Q, K, V = (np.array(ex["steps"][k]) for k in "QKV")
    weights = np.array(ex["steps"]["weights"])
    cell = lambda i, j: page.locator(f"{DEMO} .aih-grid [data-i='{i}'][data-j='{j}']")  # noqa: E731
    slot = lambda name: page.locator(f"{DEMO} .aih-live [data-slot='{name}']").first.text_content()  # noqa: E731

    # 1: hover the deepest red cell; the readout ends on the largest weight
    row_token, key_token, weight = claimed(r"row “(\w+)” and column “(\w+)”.*ends on the weight (\S+),", tasks[0])
    i, j = tokens.index(row_token), tokens.index(key_token)
    assert (i, j) == np.unravel_index(weights.argmax(), weights.shape)
    cell(i, j).hover()
    assert slot("pairWeight") == weight == num(weights.max())

    # 2: click it; the output is close to that key's value
    output, value = claimed(r"its output, (\[.*?\]), is close to the value of “\w+”, (\[.*?\])", tasks[1])
    cell(i, j).click()
    assert slot("output") == output == vector(ex["outputs"]["out"][i])
    assert value == vector(V[j])
    assert any(line.endswith(f"({key_token})") for line in page.locator(f"{DEMO} [data-slot=lines] p").all_text_contents())

    # 3: weights under the causal mask: the first row has one choice
    first, second_a, second_b = claimed(r"weight (\S+) on itself.*two keys, (\S+) and (\S+)\.", tasks[2])
    page.locator(f"{DEMO} .aih-modes button[value='weights']").click()
    page.locator(f"{DEMO} [data-slot=mask]").select_option("causal")
    grid = grid_texts(page, DEMO)
    assert grid[0] == [first] + ["0"] * (len(tokens) - 1) and first == "1.00"
    assert grid[1][:2] == [second_a, second_b] and set(grid[1][2:]) == {"0"}
    _, causal = attention.attend(Q, K, V, mask=attention.causal_mask(len(tokens)))
    assert [second_a, second_b] == [num(w) for w in causal[1][:2]]

    # 4: no mask, the scale at its right end: the most even row collapses onto one key
    row_token, after, entropy_before, entropy_after = claimed(
        r"row of “(\w+)”.*: (\S+) of its weight, and its entropy bar shrinks from (\S+) to (\S+) nats", tasks[3])
    page.locator(f"{DEMO} [data-slot=mask]").select_option("none")
    i = tokens.index(row_token)
    assert entropy_texts(page, DEMO)[i] == entropy_before
    page.locator(f"{DEMO} [data-slot=slider]").fill("1")
    assert slot("scale").startswith("×10.00")
    assert max(grid_texts(page, DEMO)[i], key=float) == after
    assert entropy_texts(page, DEMO)[i] == entropy_after
    _, sharp = attention.attend(Q, K, V, scale=ex["scale"] * 10)
    assert after == num(sharp[i].max()) and float(after) > 0.95

    # 5: the scale at its left end: every row almost flat
    low, high = claimed(r"lies between (\S+) and (\S+),", tasks[4])
    page.locator(f"{DEMO} [data-slot=slider]").fill("-1")
    shown = [float(x) for row in grid_texts(page, DEMO) for x in row]
    assert (num(min(shown)), num(max(shown))) == (low, high)


def test_a_conceptual_question_answers_right_and_wrong(page, site_url):
    page.goto(site_url + "problems/")
    page.locator(".aih-quiz").scroll_into_view_if_needed()  # its data is fetched near the viewport
    quiz = page.locator(".aih-quiz.aih-on")
    expect(quiz).to_have_count(1)
    data = json.loads((SITE / "problems" / "concepts.json").read_text())
    for question in data["questions"]:
        form = page.locator(f"form#{question['id']}")
        status = form.locator(".aih-quiz__status")
        form.locator("button[type=submit]").click()
        assert status.text_content() == "Pick one answer first."
        wrong = (question["answer"] + 1) % len(question["choices"])
        form.locator(f"input[value='{wrong}']").check()
        form.locator("button[type=submit]").click()
        assert status.text_content().startswith("Not this one")
        assert form.get_attribute("data-verdict") == "wrong"
        assert not form.locator("details").evaluate("d => d.open")
        form.locator(f"input[value='{question['answer']}']").check()
        assert form.get_attribute("data-verdict") == "", "a new pick clears the verdict"
        form.locator(f"input[value='{question['answer']}']").press("Enter")
        assert status.text_content().startswith("Right")
        assert form.get_attribute("data-verdict") == "right"
        assert form.locator("details").evaluate("d => d.open")
        shown = re.sub(r"_(\w)", r"\1", question["choices"][question["answer"]])  # W_Q is typeset W<sub>Q</sub>
        assert form.locator("label", has_text=shown).is_visible()


def test_the_nav_is_read_whole():
    outside = {"print.md"}  # mkdocs.yml's not_in_nav: the print edition, every nav page on one
    assert len(NAV) == len([p for p in (SITE.parent / "docs").glob("*.md") if p.name not in outside])


@pytest.mark.parametrize("page_file", NAV)
def test_every_built_page_shows_why_under_its_title_and_a_recap_last(page_file):
    path = "" if page_file == "index.md" else page_file.removesuffix(".md") + "/"
    html = (SITE / path / "index.html").read_text(encoding="utf-8")
    article = html[html.index("<h1"):html.index("</article>")]
    assert re.match(r'<h1[^>]*>.*?</h1>\s*<p class="aih-why"><strong>Why this matters:</strong>', article, flags=re.S)
    recap = article[article.rindex("<h2"):]
    assert recap.startswith('<h2 id="recap">') and recap.count("<li>") == 3


def test_the_softmax_pages_slider_does_what_its_page_says(page, site_url):
    """"To the right the bars shrink, to the left they stretch toward the dotted line": every row's entropy."""
    open_page(page, site_url, "softmax/")
    figure = "#fig-softmax-entropy"
    at_one = [float(x) for x in entropy_texts(page, figure)]
    page.locator(f"{figure} [data-slot=slider]").fill("1")
    sharper = [float(x) for x in entropy_texts(page, figure)]
    page.locator(f"{figure} [data-slot=slider]").fill("-1")
    flatter = [float(x) for x in entropy_texts(page, figure)]
    assert all(s <= h <= f for s, h, f in zip(sharper, at_one, flatter, strict=True))
    assert sum(sharper) < sum(at_one) < sum(flatter)
