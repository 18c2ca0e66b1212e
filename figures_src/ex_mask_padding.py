"""Padding in a batch of two sentences of different lengths."""
import numpy as np

from . import batch_masks, ex_qkv
from .tables import num


def example():
    return batch_masks.batch_example("ex-mask-padding", __doc__.strip().rstrip("."), causal=False)


def snippets(example):
    tokens, lengths, weights = example["batch_tokens"], example["lengths"], example["steps"]["weights"]
    n = len(tokens[0])
    padded, full = (0, 1) if lengths[0] < lengths[1] else (1, 0)
    alone = ex_qkv.example()["outputs"]["weights"]  # the unpadded sentence on its own, outside any batch
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
