"""The notebooks of Home, qkv, scores, scaling, softmax, demo, output, masks and positions, as a learner reads and
changes them (issue 59, after review): a position printed in words counts from 1 and names the Python index beside
it, every check says what it checks, no −0 is printed, the output page draws its weighted sum, the inputs are
defined before the steps, and a changed input (a longer sentence, fewer positions, a query that may see no key)
runs to the end.
"""
import ast
import copy
import importlib
import re

import nbformat
import pytest

from figures_src.engine.notebooks import run

PAGES = ("index", "qkv", "scores", "scaling", "softmax", "demo", "output", "masks", "positions")
MODULES = {page: f"figures_src.pages.{page}" for page in PAGES}
# "row 4, index 3", "row 4 (index 3)", "column 2, index 1", "row 1 of O (index 0)"
COUNTED = re.compile(r"\b(?:row|column) (\d+)(?:,| \(| of \w+ \()\s*index (\d+)")
NAMED = re.compile(r"\b(?:row|column) \d+")
NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0\.0*(?=[\s\],)]|$)")


def page_cells(page):
    return importlib.import_module(MODULES[page]).notebook_cells()


def read(generated, page):
    return nbformat.read(generated / "public" / "notebooks" / f"{page}.ipynb", as_version=4)


def printed(nb):
    """Every text a code cell shows, output by output."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                yield output["text"]
            elif "text/plain" in output.get("data", {}):
                yield output["data"]["text/plain"]


@pytest.mark.parametrize("page", PAGES)
def test_every_check_in_the_notebook_says_what_it_checks(page):
    for cell in page_cells(page):
        if cell.kind != "code":
            continue
        for node in ast.walk(ast.parse(cell.text)):
            if isinstance(node, ast.Assert):
                assert node.msg is not None, (
                    f"{page}: `{ast.unparse(node.test)}` has no message: a learner who changed an input must read "
                    "what the check compares (and, for the page's published numbers, that it fails once an input "
                    "changes)")


def test_positions_offers_its_notebook_under_the_why_line():
    from pathlib import Path  # noqa: PLC0415

    text = (Path(__file__).resolve().parents[1] / "docs" / "positions.md").read_text(encoding="utf-8")
    assert '{ .aih-why }\n\n--8<-- "generated/snippets/notebook-positions.md"\n' in text, (
        "positions: the notebook begins with the sine waves, the page's first half, so its download line sits "
        "under the why line, not halfway down under the RoPE cite line")


@pytest.mark.parametrize("page", PAGES)
def test_a_position_printed_in_words_counts_from_1_and_names_the_index(generated, page):
    for text in printed(read(generated, page)):
        for line in text.splitlines():
            if NAMED.search(line):
                pairs = COUNTED.findall(line)
                assert pairs, f"{page}: {line!r} names a row or column by number without its Python index"
                for counted, index in pairs:
                    assert int(counted) == int(index) + 1, (
                        f"{page}: {line!r}: the page counts from 1 and Python from 0, so row/column n is index n − 1")


@pytest.mark.parametrize("page", PAGES)
def test_no_negative_zero_is_printed(generated, page):
    for text in printed(read(generated, page)):
        assert not NEGATIVE_ZERO.search(text), f"{page}: prints a negative zero (−0.) in {text!r}"


def test_the_output_notebook_draws_its_weighted_sum(generated):
    images = sum("image/png" in output.get("data", {}) for cell in read(generated, "output").cells
                 for output in cell.get("outputs", []))
    assert images >= 1, "output: the notebook draws what the page shows (the weighted sum of the value rows)"


@pytest.mark.parametrize("page", PAGES)
def test_the_sentences_are_defined_before_the_steps(generated, page):
    cells = read(generated, page).cells
    defined = [k for k, cell in enumerate(cells) if cell.cell_type == "code" and "= Sentence(" in cell.source]
    if page == "positions":
        assert not defined, "positions follows no sentence"
        return
    steps = [k for k, cell in enumerate(cells) if cell.cell_type == "markdown" and cell.source.startswith("## ")]
    assert defined and defined[0] <= steps[3], (
        f"{page}: the sentence is defined once, in the first cells (after the header), before the page's steps")


def edited(nb, find, change):
    """A copy of `nb` whose first code cell holding `find` has `change(source)` as its source, outputs cleared."""
    nb = copy.deepcopy(nb)
    cell = next(c for c in nb.cells if c.cell_type == "code" and find in c.source)
    cell.source = change(cell.source)
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = []
    return nb


SEVEN = "RUNNING = Sentence(tokens=('a', 'dog', 'ran', 'to', 'the', 'big', 'park'), seed=7, d_model=6, d_k=4)"
CHANGES = {
    # a longer sentence: ORDER, the followed row, the padded batch follow it
    "output-seven-tokens": ("output", "RUNNING = Sentence(", lambda source: SEVEN),
    "masks-seven-tokens": ("masks", "RUNNING = Sentence(", lambda source: re.sub(r"RUNNING = .*", SEVEN, source)),
    "softmax-seven-tokens": ("softmax", "RUNNING = Sentence(", lambda source: SEVEN),
    # a query the mask lets see no key: the library's row of zeros, by hand too
    "masks-no-key": ("masks", "mask = attention.causal_mask(n)",
                     lambda source: source.replace("mask = attention.causal_mask(n)",
                                                   "mask = attention.causal_mask(n)\nmask[n // 2] = False")),
    # fewer positions than the page's worked query position
    "positions-four": ("positions", "ROPE_SEED, ROPE_D, ROPE_POSITIONS =",
                       lambda source: "ROPE_SEED, ROPE_D, ROPE_POSITIONS = 5, 4, 4"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_changed_input_runs_to_the_end(generated, name):
    page, find, change = CHANGES[name]
    nb = edited(read(generated, page), find, change)
    run(nb, {}, f"{page}.ipynb")  # raises BuildError naming the cell that failed
