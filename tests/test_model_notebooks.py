"""The notebooks of the pages on trained and real models (learning, watch-it-write, real-heads, your-sentence,
smollm): what is specific to them. That every notebook is valid, runs on a fresh kernel and equals the published
JSON is tests/test_notebooks.py's."""
import json
import re

import pytest

from figures_src.pages import smollm


def code_of(generated, page):
    notebook = json.loads((generated / "public" / "notebooks" / f"{page}.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code")


def outputs_of(generated, page):
    notebook = json.loads((generated / "public" / "notebooks" / f"{page}.ipynb").read_text(encoding="utf-8"))
    return "".join("".join(output.get("text", "")) for cell in notebook["cells"] for output in cell.get("outputs", []))


@pytest.mark.parametrize("page, reader", [("learning", "main_run()"), ("watch-it-write", "MODELS.load()")])
def test_a_trained_model_is_read_as_the_page_reads_it_never_retrained(generated, page, reader):
    code = code_of(generated, page)
    assert reader in code, f"notebooks/{page}.ipynb must read the committed training run through {reader}, as the page does"
    calls = re.findall(r"\btrain\w*\(", code)
    assert not calls, f"notebooks/{page}.ipynb must not train (it calls {calls}): the page's model is trained once and committed"


def test_real_heads_reads_the_committed_extraction(generated):
    code = code_of(generated, "real-heads")
    assert "extraction()" in code, ("notebooks/real-heads.ipynb must read data/real_heads.npz through the page's "
                                    "loader: a fresh float32 run of the model differs from the committed float16 numbers")
    assert "load_model" not in code and "encode(" not in code, "notebooks/real-heads.ipynb must not run the model"


def test_smollm_writes_a_few_greedy_tokens_with_its_cache(generated):
    code, printed = code_of(generated, "smollm"), outputs_of(generated, "smollm")
    assert f"STEPS = {smollm.NOTEBOOK_STEPS}" in code and smollm.NOTEBOOK_STEPS < smollm.DEFAULT_NEW, (
        "notebooks/smollm.ipynb writes fewer tokens than the page's run, to stay within a few seconds of CPU")
    grown = [int(n) for n in re.findall(r"the cache holds (\d+) positions", printed)]
    assert grown == list(range(grown[0], grown[0] + smollm.NOTEBOOK_STEPS)), (
        f"notebooks/smollm.ipynb's cache grows by one position a step, from the prompt's length on: {grown}")
    assert "The capital of France is Paris" in printed, "the smollm notebook's greedy run begins with ' Paris', as the page says"
