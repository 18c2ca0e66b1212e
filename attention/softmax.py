"""Softmax turns each row of scores into weights; entropy says how spread out a row is."""
import numpy as np

from ._checks import as_float_array, at_least, check_mask, real_number, scores_did_not_overflow


def softmax(S, mask=None):
    """Softmax over the last axis, stable for any finite scores (±1e4 included).

    S (..., n_q, n_k) -> weights of the same shape and dtype; each row is >= 0 and sums to 1 over
    its allowed keys. `mask` is boolean, True = may attend, broadcast against S. A masked entry, or
    a score of -inf, gets a weight of exactly 0. A row with no allowed key (every entry masked or
    -inf) gets all-zero weights, not NaN: it attends to nothing, so its output is the zero vector.
    NaN and +inf scores are rejected.
    """
    S = as_float_array("S", S, allow_neg_inf=True)
    at_least("S", S, 1, "(..., n_k)")
    if mask is not None:
        mask = check_mask(mask, S.shape)
    return softmax_in_place(S.copy(), mask)


def softmax_in_place(S, mask=None):
    """`softmax(S, mask)` written over S itself, with no second float table of S's size: S is returned.

    S (..., n_q, n_k), unchecked; mask None or a checked boolean array that broadcasts to S.
    """
    if mask is not None:
        np.copyto(S, -np.inf, where=~mask)  # e^-inf = 0: masked keys get exactly 0
    row_max = S.max(axis=-1, keepdims=True, initial=-np.inf)  # (..., n_q, 1)
    scores_did_not_overflow(row_max, S.dtype, S.shape)
    row_max[row_max == -np.inf] = 0  # a row with no allowed key stays all -inf and becomes all 0
    S -= row_max  # the largest allowed score becomes 0, so e^S <= 1: nothing overflows
    np.exp(S, out=S)
    total = S.sum(axis=-1, keepdims=True)  # (..., n_q, 1); >= 1 except for a row with no allowed key
    total[total == 0] = 1  # such a row is all 0 and stays 0
    S /= total
    return S


def row_entropy(W, base=None):
    """Entropy of each row of weights, in nats (or in bits with base=2), with 0·log 0 = 0.

    W (..., n_q, n_k) -> (..., n_q). 0 for a one-hot row (and for an all-zero row, which attends
    to nothing); log(n_k) for a uniform row. Weights must be >= 0; rows are not renormalised.
    """
    W = as_float_array("W", W)
    at_least("W", W, 1, "(..., n_k)")
    if base is not None:
        base = real_number("base", base)
        if base <= 0 or base == 1:
            raise ValueError(f"base must be a positive number other than 1, got {base!r}")
    if (W < 0).any():
        where = tuple(int(i) for i in np.argwhere(W < 0)[0])
        raise ValueError(f"W of shape {W.shape} has a negative weight {W[where]} at index {where}; weights must be >= 0")
    logs = np.log(W, out=np.zeros_like(W), where=W > 0)  # log 0 is never taken: 0·log 0 counts as 0
    H = -(W * logs).sum(axis=-1)
    if base is not None:
        H /= W.dtype.type(np.log(base))
    return H + 0.0  # turns -0.0 into 0.0
