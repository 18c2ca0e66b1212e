"""Masks (docs/masks.md): causal, padding, both at once, and a sliding window, each a worked example."""
import numpy as np

import attention

from ..engine import Example, Figure, example_heatmap
from ..engine.heatmap import heatmap
from ..engine.style import PHONE_WIDTH, weights_colorbar
from ..engine.text import MASKED, MINUS, cell, num, softmax_by_hand, table
from . import sentences
from .qkv import EX_QKV

WINDOW = 3


# ---------------------------------------------------------------- causal

def causal_snippets(example):
    """The −∞ → 0 step for the middle query: score, mask, masked score, exponential, weight."""
    tokens, steps, mask = example["tokens"], example["steps"], example["inputs"]["mask"]
    i = len(tokens) // 2
    s, allowed, w = steps["scaled_scores"][i], mask[i], steps["weights"][i]
    shown = [cell(a) for a in s]  # the site's rule: 2 decimals, 3 only for an exact tie (−0.925, not −0.180)
    printed = [float(text.replace(MINUS, "-")) for text in shown]
    hand = softmax_by_hand([a if ok else None for a, ok in zip(printed, allowed)], w)  # from the printed numbers
    rows = [[f"**{t}**", a, a if ok else MASKED, e, wj]
            for t, a, ok, e, wj in zip(tokens, shown, allowed, hand["exponentials"], hand["weights"])]
    rows.append(["**total**", "", "", hand["total"], hand["weight_total"]])
    return {
        "step": (
            f"Query “{tokens[i]}” (row {i + 1}) may look at {', '.join(f'“{t}”' for t in np.array(tokens)[allowed])}. "
            "Its other scaled scores $\\tilde{s}_j$ are replaced by $-\\infty$ before the softmax, and $e^{-\\infty} = 0$:\n\n"
            + table(["key $j$", "$\\tilde{s}_j$", "masked", "$e^{\\tilde{s}_j - \\tilde{s}_{\\max}}$", "$a_j$"], rows)
            + f"\nThe forbidden keys get a weight of exactly 0, and the allowed ones share all of it: the row still adds up to {num(w.sum(), 0)}.\n"
        ),
    }


EX_MASK_CAUSAL = Example(
    "ex-mask-causal", title="A causal mask on a five-token sentence",
    data=lambda: sentences.self_attention_example(sentences.RUNNING, mask=attention.causal_mask(sentences.RUNNING.n)),
    snippets=causal_snippets,
)


# ---------------------------------------------------------------- padding, and padding with the causal mask

def batch_mask(lengths, n, causal):
    """Padding mask (batch, n, n), and with `causal` the causal mask too: True = may attend."""
    mask = np.broadcast_to(attention.padding_mask(lengths, n), (len(lengths), n, n))
    if causal:
        mask = mask & attention.causal_mask(n)
    return mask.copy()


def batch_example(causal):
    """Both sentences go through the same W_Q, W_K, W_V (the running example's): one model, one batch."""
    tokens, X, lengths = sentences.padded_batch()
    W_Q, W_K, W_V = sentences.projections(sentences.RUNNING)
    n, d_k = X.shape[1], W_Q.shape[1]
    mask = batch_mask(lengths, n, causal)
    steps = sentences.attention_steps(X, W_Q, W_K, W_V, mask=mask)
    out = steps.pop("out")
    return {
        "seed": sentences.RUNNING.seed,
        "batch_tokens": tokens,  # one list per sequence; the batch axis comes first in every array
        "batch_size": len(tokens),
        "lengths": lengths,
        "d_k": d_k,
        "scale": float(1 / np.sqrt(d_k)),
        "inputs": {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "mask": mask},
        "steps": steps,
        "outputs": {"out": out, "weights": steps["weights"]},
    }


def padding_snippets(example):
    tokens, lengths, weights = example["batch_tokens"], example["lengths"], example["steps"]["weights"]
    n = len(tokens[0])
    padded, full = (0, 1) if lengths[0] < lengths[1] else (1, 0)
    alone = EX_QKV.compute()["outputs"]["weights"]  # the unpadded sentence on its own, outside any batch
    difference = np.abs(weights[full] - alone).max()
    same = ("exactly the weights it gets on its own" if difference == 0
            else f"within {num(difference, 2)} of the weights it gets on its own")
    pad_rows = weights[padded, lengths[padded]:]
    return {
        "facts": (
            f"The batch holds “{' '.join(tokens[padded][: lengths[padded]])}” ({lengths[padded]} tokens, padded with "
            f"{n - lengths[padded]} pad positions to length {n}) and “{' '.join(tokens[full])}” ({lengths[full]} tokens, "
            f"no padding). Both go through the same $W_Q$, $W_K$, $W_V$. In the short sentence no query gives a pad "
            f"key any weight. Its pad queries have all-zero vectors, so all their scores are 0 and they spread their "
            f"weight evenly, {num(pad_rows.max())} on each real key: harmless, because their outputs are thrown away. "
            f"The full sentence has nothing masked, and its weights are {same}."
        ),
    }


EX_MASK_PADDING = Example("ex-mask-padding", title="Padding in a batch of two sentences of different lengths",
                          data=lambda: batch_example(causal=False), snippets=padding_snippets)
EX_MASK_COMBINED = Example("ex-mask-combined",
                           title="Padding and a causal mask combined, in a batch of two sentences",
                           data=lambda: batch_example(causal=True))


def batch_render(example, fig):
    """One weights heatmap per sequence of the batch, one above the other (each keeps a phone's width)."""
    batch_tokens, weights, lengths = example["batch_tokens"], example["steps"]["weights"], example["lengths"]
    axes = fig.subplots(len(batch_tokens), 1)
    drawn = [
        heatmap(ax, weights[b], tokens, tokens, quantity="weights", panel=f"seq{b}",
                title=f"sequence {b + 1}: {lengths[b]} real tokens", colorbar=False)
        for b, (ax, tokens) in enumerate(zip(axes, batch_tokens))
    ]
    weights_colorbar(fig, axes)
    return drawn


# ---------------------------------------------------------------- sliding window

EX_MASK_WINDOW = Example(
    "ex-mask-window", title=f"A sliding-window mask of width {WINDOW} on a six-token sentence",
    data=lambda: sentences.self_attention_example(
        sentences.DEMO, mask=attention.sliding_window_mask(sentences.DEMO.n, WINDOW), window=WINDOW),
)


ITEMS = [
    EX_MASK_CAUSAL,
    EX_MASK_PADDING,
    EX_MASK_COMBINED,
    EX_MASK_WINDOW,
    example_heatmap(
        "mask-causal-scores", EX_MASK_CAUSAL, "scaled_scores", masked=True, size=(PHONE_WIDTH, 3.2),
        title="Causal mask: the future's scores become −∞.",
        caption=("Scaled scores after the causal mask: a query may look at itself and the tokens before it. "
                 "The grey, hatched cells above the diagonal hold −∞."),
    ),
    example_heatmap(
        "mask-causal-weights", EX_MASK_CAUSAL, "weights", size=(PHONE_WIDTH, 3.2),
        title="Causal mask: the weights of the future are exactly 0.",
        caption=("Weights under the causal mask. Everything above the diagonal is 0; the first query has only "
                 "itself to look at, so its weight on itself is 1."),
    ),
    Figure(
        "mask-padding", title="Padding mask: no query looks at a padding position.", data=EX_MASK_PADDING.compute,
        render=batch_render, size=(PHONE_WIDTH, 7.4), example=EX_MASK_PADDING,
        caption=("Weights for a batch of two sequences padded to the same length. The pad columns of the first "
                 "sequence are 0 for every query. The pad rows are computed too, but their outputs are thrown away."),
    ),
    Figure(
        "mask-combined", title="Padding and causal masks together: the past, and only real tokens.",
        data=EX_MASK_COMBINED.compute, render=batch_render, size=(PHONE_WIDTH, 7.4), example=EX_MASK_COMBINED,
        caption=("Weights for the same batch with both masks: a query may look at an earlier or equal position "
                 "that is not padding. The two masks are combined with a logical and."),
    ),
    example_heatmap(
        "mask-window", EX_MASK_WINDOW, "weights", size=(PHONE_WIDTH, 3.3),
        title="Sliding-window mask: each query sees only its last few tokens.",
        caption=lambda example: (
            f"Weights under a sliding window of {example['window']}: query i may look at keys "
            f"i − {example['window'] - 1} to i. Outside the band every weight is 0."
        ),
    ),
]
