"""Masks (docs/masks.md): causal, padding, both at once, and a sliding window, each a worked example."""
import numpy as np

import attention

from ..engine import Example, Figure, Words, example_heatmap
from ..engine.figures import QUANTITY_WORDS
from ..engine.examples import key_size
from ..engine.heatmap import heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH, weights_colorbar
from ..engine.text import MASKED, MINUS, cell, num, softmax_by_hand, table
from ..engine.words import SITE_WORDS, listed
from . import sentences
from .qkv import EX_QKV

WORDS = Words("words/masks.md")
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
    rows.append([WORDS.line("ex-mask-causal-step/total-row"), "", "", hand["total"], hand["weight_total"]])
    columns = [WORDS.line("ex-mask-causal-step/key-column"), "$\\tilde{s}_j$",
               WORDS.line("ex-mask-causal-step/masked-column"), "$e^{\\tilde{s}_j - \\tilde{s}_{\\max}}$", "$a_j$"]
    allowed_keys = listed([WORDS.line("ex-mask-causal-step/allowed", token=str(t)) for t in np.array(tokens)[allowed]],
                          "comma")
    return {
        "step": WORDS.fill("ex-mask-causal-step", token=tokens[i], row=i + 1, allowed=allowed_keys,
                           table=table(columns, rows).rstrip("\n"), total=num(w.sum(), 0)) + "\n",
    }


EX_MASK_CAUSAL = Example(
    "ex-mask-causal", title=WORDS.line("ex-mask-causal-title"),
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
        **key_size(d_k),
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
    same = (WORDS.line("ex-mask-padding-facts/exactly") if difference == 0
            else WORDS.line("ex-mask-padding-facts/within", difference=num(difference, 2)))
    pad_rows = weights[padded, lengths[padded]:]
    return {
        "facts": WORDS.fill(
            "ex-mask-padding-facts", short=" ".join(tokens[padded][: lengths[padded]]),
            short_length=int(lengths[padded]), pads=int(n - lengths[padded]), n=n, full=" ".join(tokens[full]),
            full_length=int(lengths[full]), pad_weight=num(pad_rows.max()), same=same),
    }


EX_MASK_PADDING = Example("ex-mask-padding", title=WORDS.line("ex-mask-padding-title"),
                          data=lambda: batch_example(causal=False), snippets=padding_snippets)
EX_MASK_COMBINED = Example("ex-mask-combined",
                           title=WORDS.line("ex-mask-combined-title"),
                           data=lambda: batch_example(causal=True))


def batch_render(example, fig):
    """One weights heatmap per sequence of the batch, one above the other (each keeps a phone's width)."""
    batch_tokens, weights, lengths = example["batch_tokens"], example["steps"]["weights"], example["lengths"]
    axes = fig.subplots(len(batch_tokens), 1)
    drawn = [
        heatmap(ax, weights[b], tokens, tokens, quantity="weights", panel=f"seq{b}",
                title=WORDS.line("mask-batch/sequence-title", sequence=b + 1, length=int(lengths[b])), colorbar=False)
        for b, (ax, tokens) in enumerate(zip(axes, batch_tokens))
    ]
    weights_colorbar(fig, axes)
    return drawn


# ---------------------------------------------------------------- sliding window

EX_MASK_WINDOW = Example(
    "ex-mask-window", title=WORDS.line("ex-mask-window-title", window=WINDOW),
    data=lambda: sentences.self_attention_example(
        sentences.DEMO, mask=attention.sliding_window_mask(sentences.DEMO.n, WINDOW), window=WINDOW),
)


def notebook_cells():
    return [
        *sentences.notebook_cells("RUNNING", "DEMO", "SHORT", "PAD"),
        markdown(WORDS.fill("nb-causal-mask")),
        code("""
            tokens, n = list(RUNNING.tokens), RUNNING.n
            mask = attention.causal_mask(n)
            mask.astype(int)"""),
        markdown(WORDS.fill("nb-causal-scores")),
        code("""
            X = token_vectors(RUNNING)
            W_Q, W_K, W_V = projections(RUNNING)
            Q, K, V = X @ W_Q, X @ W_K, X @ W_V
            S_scaled = attention.scaled_scores(Q, K)
            S_masked = np.where(mask, S_scaled, -np.inf)
            S_masked"""),
        markdown(WORDS.fill("nb-causal-row")),
        code("""
            i = n // 2
            s = S_masked[i]
            if mask[i].any():
                exponentials = np.exp(s - s.max())  # e^(−∞ − s_max) = 0
                a = exponentials / exponentials.sum()
            else:  # a query the mask lets see no key: the library gives it a row of zeros
                exponentials = a = np.zeros(n)
            print(f"query {tokens[i]!r} (row {i + 1}, index {i})")
            print("exponentials:", exponentials, " their sum:", round(exponentials.sum(), 5))
            print("weights:", a, " their sum:", round(a.sum(), 4))"""),
        markdown(WORDS.fill("nb-causal-weights")),
        code(f"""
            out, A = attention.attend(Q, K, V, mask=mask)
            assert np.allclose(A[i], a, rtol=0, atol=1e-12), f"row {{i + 1}} by hand differs from the library's"
            fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 4))
            heatmap(left, S_masked, tokens, tokens, quantity="scaled_scores", masked=~mask,
                    title={SITE_WORDS.line(QUANTITY_WORDS["scaled_scores"])!r})
            heatmap(right, A, tokens, tokens, quantity="weights", title={SITE_WORDS.line(QUANTITY_WORDS["weights"])!r})
            plt.show()
            causal = self_attention_example(RUNNING, mask=mask)
            assert np.allclose(A, causal["steps"]["weights"], rtol=0, atol=1e-12), (
                "the causal weights differ from self_attention_example's")"""),
        markdown(WORDS.fill("nb-padding-batch")),
        source(sentences.padded_batch),
        code("""
            assert RUNNING.n >= SHORT.n, "the running sentence must be at least as long as SHORT, which pads to it"
            batch_tokens, X_batch, lengths = padded_batch()
            print(batch_tokens, "lengths:", lengths)
            padding_mask = attention.padding_mask(lengths, n)  # (batch, 1, n): one row per sequence
            print("padding mask, shape", padding_mask.shape)
            padding_mask[:, 0].astype(int)"""),
        markdown(WORDS.fill("nb-padding-example")),
        code(f"""
            import types

            sentences = types.SimpleNamespace(RUNNING=RUNNING, padded_batch=padded_batch, projections=projections,
                                              attention_steps=attention_steps)"""),
        source(batch_mask, batch_example),
        code("""
            padding = batch_example(causal=False)
            fig, axes = plt.subplots(1, 2, figsize=(10.5, 4))
            for b, ax in enumerate(axes):
                heatmap(ax, padding["steps"]["weights"][b], batch_tokens[b], batch_tokens[b], quantity="weights",
                        colorbar=b == 1, title=" ".join(batch_tokens[b]))
            plt.show()
            print("largest weight on a pad:", round(padding["steps"]["weights"][0][:, lengths[0]:].max(), 4))
            alone = attention.softmax(S_scaled)  # the running sentence on its own, no mask
            print("the running sentence in the batch against on its own, the largest difference:",
                  round(np.abs(padding["steps"]["weights"][1] - alone).max(), 4))"""),
        markdown(WORDS.fill("nb-combined")),
        code("""
            combined = batch_example(causal=True)
            print(combined["inputs"]["mask"].astype(int))
            fig, axes = plt.subplots(1, 2, figsize=(10.5, 4))
            for b, ax in enumerate(axes):
                heatmap(ax, combined["steps"]["weights"][b], batch_tokens[b], batch_tokens[b], quantity="weights",
                        colorbar=b == 1, title=" ".join(batch_tokens[b]))
            plt.show()"""),
        markdown(WORDS.fill("nb-window")),
        code(f"""
            WINDOW = {WINDOW!r}
            window_mask = attention.sliding_window_mask(DEMO.n, WINDOW)
            print(window_mask.astype(int))
            window = self_attention_example(DEMO, mask=window_mask, window=WINDOW)
            fig, ax = plt.subplots(figsize=(4.8, 3.6))
            heatmap(ax, window["steps"]["weights"], DEMO.tokens, DEMO.tokens, quantity="weights")
            plt.show()"""),
    ]


ITEMS = [
    EX_MASK_CAUSAL,
    EX_MASK_PADDING,
    EX_MASK_COMBINED,
    EX_MASK_WINDOW,
    example_heatmap(
        "mask-causal-scores", EX_MASK_CAUSAL, "scaled_scores", masked=True, size=(PHONE_WIDTH, 3.2),
        title=WORDS.line("mask-causal-scores-title"), caption=WORDS.line("mask-causal-scores-caption"),
    ),
    example_heatmap(
        "mask-causal-weights", EX_MASK_CAUSAL, "weights", size=(PHONE_WIDTH, 3.2),
        title=WORDS.line("mask-causal-weights-title"), caption=WORDS.line("mask-causal-weights-caption"),
    ),
    Figure(
        "mask-padding", title=WORDS.line("mask-padding-title"), data=EX_MASK_PADDING.compute,
        render=batch_render, size=(PHONE_WIDTH, 7.4), example=EX_MASK_PADDING,
        caption=WORDS.line("mask-padding-caption"),
    ),
    Figure(
        "mask-combined", title=WORDS.line("mask-combined-title"), data=EX_MASK_COMBINED.compute, render=batch_render,
        size=(PHONE_WIDTH, 7.4), example=EX_MASK_COMBINED, caption=WORDS.line("mask-combined-caption"),
    ),
    example_heatmap(
        "mask-window", EX_MASK_WINDOW, "weights", size=(PHONE_WIDTH, 3.3),
        title=WORDS.line("mask-window-title"),
        caption=lambda example: WORDS.line("mask-window-caption", window=example["window"],
                                           reach=example["window"] - 1),
    ),
    notebook("masks.md", notebook_cells, examples={EX_MASK_CAUSAL: "causal", EX_MASK_PADDING: "padding",
                                                 EX_MASK_COMBINED: "combined", EX_MASK_WINDOW: "window"}),
]
