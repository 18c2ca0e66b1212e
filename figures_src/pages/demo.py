"""The heatmap demo (docs/demo.md): a six-token sentence's scaled scores and weights, side by side, and the
"try this" tasks whose claims are computed here from the same example."""
import matplotlib as mpl
import numpy as np
from matplotlib.colors import TwoSlopeNorm

import attention
from ..engine import BuildError, Example, Snippets, Words, example_heatmap
from ..engine.figures import QUANTITY_WORDS
from ..engine.heatmap import SCORE_CMAP
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH
from ..engine.text import cell, num, vector
from ..engine.words import SITE_WORDS
from . import sentences
from .masks import EX_MASK_CAUSAL

WORDS = Words("words/demo.md")
# The slider's ends (heatmap.js: 10 ** value for value in [-1, 1]), as multipliers of 1/√d_k.
SHARPEST, FLATTEST = 10.0, 0.1

EX_DEMO = Example("ex-demo", title=WORDS.line("ex-demo-title"),
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
    top, sharp, flat, causal, follow = (data[k] for k in ("top", "sharp", "flat", "causal", "follow"))
    low_peak, high_peak = data["row_peaks"]
    asker, taken = data["running_peak_pair"]
    why = WORDS.fill("demo-tasks-why", sentence=" ".join(t), running=" ".join(data["running_tokens"]), asker=asker,
                     running_peak=num(data["running_peak"]), taken=taken, low_peak=num(low_peak),
                     high_peak=num(high_peak))
    tasks = WORDS.fill(
        "demo-tasks", top_query=t[top["row"]], top_key=t[top["key"]], top_row=top["row"] + 1,
        top_column=top["key"] + 1, top_score=num(top["score"], 3), top_weight=num(top["weight"]),
        follow_query=t[follow["row"]], follow_weight=num(follow["weight"]), follow_key=t[follow["nearest"]],
        follow_out=vector(follow["out"]), follow_value=vector(follow["value"]),
        first=t[0], first_weight=num(causal["first"][0]), second=t[1], second_first=num(causal["second"][0]),
        second_second=num(causal["second"][1]),
        sharpest=num(data["multipliers"]["sharpest"]), sharp_query=t[sharp["row"]], one=num(1.0),
        sharp_entropy=num(sharp["entropy_before"]), next_entropy=num(sharp["next_entropy"]), sharp_key=t[sharp["key"]],
        sharp_weight=num(sharp["after"]), sharp_entropy_after=num(sharp["entropy_after"]),
        flattest=num(data["multipliers"]["flattest"]), flat_low=num(flat["low"]), flat_high=num(flat["high"]),
        n=len(t), even=num(flat["even"]))
    return {"why": why + "\n", "": tasks + "\n"}


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
    itself = lambda pair: (WORDS.line("demo-negative/itself") if pair["row"] == pair["key"]  # noqa: E731
                           else WORDS.line("demo-negative/key", key=t[pair["key"]]))
    return {"": WORDS.fill(
        "demo-negative", negative_query=t[low["row"]], negative_score=cell(low["score"]), negative_key=itself(low),
        negative_weight=num(low["weight"]), positive_weight=num(high["weight"]), positive_query=t[high["row"]],
        positive_score=cell(high["score"]), positive_key=itself(high), alone=alone["token"],
        alone_score=cell(alone["score"]), alone_weight=num(alone["weight"])) + "\n"}


def notebook_cells():
    return [
        *sentences.notebook_cells("DEMO"),
        markdown(WORDS.fill("nb-steps")),
        code("""
            tokens = list(DEMO.tokens)
            X = token_vectors(DEMO)
            W_Q, W_K, W_V = projections(DEMO)
            Q, K, V = X @ W_Q, X @ W_K, X @ W_V
            S_scaled = attention.scaled_scores(Q, K)
            A = attention.softmax(S_scaled)
            O = A @ V
            example = self_attention_example(DEMO)
            for name, mine in (("scaled_scores", S_scaled), ("weights", A)):
                assert np.allclose(mine, example["steps"][name], rtol=0, atol=1e-12), (
                    f"{name}: the step by hand differs from the site's own code on the same sentence")
            assert np.allclose(O, example["outputs"]["out"], rtol=0, atol=1e-12), (
                "out: the step by hand differs from the site's own code on the same sentence")
            print("the scaled scores S̃:", S_scaled, "the weights A:", A, sep="\\n")"""),
        markdown(WORDS.fill("nb-heatmaps")),
        code(f"""
            fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.4))
            heatmap(left, S_scaled, tokens, tokens, quantity="scaled_scores",
                    title={SITE_WORDS.line(QUANTITY_WORDS["scaled_scores"])!r})
            heatmap(right, A, tokens, tokens, quantity="weights", title={SITE_WORDS.line(QUANTITY_WORDS["weights"])!r})
            plt.show()"""),
        markdown(WORDS.fill("nb-top")),
        code("""
            row, key = np.unravel_index(np.argmax(A), A.shape)
            print(f"query {tokens[row]!r} (row {row + 1}, index {row}) gives key {tokens[key]!r} "
                  f"(column {key + 1}, index {key}) the weight",
                  round(A[row, key], 4), "from the scaled score", round(S_scaled[row, key], 4))
            print(f"its output {O[row]} against the value of {tokens[key]!r}, {V[key]}")"""),
        markdown(WORDS.fill("nb-slider")),
        code(f"SHARPEST, FLATTEST = {SHARPEST!r}, {FLATTEST!r}"),
        source(weights_at),
        code("""
            print(f"an even row of {len(tokens)} keys has the entropy ln {len(tokens)} = {np.log(len(tokens)):.4f}")
            for multiplier in (SHARPEST, 1.0, FLATTEST):
                _, weights = weights_at(example, multiplier)
                print(f"scale × {multiplier:g}:")
                for token, weights_row, entropy in zip(tokens, weights, attention.row_entropy(weights)):
                    top = int(np.argmax(weights_row))
                    print(f"  {token!r:>9} puts {weights_row[top]:.8f} on {tokens[top]!r:<8} entropy {entropy:.8f} nats")"""),
        markdown(WORDS.fill("nb-mask")),
        code("""
            _, causal = weights_at(example, mask=attention.causal_mask(len(tokens)))
            causal[:2]"""),
    ]


ITEMS = [
    EX_DEMO,
    example_heatmap(
        "demo-scaled-scores", EX_DEMO, "scaled_scores", size=(PHONE_WIDTH, 3.3),
        title=WORDS.line("demo-scaled-scores-title"),
        caption=lambda example: WORDS.line("demo-scaled-scores-caption", d_k=example["d_k"],
                                           sentence=" ".join(example["tokens"])),
    ),
    example_heatmap(
        "demo-weights", EX_DEMO, "weights", size=(PHONE_WIDTH, 3.3),
        title=WORDS.line("demo-weights-title"),
        caption=lambda example: WORDS.line("demo-weights-caption", sentence=" ".join(example["tokens"])),
    ),
    Snippets("demo-tasks", data=tasks_data, snippets=tasks_snippets),
    Snippets("demo-negative", data=negative_data, snippets=negative_snippets),
    notebook("demo.md", notebook_cells, examples={EX_DEMO: "example"}),
]
