"""Issue 54, items 1 and 9 (part): sentences a learner checked and found false, each now computed and checked.

demo/'s negative-score bullet, cost/'s takeover sentence, scores/'s arrows caption, softmax/'s bar axis,
real-heads/'s diagonal sentence and its rollout share: each number recomputed here with plain loops or PyTorch
from the published inputs, and each claim shown to fail the build when the data stop showing it."""
import csv
import json
import math
import re
from pathlib import Path
from types import SimpleNamespace

import matplotlib.figure
import numpy as np
import pytest
import torch

import loop_reference as loops
from figures_src.pages import cost, demo, scores, softmax
from figures_src.pages.real_heads import rollout

ROOT = Path(__file__).resolve().parents[1]


def page(name):
    return (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")


def number(text):
    return float(text.replace("−", "-"))


# ---------------------------------------------------------------- demo/: a negative score's weight


def test_demo_bullet_says_a_weight_depends_on_the_gap_to_its_row():
    text = page("demo")
    assert "gives a small weight" not in text, "demo/: a score below zero does not make its weight small"
    assert "its score's gap to the other scores" in text and "of its row" in text, (
        "demo/: a weight depends on its score's gap to the other scores of its row")
    assert "sits below the other scores" not in text, (
        "demo/: the row's largest score sits above the others, so a weight is set by its gap to them, not by how far below")
    assert '--8<-- "generated/snippets/demo-negative.md"' in text, "demo/: the counter-examples come from the build"


NEGATIVE = re.compile(r"“(?P<row>[^”]+)” gives its score of (?P<score>−?[\d.]+) for (?P<key>“[^”]+”|itself) a weight "
                      r"of (?P<weight>[\d.]+), more than the (?P<weight2>[\d.]+) that “(?P<row2>[^”]+)” gives its score "
                      r"of (?P<score2>−?[\d.]+) for (?P<key2>“[^”]+”|itself)\.")


def test_demo_counter_examples_are_the_published_numbers(generated):
    """Both pairs of the sentence, found in ex-demo's published scaled scores, with weights recomputed as a
    softmax with loops; masks/' score alone under the causal mask gets the whole weight."""
    text = (generated / "snippets" / "demo-negative.md").read_text(encoding="utf-8")
    example = json.loads((generated / "public" / "examples" / "ex-demo.json").read_text(encoding="utf-8"))
    tokens, S = example["tokens"], example["steps"]["scaled_scores"]
    found = NEGATIVE.search(text)
    assert found, text
    for row, key, score, weight in (("row", "key", "score", "weight"), ("row2", "key2", "score2", "weight2")):
        i = tokens.index(found[row])
        j = i if found[key] == "itself" else tokens.index(found[key].strip("“”"))
        assert f"{S[i][j]:.3f}".replace("-", "−") == found[score] or f"{S[i][j]:.2f}".replace("-", "−") == found[score]
        assert f"{loops.softmax_row(S[i])[j]:.2f}" == found[weight], (found[row], found[key])
    assert number(found["score"]) < 0 < number(found["score2"]) and float(found["weight"]) > float(found["weight2"]), (
        "the negative score gets more weight than the positive one")
    masked = json.loads((generated / "public" / "examples" / "ex-mask-causal.json").read_text(encoding="utf-8"))
    first = masked["steps"]["scaled_scores"][0][0]
    alone = loops.softmax_row(masked["steps"]["scaled_scores"][0], loops.causal_mask(len(masked["tokens"]))[0])
    assert first < 0 and f"{alone[0]:.2f}" == "1.00"
    assert any(f"scores {first:.{digits}f}".replace("-", "−") in text for digits in (2, 3)) and "gets weight 1.00" in text


def test_demo_negative_claims_fail_the_build_when_false(monkeypatch):
    demo.negative_data()
    tokens = ["a", "b"]
    S = np.array([[2.0, -3.0], [1.0, 0.5]])  # every negative score's weight below every positive one's
    W = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    monkeypatch.setattr(demo, "EX_DEMO", SimpleNamespace(
        compute=lambda: {"tokens": tokens, "steps": {"scaled_scores": S, "weights": W}}))
    with pytest.raises(demo.BuildError, match="demo-negative: the page says a negative score of the demo gets more weight"):
        demo.negative_data()
    monkeypatch.setattr(demo, "EX_DEMO", SimpleNamespace(
        compute=lambda: {"tokens": tokens, "steps": {"scaled_scores": S, "weights": W - 0.5}}))
    with pytest.raises(demo.BuildError, match="demo-negative: the page says a weight is never negative"):
        demo.negative_data()


# ---------------------------------------------------------------- cost/: where the n² term takes over


def test_takeover_sentence_says_equal_at_the_crossover_and_gpt2_context_falls_short():
    models = cost.models_data()["models"]
    small = min(models, key=lambda m: m["d_model"])
    d, n, context = small["d_model"], small["crossover"], small["context"]
    attention_work = lambda m: 2 * m * m * d  # noqa: E731  QKᵀ and A·V over every head
    projection_work = lambda m: 4 * m * d * d  # noqa: E731  W_Q, W_K, W_V and W_O
    assert attention_work(n) == projection_work(n) and attention_work(n + 1) > projection_work(n + 1)
    text = cost.models_snippets(cost.models_data())["takeover"]
    assert "already make" not in text, "cost/: at the crossover the two are equal, not attention's the larger"
    assert f"equal at {n:,} tokens" in text and f"Its context is {context:,} tokens, short of that" in text
    assert (f"{attention_work(context):,} multiply-adds in the attention products against {projection_work(context):,} "
            f"in the projections, {attention_work(context) / projection_work(context):.2f} as many") in text
    assert all(m["context"] < m["crossover"] for m in models)


def test_takeover_claims_fail_the_build_when_false():
    models = [dict(m) for m in cost.models_data()["models"]]
    models[0]["context"] = models[0]["crossover"] * 2
    with pytest.raises(cost.BuildError, match="cost-models: the page says every model's context stops short"):
        cost.models_snippets({"models": models})
    models = [dict(m) for m in cost.models_data()["models"]]
    models[0]["attention_macs"] += 1
    with pytest.raises(cost.BuildError, match="cost-models: the page says GPT-2 small's two kinds of work are equal"):
        cost.models_snippets({"models": models})


# ---------------------------------------------------------------- scores/: the arrows' softmax, of the scaled scores


def test_arrows_caption_softmaxes_the_scaled_scores():
    data = scores.arrows_data()
    raw = torch.tensor(np.asarray(data["scores"]), dtype=torch.float64)
    d_k = len(data["q"])
    weight = torch.softmax(raw / math.sqrt(d_k), dim=-1)[0].item()
    caption = scores.arrows_caption(data)
    unscaled = torch.softmax(raw, dim=-1)[0].item()
    assert f"{unscaled:.4f}" not in caption and f"{unscaled:.2f}" not in caption, (
        "scores/: the caption softmaxes the scores as the page's formula does, scaled by 1/√dₖ first")
    assert f"1/√dₖ = 1/√{d_k}" in caption and f"gives the first key {weight:.2f} of the weight" in caption
    printed = [number(x) for x in re.search(r"they become (\S+), (\S+) and (\S+),", caption).groups()]
    assert f"{loops.softmax_row(printed)[0]:.2f}" == f"{weight:.2f}", "the weight follows from the printed scaled scores"
    table = scores.arrows_table(data)
    assert table["columns"][-1] == f"q · k/√{d_k}" and [row[-1].text for row in table["rows"]] == [
        format(float(f"{s / math.sqrt(d_k):.2f}"), "g").replace("-", "−") for s in data["scores"]]


# ---------------------------------------------------------------- softmax/: a weight's axis ends at 1


def test_softmax_bar_axis_ends_at_1():
    fig = matplotlib.figure.Figure()
    softmax.rows_render(softmax.rows_data(), fig)
    for ax in fig.axes:
        assert max(ax.get_yticks()) == 1, f"softmax/: the weight axis has a tick at {max(ax.get_yticks())}; a weight ends at 1"
        assert ax.spines["left"].get_bounds() == (0, 1), "softmax/: the weight axis's line runs from 0 to 1"


# ---------------------------------------------------------------- real-heads/: the diagonal and the rollout


def test_real_heads_names_the_main_diagonal_as_the_word_itself():
    text = page("real-heads")
    assert "diagonal means every word looks at a\nneighbour" not in text and "looks at a neighbour" not in text, (
        "real-heads/: the main diagonal is the word itself; the neighbours are the lines beside it")
    grid = text[text.index("## All 72 heads"):text.index("=== ")]
    assert "main diagonal" in grid and "looks at itself" in grid
    assert "just below it means every word looks at\nthe token before" in grid and "just above it at the token after" in grid
    before = np.eye(5, k=-1)  # query i on key i − 1: row i, one column left, the line under the main diagonal
    assert all(before[i, i - 1] == 1 for i in range(1, 5)) and np.triu(before).sum() == 0


def test_rollout_share_is_the_sentence_tokens_and_says_what_lifts_it(generated):
    """The share a token keeps of itself, over the tokens of the sentence, recomputed from the published CSV; and
    [CLS] and [SEP], named as what lifts the mean over every position."""
    text = (generated / "snippets" / "real-heads-rollout-text.md").read_text(encoding="utf-8")
    with open(generated / "public" / "figures" / "real-heads-rollout-coreference.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    tokens, values = [row[0] for row in rows[1:]], [[float(x) for x in row[1:]] for row in rows[1:]]
    n = len(tokens)
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    own = [values[i][i] for i in range(n)]
    words = sum(own[1:-1]) / (n - 2)
    special = sum(values[i][0] + values[i][-1] for i in range(1, n - 1)) / (n - 2)
    everyone = sum(own) / n
    assert (f"keeps {words:.2f} of its own token and takes {special:.2f} from [CLS] and [SEP] together (coreference"
            in text), "real-heads/: the rollout's share is the sentence's tokens', without [CLS] and [SEP]"
    assert f"{own[0]:.2f} and {own[-1]:.2f} in the coreference sentence" in text
    assert f"lift the first share to {everyone:.2f}" in text and f"{everyone:.2f}" != f"{words:.2f}"


def test_rollout_claim_fails_the_build_when_false():
    rollouts = rollout.all_rollouts()
    rollout.rollout_text(rollouts)
    first = next(iter(rollouts))
    flat = {**rollouts, first: {**rollouts[first], "own_cls": 0.01, "own_sep": 0.01}}
    with pytest.raises(rollout.BuildError, match="real-heads-rollout-text: the page says \\[CLS\\] and \\[SEP\\] keep more"):
        rollout.rollout_text(flat)
