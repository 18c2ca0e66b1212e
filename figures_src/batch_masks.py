"""The padded batch shared by the padding and combined-mask examples (batch axis first)."""
import numpy as np

import attention

from . import sentences


def batch_mask(lengths, n, causal):
    """Padding mask (batch, n, n), and with `causal` the causal mask too: True = may attend."""
    mask = np.broadcast_to(attention.padding_mask(lengths, n), (len(lengths), n, n))
    if causal:
        mask = mask & attention.causal_mask(n)
    return mask.copy()


def batch_example(example_id, title, causal):
    """Both sentences go through the same W_Q, W_K, W_V (the running example's): one model, one batch."""
    tokens, X, lengths = sentences.padded_batch()
    W_Q, W_K, W_V = sentences.projections(sentences.RUNNING)
    n, d_k = X.shape[1], W_Q.shape[1]
    mask = batch_mask(lengths, n, causal)
    steps = sentences.attention_steps(X, W_Q, W_K, W_V, mask=mask)
    out = steps.pop("out")
    return {
        "id": example_id,
        "title": title,
        "page": "masks/",
        "library_version": attention.__version__,
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
