"""Two heads attending over the same five-token sentence."""
import numpy as np

import attention

from . import sentences
from .tables import matrix

SEED = 100
N_HEADS = 2


def example():
    """The running sentence's X; W_Q, W_K, W_V, W_O (d_model, d_model) of one-decimal numbers."""
    sentence = sentences.RUNNING
    X = sentences.token_vectors(sentence)  # (n, d_model)
    rng = np.random.default_rng(SEED)
    W_Q, W_K, W_V, W_O = (rng.integers(-5, 6, size=(sentence.d_model, sentence.d_model)) / 10 for _ in range(4))
    Q, K, V = (attention.split_heads(X @ W, N_HEADS) for W in (W_Q, W_K, W_V))  # (n_heads, n, d_k)
    heads, weights = attention.attend(Q, K, V)  # (n_heads, n, d_k), (n_heads, n, n)
    concat = attention.merge_heads(heads)  # (n, n_heads · d_k) = (n, d_model)
    out, _ = attention.multi_head_attention(X, W_Q, W_K, W_V, W_O, N_HEADS)
    d_k = sentence.d_model // N_HEADS
    return {
        "id": "ex-multi-head",
        "title": __doc__.strip().rstrip("."),
        "page": "multi-head/",
        "library_version": attention.__version__,
        "seed": SEED,
        "tokens": list(sentence.tokens),
        "n_heads": N_HEADS,
        "d_k": d_k,
        "scale": float(1 / np.sqrt(d_k)),
        "inputs": {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O},
        "steps": {
            "Q": Q,
            "K": K,
            "V": V,
            "scores": attention.scores(Q, K),
            "scaled_scores": attention.scaled_scores(Q, K),
            "weights": weights,
            "entropy": attention.row_entropy(weights),
            "heads": heads,
            "concat": concat,
        },
        "outputs": {"out": out, "weights": weights},
    }


def snippets(example):
    tokens, steps = example["tokens"], example["steps"]
    n_heads, d_k = example["n_heads"], example["d_k"]
    n, d_model = steps["concat"].shape
    columns = [f"h{h}·{c + 1}" for h in range(n_heads) for c in range(d_k)]
    return {
        "shapes": (
            f"Here $d_{{\\text{{model}}}} = {d_model}$ and $h = {n_heads}$ heads, so each head works with "
            f"$d_k = {d_model}/{n_heads} = {d_k}$ columns: head $i$ takes columns ${d_k}i+1$ to ${d_k}(i+1)$ of "
            f"$XW_Q$, $XW_K$ and $XW_V$. Each head's output is ${n} \\times {d_k}$; side by side they make a "
            f"${n} \\times {d_model}$ table again, which $W_O$ (${d_model} \\times {d_model}$) mixes into the layer's output."
        ),
        "concat": matrix(steps["concat"], tokens, columns, corner="token"),
        "out": matrix(example["outputs"]["out"], tokens, [str(c + 1) for c in range(d_model)], corner="token"),
    }
