"""Scores: how much each query likes each key."""
import numpy as np

from ._checks import as_float_array, at_least, batch_shape


def _query_key(Q, K):
    Q = as_float_array("Q", Q)
    K = as_float_array("K", K)
    at_least("Q", Q, 2, "(..., n_q, d_k)")
    at_least("K", K, 2, "(..., n_k, d_k)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must share d_k (their last axis): Q {Q.shape}, K {K.shape}")
    batch_shape(Q=Q, K=K)
    return Q, K


def scores(Q, K):
    """Raw scores `Q Kᵀ`.

    Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k). Entry (i, j) is q_i · k_j.
    """
    Q, K = _query_key(Q, K)
    return Q @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) x (..., d_k, n_k) -> (..., n_q, n_k)


def scaled_scores(Q, K, scale=None):
    """Scores divided by √d_k, or multiplied by `scale` when it is given.

    Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k).
    """
    Q, K = _query_key(Q, K)
    S = Q @ np.swapaxes(K, -1, -2)
    return S * resolve_scale(scale, Q.shape[-1], S.dtype)


def resolve_scale(scale, d_k, dtype):
    """The factor the scores are multiplied by: 1/√d_k unless `scale` says otherwise."""
    if scale is None:
        return dtype.type(1.0 / np.sqrt(d_k))
    if isinstance(scale, bool) or not np.isscalar(scale) or not np.isfinite(scale):
        raise ValueError(f"scale must be a finite number, got {scale!r}")
    return dtype.type(scale)
