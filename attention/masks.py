"""Masks: boolean tables, True = may attend (the convention of PyTorch's scaled_dot_product_attention)."""
import numpy as np

from ._checks import positive_int


def causal_mask(n_q, n_k=None):
    """Query i may attend to key j iff j <= i (itself and the past).

    -> bool (n_q, n_k), lower-triangular with the diagonal. n_k defaults to n_q; when they differ
    the triangle starts at the top-left corner, as in PyTorch's `is_causal`.
    """
    n_q = positive_int("n_q", n_q, minimum=0)  # n = 0 is an empty table, as `attend` accepts
    n_k = n_q if n_k is None else positive_int("n_k", n_k, minimum=0)
    return np.tril(np.ones((n_q, n_k), dtype=bool))


def sliding_window_mask(n, window):
    """Query i may attend to key j iff i - window < j <= i: the last `window` keys, itself included.

    -> bool (n, n).
    """
    n = positive_int("n", n, minimum=0)
    window = positive_int("window", window)
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return (j <= i) & (j > i - window)


def padding_mask(lengths, n):
    """For a batch of sequences padded to n, key j of sequence b is allowed iff j < lengths[b].

    lengths (batch,) integers in [0, n] -> bool (batch, 1, n), which broadcasts to (batch, n_q, n).
    With a head axis, as in (batch, n_heads, n_q, n), add one: `padding_mask(lengths, n)[:, None]`.
    A sequence of length 0 has no allowed key: its weights and outputs are all zero.
    """
    n = positive_int("n", n, minimum=0)
    lengths = np.asarray(lengths)
    if lengths.size == 0 and lengths.dtype == np.float64:  # [] is an empty batch, not a list of floats
        lengths = lengths.astype(np.intp)
    if not np.issubdtype(lengths.dtype, np.integer):
        raise TypeError(f"lengths must be integers, got dtype {lengths.dtype} (shape {lengths.shape})")
    if lengths.ndim != 1:
        raise ValueError(f"lengths must have shape (batch,), got shape {lengths.shape}")
    bad = (lengths < 0) | (lengths > n)
    if bad.any():
        b = int(np.argmax(bad))
        raise ValueError(f"lengths[{b}] = {lengths[b]} is outside [0, n] with n = {n} (lengths of shape {lengths.shape})")
    return (np.arange(n)[None, :] < lengths[:, None])[:, None, :]


def strided_mask(n, stride):
    """Query i may attend to key j iff j <= i and i - j is a multiple of `stride` (itself included).

    -> bool (n, n). With a sliding window of width `stride` beside it (another head, or `|`), every
    earlier key is at most two steps away: the "strided" pattern of sparse transformers.
    """
    n = positive_int("n", n, minimum=0)
    stride = positive_int("stride", stride)
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return (j <= i) & ((i - j) % stride == 0)


def global_mask(n, positions):
    """The positions in `positions` attend to every key and every query attends to them.

    positions: distinct integers in [0, n) -> bool (n, n), True in those rows and columns. Combined with
    a local pattern (`sliding_window_mask(n, w) | global_mask(n, [0])`) it is the "local + global" pattern
    of long-document models: a few tokens see, and are seen by, the whole sequence.
    """
    n = positive_int("n", n, minimum=0)
    positions = np.asarray(positions)
    if positions.size == 0 and positions.dtype == np.float64:
        positions = positions.astype(np.intp)
    if not np.issubdtype(positions.dtype, np.integer) or positions.ndim != 1:
        raise TypeError(f"positions must be a 1-D array of integers, got dtype {positions.dtype} (shape {positions.shape})")
    bad = (positions < 0) | (positions >= n)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"positions[{k}] = {positions[k]} is outside [0, n) with n = {n}")
    if len(np.unique(positions)) != len(positions):
        raise ValueError(f"positions must be distinct, got {positions.tolist()}")
    chosen = np.zeros(n, dtype=bool)
    chosen[positions] = True
    return chosen[:, None] | chosen[None, :]
