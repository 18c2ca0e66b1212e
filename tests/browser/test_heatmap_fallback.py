"""When an example's JSON is bad, the interactive layer leaves the static figure and its table visible and
says why in one short note; it never hides a figure it could not draw. The JSON request is intercepted
(Playwright's page.route) and answered with a broken copy of the real example."""
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

SITE = Path(__file__).resolve().parents[2] / "site"
FIGURE = "#fig-demo-scaled-scores"
MERGED = "#fig-demo-weights"  # the same example's neighbour, merged into the widget when it works


def demo():
    return json.loads((SITE / "examples" / "ex-demo.json").read_text())


def without(*path):
    def breaks(example):
        parent = example
        for key in path[:-1]:
            parent = parent[key]
        del parent[path[-1]]
    return breaks


def larger(n):
    def breaks(example):
        steps = example["steps"]
        example["tokens"] = [f"t{i}" for i in range(n)]
        for name in ("Q", "K", "V"):
            steps[name] = [[0.5] * 4 for _ in range(n)]
        for name in ("scores", "scaled_scores", "weights"):
            steps[name] = [[1 / n] * n for _ in range(n)]
        steps["entropy"] = [0.0] * n
        example["outputs"]["out"] = [[0.5] * 4 for _ in range(n)]
    return breaks


BROKEN = {  # kind -> (how to break ex-demo.json, words of the note)
    "no-tokens": (without("tokens"), "tokens do not match"),
    "no-scale": (without("scale"), "scale or d_k"),
    "no-outputs": (without("outputs"), "out is not 6 rows"),
    "no-entropy": (without("steps", "entropy"), "steps Q, K, V, weights and entropy"),
    "short-v": (lambda e: e["steps"]["V"].pop(), "V is not 6 rows"),
    "null-weight": (lambda e: e["steps"]["weights"][2].__setitem__(3, None), "weights row 2"),
    "string-score": (lambda e: e["steps"]["scores"][0].__setitem__(0, "1"), "scores row 0"),
    "too-large": (larger(100), "100 × 100 is above the 64 × 64"),
}


def open_with(page, site_url, body, status=200):
    page.route("**/examples/ex-demo.json",
               lambda route: route.fulfill(status=status, body=body, content_type="application/json"))
    page.goto(site_url + "demo/")
    note = page.locator(f"{FIGURE} .aih-static-note")
    note.wait_for(state="visible")
    return note


def assert_static_figure_survives(page):
    assert page.locator(f"{FIGURE} .aih-figure__graphic svg").is_visible()
    assert page.locator(f"{MERGED} .aih-figure__graphic svg").is_visible()
    assert page.locator(f"{FIGURE} .aih-live").count() == 0
    assert "aih-on" not in page.locator(FIGURE).get_attribute("class").split()
    page.locator(f"{FIGURE} details.aih-data summary").click()  # the table is there once its block opens
    expect(page.locator(f"{FIGURE} details.aih-data table tbody tr")).to_have_count(6)  # a task after: "toggle" is queued
    assert page.locator(".aih-static-note").count() == 1  # one note for the widget that did not come


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_bad_example_json_leaves_the_static_figure_with_one_note(page, site_url, kind):
    breaks, words = BROKEN[kind]
    example = demo()
    breaks(example)
    note = open_with(page, site_url, json.dumps(example))
    assert words in note.text_content()
    assert note.text_content().startswith("Static figure:")
    assert page.locator(f"{FIGURE} .aih-static-note").count() == 1
    assert_static_figure_survives(page)


@pytest.mark.parametrize("body, status, words", [("{not json", 200, "failed"), ("gone", 404, "404")])
def test_unreadable_or_missing_json_leaves_the_static_figure(browser, site_url, body, status, words):
    context = browser.new_context()  # not the `page` fixture: a 404 is a console error by design here
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        note = open_with(page, site_url, body, status)
        assert words in note.text_content()
        assert_static_figure_survives(page)
        assert not errors
    finally:
        context.close()
