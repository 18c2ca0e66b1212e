"""The heatmap demo (docs/demo.md): a six-token sentence's scaled scores and weights, side by side, and the
"try this" tasks whose claims are computed here from the same example."""
import matplotlib as mpl
import numpy as np
from matplotlib.colors import TwoSlopeNorm

import attention
from ..engine import BuildError, Example, Snippets, example_heatmap
from ..engine.heatmap import SCORE_CMAP
from ..engine.style import PHONE_WIDTH
from ..engine.text import cell, num, vector
from . import sentences
from .masks import EX_MASK_CAUSAL

# The slider's ends (heatmap.js: 10 ** value for value in [-1, 1]), as multipliers of 1/√d_k.
SHARPEST, FLATTEST = 10.0, 0.1

EX_DEMO = Example("ex-demo", title="Scaled scores and weights of a six-token sentence",
                  data=lambda: sentences.self_attention_example(sentences.DEMO))


def weights_at(example, multiplier=1.0, mask=None):
    """The demo's weights as the heatmap recomputes them for a scale multiplier and a mask."""
    Q, K, V = (np.asarray(example["steps"][name]) for name in ("Q", "K", "V"))
    out, weights = attention.attend(Q, K, V, mask=mask, scale=example["scale"] * multiplier)
    return out, weights


def deepest_red(example):
    """(row, key) of the cell the demo first shows in its deepest red: the largest scaled score, when it is above 0
    and at the red end of the diverging scale (heatmap.py's and attention-math.js's colour scale is symmetric about
    0 and ends at the largest |score|, dark red above, dark blue below, in the light and the dark scheme alike). A
    BuildError when no cell is at the red end, since the task names one."""
    scaled = np.asarray(example["steps"]["scaled_scores"], dtype=float)
    colours = mpl.colormaps[SCORE_CMAP](TwoSlopeNorm(0.0, -np.abs(scaled).max(), np.abs(scaled).max())(scaled))
    end = mpl.colormaps[SCORE_CMAP](1.0)  # #67001f, the dark red end of RdBu_r
    at_end = np.argwhere(np.all(colours == end, axis=-1))
    if len(at_end) != 1:
        raise BuildError(f"demo-tasks: {len(at_end)} cells of the scaled scores are drawn in the red end's colour "
                         f"(the largest is {scaled.max():.3f}, the smallest {scaled.min():.3f}): the hover task names one "
                         "deepest red cell")
    row, key = at_end[0]
    return int(row), int(key)


def tasks_data():
    """Every number the demo's tasks cite, computed from ex-demo (and the running sentence, for why the
    demo uses another one)."""
    example = EX_DEMO.compute()
    tokens = example["tokens"]
    n = len(tokens)
    weights = np.asarray(example["steps"]["weights"])
    entropy = np.asarray(example["steps"]["entropy"])
    V = np.asarray(example["steps"]["V"])
    out = np.asarray(example["outputs"]["out"])
    running = np.asarray(sentences.self_attention_example(sentences.RUNNING)["steps"]["weights"])

    top_row, top_key = np.unravel_index(np.argmax(weights), weights.shape)  # the largest weight
    reddest = deepest_red(example)
    if reddest != (top_row, top_key):
        raise BuildError(f"demo-tasks: the deepest red cell of the scaled scores, ({tokens[reddest[0]]!r}, "
                         f"{tokens[reddest[1]]!r}), is not the cell of the largest weight, ({tokens[top_row]!r}, "
                         f"{tokens[top_key]!r}): the hover task no longer holds")
    even = int(np.argmax(entropy))  # the most even row at the published scale: the highest entropy
    if np.sum(entropy == entropy[even]) > 1 or num(entropy[even]) == num(np.delete(entropy, even).max()):
        raise BuildError(f"demo-tasks: the highest row entropy, {entropy[even]:.4f} nats (row {tokens[even]!r}), is not "
                         "above every other row's as printed: the page names one most even row")
    _, sharp = weights_at(example, SHARPEST)
    _, flat = weights_at(example, FLATTEST)
    _, causal = weights_at(example, mask=attention.causal_mask(n))
    followed = int(top_row)
    nearest = int(np.argmin(np.linalg.norm(V - out[followed], axis=1)))  # the value its output is closest to
    if nearest != top_key:
        raise BuildError(f"demo-tasks: the output of {tokens[followed]!r} is closest to the value of {tokens[nearest]!r}, "
                         f"not of {tokens[top_key]!r}, the key it weighs most: the follow task no longer holds")
    row_peaks = weights.max(axis=1)
    if not row_peaks.max() < running.max():
        raise BuildError(f"demo-tasks: every row of the demo peaks below the running sentence's {running.max():.2f}, "
                         f"the page says, but one reaches {row_peaks.max():.2f}")
    sharpest = sharp[even]
    if not (sharpest.max() > weights[even].max() and attention.row_entropy(sharpest) < entropy[even]):
        raise BuildError(f"demo-tasks: the row of {tokens[even]!r} at ×{SHARPEST:g} does not collapse (its largest "
                         "weight grows and its entropy shrinks, the page says)")
    if not np.abs(flat - 1 / n).max() < 0.5 / n:
        raise BuildError(f"demo-tasks: at ×{FLATTEST:g} a weight is {np.abs(flat - 1 / n).max():.2f} away from an even "
                         f"1/{n}: not 'almost flat', as the page says")
    return {
        "tokens": tokens,
        "running_tokens": list(sentences.RUNNING.tokens),
        "running_peak": float(running.max()),  # the running sentence's sharpest weight
        "running_peak_pair": [list(sentences.RUNNING.tokens)[i] for i in np.unravel_index(np.argmax(running), running.shape)],
        "row_peaks": [float(weights.max(axis=1).min()), float(weights.max(axis=1).max())],
        "top": {"row": int(top_row), "key": int(top_key), "weight": float(weights[top_row, top_key]),
                "score": float(np.asarray(example["steps"]["scaled_scores"])[top_row, top_key])},
        "sharp": {"row": even, "key": int(np.argmax(sharp[even])), "before": float(weights[even].max()),
                  "after": float(sharp[even].max()), "entropy_before": float(entropy[even]),
                  "entropy_after": float(attention.row_entropy(sharp[even])),
                  "next_entropy": float(np.delete(entropy, even).max())},
        "flat": {"low": float(flat.min()), "high": float(flat.max()), "even": 1 / n},
        "causal": {"first": causal[0].tolist(), "second": causal[1].tolist()},
        "follow": {"row": followed, "nearest": nearest, "weight": float(weights[followed, nearest]),
                   "out": out[followed].tolist(), "value": V[nearest].tolist()},
        "multipliers": {"sharpest": SHARPEST, "flattest": FLATTEST},
    }


def tasks_snippets(data):
    """demo-tasks-why.md: why the demo has its own sentence; demo-tasks.md: the tasks, each with what the
    reader should see."""
    t = data["tokens"]
    quote = lambda index: f"“{t[index]}”"  # noqa: E731
    top, sharp, flat, causal, follow = (data[k] for k in ("top", "sharp", "flat", "causal", "follow"))
    low_peak, high_peak = data["row_peaks"]
    asker, taken = data["running_peak_pair"]
    why = (
        f"The demo uses its own sentence, “{' '.join(t)}”, not the running “{' '.join(data['running_tokens'])}”: "
        f"in the running sentence “{asker}” already gives {num(data['running_peak'])} of its weight to “{taken}”, "
        "so the scale slider has little left to sharpen there. Here every row's largest weight lies between "
        f"{num(low_peak)} and {num(high_peak)}, so every row has room both to sharpen and to flatten.\n"
    )
    sharpest = num(data["multipliers"]["sharpest"])
    flattest = num(data["multipliers"]["flattest"])
    tasks = [
        f"**Hover the deepest red cell**, row {quote(top['row'])} and column {quote(top['key'])} "
        f"(row {top['row'] + 1}, column {top['key'] + 1}): the largest scaled score, {num(top['score'], 3)}, at the red "
        f"end of the colour bar. The readout below the grid multiplies their query and "
        f"key, scales the sum, and ends on the weight {num(top['weight'])}, the largest in the grid.",
        f"**Click that cell** to follow the row of {quote(follow['row'])} into the output. It gives "
        f"{num(follow['weight'])} of its weight to {quote(follow['nearest'])}, so its output, "
        f"{vector(follow['out'])}, is close to the value of {quote(follow['nearest'])}, {vector(follow['value'])}.",
        f"**Press Weights and pick the causal mask.** The first row, {quote(0)}, has one choice: weight {num(causal['first'][0])} "
        f"on itself and 0 everywhere else, whatever the scale. The second row, {quote(1)}, splits its budget "
        f"between two keys, {num(causal['second'][0])} and {num(causal['second'][1])}.",
        f"**Set the mask back to none and drag the scale to the right end** (×{sharpest}). "
        f"The row of {quote(sharp['row'])}, the most even one at ×{num(1.0)} (its entropy, {num(sharp['entropy_before'])} "
        f"nats, is the highest of any row, against {num(sharp['next_entropy'])} for the next), "
        f"collapses onto {quote(sharp['key'])}: {num(sharp['after'])} of its weight, and its entropy bar shrinks "
        f"from {num(sharp['entropy_before'])} to {num(sharp['entropy_after'])} nats.",
        f"**Drag the scale to the left end** (×{flattest}). Every row goes almost flat: every weight in the grid "
        f"lies between {num(flat['low'])} and {num(flat['high'])}, close to an even 1/{len(t)} = {num(flat['even'])}.",
    ]
    return {"why": why, "": "".join(f"{k}. {task}\n" for k, task in enumerate(tasks, 1))}


def negative_data():
    """The counter-examples to "a score below zero gives a small weight": in the demo's grid, the negative score
    with the largest weight against the positive score with the smallest (another row's); on masks/, the running
    sentence's first score under the causal mask, alone in its row. A BuildError when the weights stop saying what
    the page says: never negative, and a negative score's weight above a positive one's, as printed."""
    example = EX_DEMO.compute()
    scores, weights = (np.asarray(example["steps"][name], dtype=float) for name in ("scaled_scores", "weights"))
    if not (weights >= 0).all():
        raise BuildError("demo-negative: the page says a weight is never negative; the demo's grid has "
                         f"{weights.min():.3f}")
    negative = np.where(scores < 0, weights, -np.inf)
    positive = np.where(scores > 0, weights, np.inf)
    low = np.unravel_index(np.argmax(negative), weights.shape)  # the negative score that gets the most weight
    high = np.unravel_index(np.argmin(positive), weights.shape)  # the positive score that gets the least
    if not float(num(weights[low])) > float(num(weights[high])):
        raise BuildError(f"demo-negative: the page says a negative score of the demo gets more weight than a positive "
                         f"one; the most a negative score gets is {num(weights[low])}, the least a positive one gets "
                         f"{num(weights[high])}")
    masked = EX_MASK_CAUSAL.compute()
    alone = np.asarray(masked["steps"]["scaled_scores"], dtype=float)[0, 0]  # the first query: the mask leaves it one key
    alone_weight = np.asarray(masked["steps"]["weights"], dtype=float)[0, 0]
    if not (alone < 0 and num(alone_weight) == num(1.0)):
        raise BuildError(f"demo-negative: the page says masks/ shows a score below zero ({alone:.3f}) with the weight "
                         f"{num(1.0)}; it has {num(alone_weight)}")
    pair = lambda at: {"row": int(at[0]), "key": int(at[1]), "score": float(scores[at]),  # noqa: E731
                       "weight": float(weights[at])}
    return {"tokens": example["tokens"], "negative": pair(low), "positive": pair(high),
            "masked": {"token": masked["tokens"][0], "score": float(alone), "weight": float(alone_weight)}}


def negative_snippets(data):
    """The sentence under the demo's "Negative scores still get weight": its two counter-examples."""
    t = data["tokens"]
    low, high, alone = data["negative"], data["positive"], data["masked"]
    itself = lambda pair: "itself" if pair["row"] == pair["key"] else f"“{t[pair['key']]}”"  # noqa: E731
    return {"": (
        f"In the grid above, “{t[low['row']]}” gives its score of {cell(low['score'])} for {itself(low)} a weight "
        f"of {num(low['weight'])}, more than the {num(high['weight'])} that “{t[high['row']]}” gives its score of "
        f"{cell(high['score'])} for {itself(high)}. On [Masks](masks.md#fig-mask-causal-weights), the first "
        f"token, “{alone['token']}”, scores {cell(alone['score'])} against itself and gets weight "
        f"{num(alone['weight'])}: the causal mask leaves that score alone in its row.\n"
    )}


ITEMS = [
    EX_DEMO,
    example_heatmap(
        "demo-scaled-scores", EX_DEMO, "scaled_scores", size=(PHONE_WIDTH, 3.3),
        title="The demo's scaled scores: one cell per query-key pair.",
        caption=lambda example: (
            f"Scaled scores QKᵀ/√{example['d_k']} for “{' '.join(example['tokens'])}”: red above zero, blue below. "
            "Row i is query i, column j is key j."
        ),
    ),
    example_heatmap(
        "demo-weights", EX_DEMO, "weights", size=(PHONE_WIDTH, 3.3),
        title="The demo's attention weights: each row a softmax of the scores beside it.",
        caption=lambda example: (
            f"Attention weights for “{' '.join(example['tokens'])}”: the softmax of each row of scaled scores. "
            "Every row adds up to 1."
        ),
    ),
    Snippets("demo-tasks", data=tasks_data, snippets=tasks_snippets),
    Snippets("demo-negative", data=negative_data, snippets=negative_snippets),
]
