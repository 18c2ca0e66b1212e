"""Scores for a five-token sentence."""
import numpy as np

import attention

TOKENS = ["the", "cat", "sat", "on", "mats"]
SEED = 3


def example():
    """Small integer inputs, so every score can be checked by hand and prints the same everywhere."""
    rng = np.random.default_rng(SEED)
    d_model = d_k = 4
    X = rng.integers(-1, 2, size=(len(TOKENS), d_model)).astype(float)  # (n, d_model)
    W_Q, W_K, W_V = (rng.integers(-1, 2, size=(d_model, d_k)).astype(float) for _ in range(3))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, d_model) x (d_model, d_k) -> (n, d_k)
    scale = 1 / np.sqrt(d_k)
    S = attention.scores(Q, K)
    out, weights = attention.attend(Q, K, V)
    return {
        "id": "ex-scores",
        "title": __doc__.strip().rstrip("."),
        "page": "scores/",
        "library_version": attention.__version__,
        "seed": SEED,
        "tokens": TOKENS,
        "d_k": d_k,
        "scale": float(scale),
        "inputs": {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
        "steps": {
            "Q": Q,
            "K": K,
            "V": V,
            "scores": S,
            "scaled_scores": attention.scaled_scores(Q, K),
            "weights": weights,
            "entropy": attention.row_entropy(weights),
        },
        "outputs": {"out": out, "weights": weights},
    }
