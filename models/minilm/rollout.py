"""Attention rollout (Abnar & Zuidema, 2020): how much of each input token reaches each position after
every layer, if attention were the only path information took.

Each layer l mixes the tokens twice: by attention (its heads' weights, averaged: Ā_l, (n, n)) and by the
residual connection, which passes every token on unchanged (the identity, I). Rollout models a layer as

    Â_l = rownorm(Ā_l + I)        (each row divided by its sum, 2: so Â_l = (Ā_l + I) / 2)

and follows the mixing through the layers by multiplying:

    R_1 = Â_1,    R_l = Â_l · R_{l-1}        (n, n) x (n, n) -> (n, n)

Row i of R_l is a share of the input tokens (it adds up to 1): how much of each one position i holds after
layer l under that model. It ignores the values, W_O, the feed-forward layers and LayerNorm, so it is a
picture of where attention routes information, not an explanation of what the model computes from it.
"""
import numpy as np

ROW_SUM_TOLERANCE = 1e-3  # weights that went through float16 still add up to 1 within this


def attention_rollout(weights):
    """weights (n_layers, n_heads, n, n), each row a softmax -> rollout (n_layers, n, n): R_1 … R_L, float64.

    Raises ValueError naming the problem for any other shape, for non-finite or negative weights, or for
    rows that do not add up to 1.
    """
    weights = np.asarray(weights)
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2] or 0 in weights.shape:
        raise ValueError(f"attention_rollout: weights must be (n_layers, n_heads, n, n) with n ≥ 1, got shape {weights.shape}")
    if not np.issubdtype(weights.dtype, np.floating):
        raise ValueError(f"attention_rollout: weights must be floating point, got {weights.dtype}")
    weights = weights.astype(np.float64)
    if not np.isfinite(weights).all():
        raise ValueError("attention_rollout: weights must be finite numbers (found NaN or infinity)")
    if (weights < 0).any():
        raise ValueError(f"attention_rollout: weights must not be negative (found {weights.min():.3g})")
    sums = weights.sum(axis=-1)  # (L, H, n)
    worst = np.unravel_index(np.abs(sums - 1).argmax(), sums.shape)
    if abs(sums[worst] - 1) > ROW_SUM_TOLERANCE:
        layer, head, row = worst
        raise ValueError(f"attention_rollout: every row must add up to 1; layer {layer + 1}, head {head + 1}, row "
                         f"{row + 1} adds up to {sums[worst]:.6f}")
    n = weights.shape[-1]
    mixed = weights.mean(axis=1) + np.eye(n)  # (L, n, n): attention plus the residual
    mixed /= mixed.sum(axis=-1, keepdims=True)
    rollout = np.empty_like(mixed)
    product = np.eye(n)
    for layer, step in enumerate(mixed):
        product = step @ product  # (n, n) x (n, n) -> (n, n)
        rollout[layer] = product
    return rollout
