"""The Chinese edition in Chromium (issue 60): what the scripts write on a zh page speaks Chinese (the heatmap's
readout, the problems' feedback, the live pages' status lines), with the English page's numbers, and the search
box of a zh page finds zh pages.

What holds on every page, zh pages included, is test_every_page.py's (axe in both schemes, everything loads);
the load budgets are test_load_budget.py's, axe on the widgets' changed states test_a11y.py's, each over the zh
pages too.
"""
import re

import pytest
from playwright.sync_api import expect

from conftest import reveal_heatmaps
from tests.test_zh_site import ENGLISH_KEPT, english_runs, numbers

LANG = "zh"
DEMO = "#fig-demo-scaled-scores"
HAN = re.compile(r"[\u4e00-\u9fff]")


def assert_speaks_chinese(text, what):
    """Chinese: some Chinese characters, and no three English words in a row but the running sentences' tokens
    and the other phrases kept in English (tests/test_zh_site.py's ENGLISH_KEPT)."""
    runs = english_runs(text, ENGLISH_KEPT, at_least=3)
    assert HAN.search(text) and not runs, (
        f"{what} speaks Chinese on a zh page (no three English words in a row outside tokens and names): "
        f"{text[:300]!r}; English: {runs[:5]}")


# ---------------------------------------------------------------- the heatmap's readout


def open_demo(page, site_url, prefix):
    page.goto(site_url + prefix + "demo/")
    reveal_heatmaps(page)


def readout(page):
    return page.locator(f"{DEMO} .aih-live").inner_text()


@pytest.mark.parametrize("i, j", [(1, 2), (5, 3)])
def test_the_heatmaps_readout_speaks_chinese_with_the_english_readouts_numbers(page, site_url, i, j):
    open_demo(page, site_url, "")
    page.locator(f"{DEMO} .aih-grid [data-i='{i}'][data-j='{j}']").hover()
    english = readout(page)
    open_demo(page, site_url, f"{LANG}/")
    page.locator(f"{DEMO} .aih-grid [data-i='{i}'][data-j='{j}']").hover()
    chinese = readout(page)
    assert numbers(chinese) == numbers(english), (
        "the readout of a cell prints the English readout's numbers, each as often: only in English "
        f"{dict(numbers(english) - numbers(chinese))}, only in Chinese {dict(numbers(chinese) - numbers(english))}")
    assert_speaks_chinese(chinese, f"the readout of cell ({i}, {j})")


def test_the_heatmaps_modes_and_captions_speak_chinese(page, site_url):
    open_demo(page, site_url, f"{LANG}/")
    figure = page.locator(f"{DEMO}")
    figure.locator(".aih-modes button[value='weights']").click()
    figure.locator("[data-slot=mask]").select_option("causal")
    figure.locator(".aih-grid [data-i='3'][data-j='1']").click()
    assert_speaks_chinese(figure.inner_text(), "the heatmap (weights, a causal mask, a followed row)")


# ---------------------------------------------------------------- the problems' feedback


def open_problem(page, site_url, set_id):
    page.goto(site_url + f"{LANG}/problems/")
    page.locator(f"#problem-{set_id}").scroll_into_view_if_needed()
    page.locator(f"#problem-{set_id} .aih-problem__actions").wait_for(state="visible")
    return page.locator(f"#problem-{set_id}")


def test_the_problems_feedback_speaks_chinese(page, site_url):
    root = open_problem(page, site_url, "scale-scores")
    status = root.locator(".aih-problem__status")
    inputs = root.locator(".aih-problem-grid input")
    check = root.locator("button[data-action=check]")
    inputs.first.fill("abc")
    check.click()
    expect(status).not_to_be_empty()
    assert_speaks_chinese(status.text_content(), "the feedback on an entry that is not a number")
    for k in range(inputs.count()):
        inputs.nth(k).fill("0.5")
    check.click()
    assert_speaks_chinese(status.text_content(), "the feedback on wrong entries")
    hints = root.locator(".aih-problem__hints li")
    for shown in range(1, 20):  # every hint, then one more: the note that there is none left
        root.locator("button[data-action=hint]").click()
        if hints.count() < shown:
            break
    assert_speaks_chinese(status.text_content(), "the note that no hint is left")
    assert_speaks_chinese(root.locator(".aih-problem__actions").inner_text(), "the problem's buttons")


# ---------------------------------------------------------------- the live pages' status lines


@pytest.mark.parametrize("path", ["watch-it-write/", "smollm/", "your-sentence/"])
def test_a_live_pages_status_line_speaks_chinese_before_anything_is_downloaded(page, site_url, path):
    """Each live page says, as it loads, what pressing its button will download; in Chinese on its zh page."""
    page.goto(site_url + f"{LANG}/{path}", wait_until="networkidle")
    status = page.locator("[data-slot=status]").first
    expect(status).not_to_be_empty()
    assert_speaks_chinese(status.text_content(), f"zh/{path}'s status line")


def test_watch_it_writes_status_speaks_chinese_on_a_wrong_input(page, site_url):
    page.goto(site_url + f"{LANG}/watch-it-write/", wait_until="networkidle")
    status = page.locator("[data-slot=status]")
    before = status.text_content()
    page.fill("#aih-write-digits", "12")
    page.click("[data-slot=run]")
    expect(status).not_to_have_text(before)
    assert_speaks_chinese(status.text_content(), "Watch it write's note on a wrong input (six digits wanted)")


# ---------------------------------------------------------------- search


@pytest.mark.parametrize("query", ["注意力", "权重"])
def test_searching_a_chinese_word_on_a_zh_page_finds_zh_pages(page, site_url, query):
    """Material's search box on a zh page, over the one index of both languages: a Chinese word finds the zh
    pages that hold it (jieba segmented them at build time, mkdocs.yml)."""
    page.goto(site_url + f"{LANG}/qkv/", wait_until="networkidle")
    page.locator(".md-search__input").click()  # in the header, at a desktop's width
    page.keyboard.type(query, delay=30)  # keys, as a reader types: the theme searches on keyup
    page.keyboard.press("End")  # a character typed through an IME ends with a keyup; Playwright's Chinese sends none
    results = page.locator(".md-search-result__item > a.md-search-result__link")
    expect(results.first).to_be_visible(timeout=15_000)
    hrefs = results.evaluate_all("links => links.map(link => new URL(link.href).pathname)")
    chinese = [href for href in hrefs if f"/{LANG}/" in href]
    assert chinese and len(chinese) == len(hrefs), (
        f"searching {query} on a zh page lists zh pages (their address under /{LANG}/), and only those: {hrefs}")
