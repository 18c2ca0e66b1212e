"""Attention itself: softmax(Q Kᵀ / √d_k) V, plainly and in blocks of keys."""
import numpy as np

from ._checks import as_float_array, at_least, batch_shape, check_mask, positive_int
from .scores import _query_key, resolve_scale
from .softmax import softmax


def _query_key_value(Q, K, V):
    Q, K = _query_key(Q, K)
    V = as_float_array("V", V)
    at_least("V", V, 2, "(..., n_k, d_v)")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(f"K and V must have the same number of keys n_k (axis -2): K {K.shape}, V {V.shape}")
    batch = batch_shape(Q=Q, K=K, V=V)
    return Q, K, V, batch + (Q.shape[-2], K.shape[-2])


def attend(Q, K, V, mask=None, scale=None):
    """Scaled dot-product attention, the reference path.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v), mask bool broadcastable to
    (..., n_q, n_k) with True = may attend -> (out (..., n_q, d_v), weights (..., n_q, n_k)).
    Row i of `out` is the weights of row i times V. A row with no allowed key has zero weights
    and a zero output row.
    """
    Q, K, V, score_shape = _query_key_value(Q, K, V)
    if mask is not None:
        mask = check_mask(mask, score_shape)
    S = Q @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) x (..., d_k, n_k) -> (..., n_q, n_k)
    S = S * resolve_scale(scale, Q.shape[-1], S.dtype)
    weights = softmax(S, mask)
    out = weights @ V  # (..., n_q, n_k) x (..., n_k, d_v) -> (..., n_q, d_v)
    return out, weights


def attend_chunked(Q, K, V, mask=None, scale=None, block_size=128):
    """The same output as `attend(...)[0]`, computed block by block over the keys.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v) -> out (..., n_q, d_v).
    A running maximum, a running denominator and a running weighted sum are carried across blocks
    (the "online softmax"), so only an n_q × block_size piece of the score table exists at a time.
    """
    Q, K, V, score_shape = _query_key_value(Q, K, V)
    block_size = positive_int("block_size", block_size)
    if mask is not None:
        mask = check_mask(mask, score_shape)
    dtype = np.result_type(Q, K, V)
    factor = resolve_scale(scale, Q.shape[-1], dtype)
    n_k = K.shape[-2]
    batch, n_q = score_shape[:-2], score_shape[-2]
    running_max = np.full(batch + (n_q, 1), -np.inf, dtype=dtype)
    denominator = np.zeros(batch + (n_q, 1), dtype=dtype)
    acc = np.zeros(batch + (n_q, V.shape[-1]), dtype=dtype)
    for start in range(0, n_k, block_size):
        keys = slice(start, min(start + block_size, n_k))
        S = (Q @ np.swapaxes(K[..., keys, :], -1, -2)) * factor  # (..., n_q, b)
        if mask is not None:
            S = np.where(mask[..., keys], S, -np.inf)
        new_max = np.maximum(running_max, S.max(axis=-1, keepdims=True))
        shift = np.where(np.isfinite(new_max), new_max, 0)
        rescale = np.exp(running_max - shift)  # what the earlier blocks' sums were measured against
        p = np.exp(S - shift)  # (..., n_q, b)
        denominator = denominator * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., keys, :]  # (..., n_q, b) x (..., b, d_v) -> (..., n_q, d_v)
        running_max = new_max
    return np.divide(acc, denominator, out=np.zeros_like(acc), where=denominator > 0)
