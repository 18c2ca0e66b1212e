"""Softmax weights and row entropies of a five-token sentence."""
import numpy as np

from . import sentences
from .tables import num, table


def example():
    return sentences.self_attention_example("ex-softmax", __doc__.strip().rstrip("."), "softmax/", sentences.RUNNING)


def peaked_and_flat(example):
    """Row indices of the lowest- and highest-entropy rows."""
    entropy = example["steps"]["entropy"]
    return int(np.argmin(entropy)), int(np.argmax(entropy))


def row_table(example, i):
    """One row of scores taken to weights, every intermediate in its own column."""
    tokens, steps = example["tokens"], example["steps"]
    s, w = steps["scaled_scores"][i], steps["weights"][i]
    shifted = np.exp(s - s.max())
    rows = [[f"**{t}**", num(a, 3), num(e, 4), num(b, 4), num(-b * np.log(b), 4)]
            for t, a, e, b in zip(tokens, s, shifted, w)]
    rows.append(["**total**", "", num(shifted.sum(), 4), num(w.sum(), 4), f"**{num(steps['entropy'][i], 4)}**"])
    return table(["key $j$", "$s_j$", "$e^{s_j - \\max s}$", "$w_j$", "$-w_j \\ln\\, w_j$"], rows)


def snippets(example):
    tokens, entropy = example["tokens"], example["steps"]["entropy"]
    peaked, flat = peaked_and_flat(example)
    n = len(tokens)
    return {
        "peaked": row_table(example, peaked),
        "flat": row_table(example, flat),
        "summary": (
            f"The row of “{tokens[peaked]}” is the most peaked in the table: entropy "
            f"{num(entropy[peaked])} nats. The row of “{tokens[flat]}” is the flattest: {num(entropy[flat])} nats, "
            f"close to the ceiling $\\ln\\, {n} \\approx {num(np.log(n))}$ that an even split over {n} keys would reach."
        ),
        "peaked-name": tokens[peaked],
        "flat-name": tokens[flat],
    }
