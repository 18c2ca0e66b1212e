"""Attention itself: softmax(Q Kᵀ / √d_k) V, plainly (`attend`) and in blocks (`attend_chunked`)."""
import numpy as np

from ._checks import (ScoresOverflow, as_float_array, at_least, batch_shape, check_mask, overflow_error, overflowed,
                      positive_int, scores_did_not_overflow)
from .scores import _query_key, resolve_scale
from .softmax import softmax_in_place


def attend(Q, K, V, mask=None, scale=None):
    """Scaled dot-product attention, the reference path.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v); mask bool broadcastable to
    (..., n_q, n_k), True = may attend; scale defaults to 1/√d_k
    -> (out (..., n_q, d_v), weights (..., n_q, n_k)).
    weights = softmax(scaled_scores(Q, K, scale), mask) and out = weights @ V: row i of `out` is the
    average of the value rows, weighted by row i of `weights`. A query with no allowed key has
    all-zero weights and a zero output row (never NaN). float32 inputs give float32 outputs.
    Finite Q and K whose largest score in a row overflows the dtype (q·k beyond ~3e38 in float32) raise
    ValueError; a score that overflows downwards, to -inf, gets weight 0 like a masked one.
    """
    Q, K, V, score_shape = _query_key_value(Q, K, V)
    if mask is not None:
        mask = check_mask(mask, score_shape)
    factor = resolve_scale(scale, Q.shape[-1], np.result_type(Q, K))
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported by softmax_in_place, as an error
        S = Q @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) x (..., d_k, n_k) -> (..., n_q, n_k)
        S *= factor
    try:
        weights = softmax_in_place(S, mask)  # the score table becomes the weights: one n_q × n_k table in all
    except ScoresOverflow:
        raise overflow_error(S.dtype, score_shape, _raw_overflowed(Q, K)) from None
    out = weights @ V  # (..., n_q, n_k) x (..., n_k, d_v) -> (..., n_q, d_v)
    return out, weights


def attend_chunked(Q, K, V, mask=None, scale=None, block_size=128):
    """The same output as `attend(...)[0]`, computed in blocks without ever holding the score table.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v); mask and scale as in `attend`;
    block_size >= 1 (the last block may be shorter) -> out (..., n_q, d_v).
    The queries are taken block_size at a time, and for each block of queries the keys are too, with
    an online softmax (see `_attend_block`): only a block_size × block_size piece of the scores
    exists at any moment, and the weights are never returned. A query with no allowed key gets a
    zero row, as in `attend`.
    """
    Q, K, V, score_shape = _query_key_value(Q, K, V)
    block_size = positive_int("block_size", block_size)
    if mask is not None:
        # A broadcast view of the full mask (no copy), so every block can slice its piece out of it.
        mask = np.broadcast_to(check_mask(mask, score_shape), score_shape)
    factor = resolve_scale(scale, Q.shape[-1], np.result_type(Q, K))
    out = np.empty(score_shape[:-1] + V.shape[-1:], dtype=np.result_type(Q, K, V))  # (..., n_q, d_v)
    for start in range(0, score_shape[-2], block_size):
        rows = slice(start, start + block_size)
        block_mask = None if mask is None else mask[..., rows, :]
        out[..., rows, :] = _attend_block(Q[..., rows, :], K, V, block_mask, factor, block_size, score_shape)
    return out


def _attend_block(Q, K, V, mask, factor, block_size, score_shape):
    """Attention for a few queries, visiting the keys block_size at a time (the "online softmax").

    Q (..., b_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v), mask None or bool (..., b_q, n_k),
    factor the scale, score_shape the whole table's (for error messages) -> (..., b_q, d_v).
    A running maximum, a running denominator and a running weighted sum of values are carried from
    block to block; whenever the maximum grows, what was summed so far is re-measured against it.
    """
    batch, n_q = Q.shape[:-2], Q.shape[-2]
    dtype = np.result_type(Q, K, V)
    running_max = np.full(batch + (n_q, 1), -np.inf, dtype=dtype)  # the largest score seen so far
    denominator = np.zeros(batch + (n_q, 1), dtype=dtype)  # Σ e^(score - running_max)
    acc = np.zeros(batch + (n_q, V.shape[-1]), dtype=dtype)  # Σ e^(score - running_max) · v
    for start in range(0, K.shape[-2], block_size):
        keys = slice(start, start + block_size)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, as an error
            S = Q @ np.swapaxes(K[..., keys, :], -1, -2)  # (..., b_q, d_k) x (..., d_k, b) -> (..., b_q, b)
            S *= factor
        if mask is not None:
            np.copyto(S, -np.inf, where=~mask[..., keys])
        block_max = S.max(axis=-1, keepdims=True)  # (..., b_q, 1)
        try:
            scores_did_not_overflow(block_max, S.dtype, score_shape)
        except ScoresOverflow:
            raise overflow_error(S.dtype, score_shape, _raw_overflowed(Q, K[..., keys, :])) from None
        new_max = np.maximum(running_max, block_max)
        shift = np.where(new_max == -np.inf, 0, new_max)  # rows with no allowed key yet: all -inf, keep them so
        rescale = np.exp(running_max - shift)  # re-measures the earlier blocks' sums against the new maximum
        S -= shift
        p = np.exp(S, out=S)  # (..., b_q, b), each <= 1
        denominator *= rescale
        denominator += p.sum(axis=-1, keepdims=True)
        acc *= rescale
        acc += p @ V[..., keys, :]  # (..., b_q, b) x (..., b, d_v) -> (..., b_q, d_v)
        running_max = new_max
    denominator[denominator == 0] = 1  # a row with no allowed key: acc is exactly 0 and stays 0
    acc /= denominator
    return acc


def _raw_overflowed(Q, K):
    """Whether Q Kᵀ itself leaves the dtype's range: recomputed only to name the culprit of an overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        return overflowed(Q @ np.swapaxes(K, -1, -2))


def _query_key_value(Q, K, V):
    """Q, K, V as float arrays, checked; also the shape of their score table (..., n_q, n_k).

    `...` is the broadcast of the three arrays' batch dimensions.
    """
    Q, K = _query_key(Q, K)
    V = as_float_array("V", V)
    at_least("V", V, 2, "(..., n_k, d_v)")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(f"K and V must have the same number of keys n_k (axis -2): K {K.shape}, V {V.shape}")
    batch = batch_shape(Q=Q, K=K, V=V)
    # Q and K as views with the full batch, so the score table has the batch of out and of any mask.
    Q = np.broadcast_to(Q, batch + Q.shape[-2:])
    K = np.broadcast_to(K, batch + K.shape[-2:])
    return Q, K, V, batch + (Q.shape[-2], K.shape[-2])
