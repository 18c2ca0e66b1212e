"""Scores: how much each query likes each key."""
import numpy as np

from ._checks import as_float_array, at_least, batch_shape, overflow_error, overflowed, real_number


def scores(Q, K):
    """Raw scores `Q Kᵀ`.

    Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k). Entry (i, j) is q_i · k_j.
    Finite Q and K whose scores leave the dtype's range (+inf or NaN) raise ValueError, as in `attend`.
    """
    return _raw_scores(*_query_key(Q, K))


def scaled_scores(Q, K, scale=None):
    """Scores divided by √d_k, or multiplied by `scale` (any real number) when it is given.

    Q (..., n_q, d_k), K (..., n_k, d_k) -> (..., n_q, n_k). `attend` computes exactly these numbers
    before its softmax, and raises on the same overflows; so does this, naming Q Kᵀ or the scale.
    """
    Q, K = _query_key(Q, K)
    S = _raw_scores(Q, K)
    factor = resolve_scale(scale, Q.shape[-1], S.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        S *= factor
    if overflowed(S):
        raise overflow_error(S.dtype, S.shape, raw_overflowed=False)
    return S


def _raw_scores(Q, K):
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, as an error
        S = Q @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) x (..., d_k, n_k) -> (..., n_q, n_k)
    if overflowed(S):
        raise overflow_error(S.dtype, S.shape, raw_overflowed=True)
    return S


def resolve_scale(scale, d_k, dtype):
    """The factor the scores are multiplied by, as a scalar of `dtype`: 1/√d_k unless `scale` is given.

    A scale too large for `dtype` itself (1e300 in float32) raises ValueError naming it.
    """
    dtype = np.dtype(dtype)
    if scale is None:
        return dtype.type(1.0 / np.sqrt(d_k))
    value = real_number("scale", scale)
    with np.errstate(over="ignore"):
        factor = dtype.type(value)
    if not np.isfinite(factor):
        raise ValueError(f"scale {value:g} overflows {dtype} (largest {np.finfo(dtype).max:.4g}); use a smaller "
                         "scale, or float64")
    return factor


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
