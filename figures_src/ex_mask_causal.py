"""A causal mask on a five-token sentence: each query sees itself and the tokens before it."""
import numpy as np

import attention

from . import sentences
from .tables import num, table


def example():
    sentence = sentences.RUNNING
    return sentences.self_attention_example(
        "ex-mask-causal", __doc__.strip().split(":")[0], "masks/", sentence,
        mask=attention.causal_mask(sentence.n),
    )


def snippets(example):
    """The −∞ → 0 step for the middle query: score, mask, masked score, exponential, weight."""
    tokens, steps, mask = example["tokens"], example["steps"], example["inputs"]["mask"]
    i = len(tokens) // 2
    s, allowed, w = steps["scaled_scores"][i], mask[i], steps["weights"][i]
    masked = np.where(allowed, s, -np.inf)
    top = masked.max()
    rows = []
    for t, a, ok, m, wj in zip(tokens, s, allowed, masked, w):
        exp = num(np.exp(m - top), 4) if ok else "0"
        rows.append([f"**{t}**", num(a, 3), num(m, 3), exp, num(wj, 4) if wj != 0 else "0"])
    visible = np.exp(masked[allowed] - top).sum()
    rows.append(["**total**", "", "", num(visible, 4), num(w.sum(), 4)])
    return {
        "step": (
            f"Query “{tokens[i]}” (row {i}) may look at {', '.join(f'“{t}”' for t in np.array(tokens)[allowed])}. "
            "Its other scaled scores $s_j$ are replaced by $-\\infty$ before the softmax, and $e^{-\\infty} = 0$:\n\n"
            + table(["key $j$", "$s_j$", "masked", "$e^{s_j - \\max s}$", "$w_j$"], rows)
            + f"\nThe forbidden keys get a weight of exactly 0, and the allowed ones share all of it: the row still adds up to {num(w.sum(), 0)}.\n"
        ),
    }
