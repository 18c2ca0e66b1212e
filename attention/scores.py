"""Scores: how much each query likes each key."""
import numpy as np

from ._checks import as_float_array, at_least, batch_shape, real_number


def scores(Q, K):
    """Raw scores `Q Kᵀ`.

    Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k). Entry (i, j) is q_i · k_j.
    """
    Q, K = _query_key(Q, K)
    return Q @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) x (..., d_k, n_k) -> (..., n_q, n_k)


def scaled_scores(Q, K, scale=None):
    """Scores divided by √d_k, or multiplied by `scale` when it is given.

    Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k). `attend` computes exactly these
    numbers before its softmax.
    """
    Q, K = _query_key(Q, K)
    S = Q @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) x (..., d_k, n_k) -> (..., n_q, n_k)
    S *= resolve_scale(scale, Q.shape[-1], S.dtype)
    return S


def resolve_scale(scale, d_k, dtype):
    """The factor the scores are multiplied by, as a scalar of `dtype`: 1/√d_k unless `scale` is given."""
    if scale is None:
        return np.dtype(dtype).type(1.0 / np.sqrt(d_k))
    return np.dtype(dtype).type(real_number("scale", scale))


def _query_key(Q, K):
    """Q and K as float arrays, checked: Q (..., n_q, d_k) and K (..., n_k, d_k) with the same d_k."""
    Q = as_float_array("Q", Q)
    K = as_float_array("K", K)
    at_least("Q", Q, 2, "(..., n_q, d_k)")
    at_least("K", K, 2, "(..., n_k, d_k)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must share d_k (their last axis): Q {Q.shape}, K {K.shape}")
    if Q.shape[-1] == 0:
        raise ValueError(f"Q and K need d_k >= 1 (their last axis): Q {Q.shape}, K {K.shape}")
    batch_shape(Q=Q, K=K)
    return Q, K
