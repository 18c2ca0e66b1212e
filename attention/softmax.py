"""Softmax turns each row of scores into weights; entropy says how spread out a row is."""
import numpy as np

from ._checks import as_float_array, check_mask


def softmax(S, mask=None):
    """Softmax over the last axis, stable for any finite scores.

    S (..., n_q, n_k) -> weights of the same shape; each row is >= 0 and sums to 1 over its
    allowed keys. `mask` is boolean, True = may attend, broadcast against S. A masked entry, or a
    score of -inf, gets a weight of exactly 0. A row with no allowed key gets all-zero weights
    (not NaN): it attends to nothing, so its output is the zero vector.
    """
    S = as_float_array("S", S, allow_neg_inf=True)
    if S.ndim < 1:
        raise ValueError(f"S must have at least one axis (the keys), got shape {S.shape}")
    if mask is not None:
        mask = check_mask(mask, S.shape)
        S = np.where(mask, S, -np.inf)
    row_max = S.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0)  # a fully masked row stays all -inf
    e = np.exp(S - row_max)  # the largest allowed entry becomes e^0 = 1: nothing overflows
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def row_entropy(W, base=None):
    """Entropy of each row of weights, in nats (or in bits with base=2), with 0·log 0 = 0.

    W (..., n_q, n_k) -> (..., n_q). 0 for a one-hot row; log(n_k) for a uniform row.
    """
    W = as_float_array("W", W)
    if (W < 0).any():
        raise ValueError("W must hold weights >= 0")
    logs = np.log(W, out=np.zeros_like(W), where=W > 0)
    H = -(W * logs).sum(axis=-1)
    if base is not None:
        if isinstance(base, bool) or not np.isscalar(base) or not base > 0 or base == 1:
            raise ValueError(f"base must be a positive number other than 1, got {base!r}")
        H = H / W.dtype.type(np.log(base))
    return H + 0.0  # turns -0.0 into 0.0
