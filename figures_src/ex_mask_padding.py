"""Padding in a batch of two sentences of different lengths."""
import numpy as np

from . import batch_masks, ex_qkv
from .tables import num


def example():
    return batch_masks.batch_example("ex-mask-padding", __doc__.strip().rstrip("."), causal=False)


def snippets(example):
    tokens, lengths, weights = example["batch_tokens"], example["lengths"], example["steps"]["weights"]
    n = len(tokens[0])
    alone = ex_qkv.example()["outputs"]["weights"]  # the first sentence on its own, with no padding
    pad_rows = weights[1, lengths[1]:]
    return {
        "facts": (
            f"The batch holds “{' '.join(tokens[0])}” ({lengths[0]} tokens) and "
            f"“{' '.join(tokens[1][: lengths[1]])}” ({lengths[1]} tokens, padded with {n - lengths[1]} pad positions "
            f"to length {n}). Both go through the same $W_Q$, $W_K$, $W_V$. The first sentence has no padding, and "
            f"its weights are the ones it gets on its own: the largest difference is {num(np.abs(weights[0] - alone).max(), 2)}. "
            f"The pad queries of the second sentence have all-zero vectors, so all their scores are 0 and they spread "
            f"their weight evenly, {num(pad_rows.max())} on each real key: harmless, because their outputs are discarded."
        ),
    }
