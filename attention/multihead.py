"""Multi-head attention: several heads side by side, each in its own slice of d_model."""
import numpy as np

from ._checks import as_float_array, at_least, check_mask, positive_int
from .attend import attend


# --8<-- [start:split_and_merge]
def split_heads(X, n_heads):
    """Cut the last axis into heads: (..., n, d_model) -> (..., n_heads, n, d_k), d_k = d_model / n_heads.

    Head g (counted from 0 in code) gets columns g·d_k … (g+1)·d_k − 1.
    """
    X = as_float_array("X", X)
    at_least("X", X, 2, "(..., n, d_model)")
    n_heads = positive_int("n_heads", n_heads)
    *batch, n, d_model = X.shape
    if d_model % n_heads:
        raise ValueError(f"d_model = {d_model} (X {X.shape}) is not divisible by n_heads = {n_heads}")
    X = X.reshape(*batch, n, n_heads, d_model // n_heads)  # (..., n, d_model) -> (..., n, n_heads, d_k)
    return np.swapaxes(X, -2, -3)  # -> (..., n_heads, n, d_k)


def merge_heads(X):
    """Concatenate the heads again, the inverse of `split_heads`: (..., n_heads, n, d_k) -> (..., n, n_heads · d_k)."""
    X = as_float_array("X", X)
    at_least("X", X, 3, "(..., n_heads, n, d_k)")
    *batch, n_heads, n, d_k = X.shape
    X = np.swapaxes(X, -2, -3)  # (..., n_heads, n, d_k) -> (..., n, n_heads, d_k)
    return X.reshape(*batch, n, n_heads * d_k)  # -> (..., n, d_model)
# --8<-- [end:split_and_merge]


# --8<-- [start:share_kv_heads]
def share_kv_heads(X, n_heads):
    """Grouped-query attention's sharing: repeat each key/value head for the query heads of its group.

    X (..., n_kv_heads, n, d_k), the keys or values of n_kv_heads heads -> (..., n_heads, n, d_k), where
    query head g (counted from 0) reads key/value head g // (n_heads / n_kv_heads): with 4 query heads and
    2 key/value heads, query heads 0 and 1 share head 0, 2 and 3 share head 1. n_kv_heads = n_heads is
    ordinary multi-head attention (X comes back as it is), n_kv_heads = 1 is multi-query attention.
    """
    X = as_float_array("X", X)
    at_least("X", X, 3, "(..., n_kv_heads, n, d_k)")
    n_heads = positive_int("n_heads", n_heads)
    n_kv_heads = X.shape[-3]
    if n_kv_heads == 0 or n_heads % n_kv_heads:
        raise ValueError(f"n_heads = {n_heads} query heads cannot share n_kv_heads = {n_kv_heads} key/value heads "
                         f"(X {X.shape}) evenly: n_heads must be a multiple of n_kv_heads")
    return np.repeat(X, n_heads // n_kv_heads, axis=-3)
# --8<-- [end:share_kv_heads]


def kv_head_of(head, n_heads, n_kv_heads):
    """The key/value head (counted from 0) that query head `head` reads under `share_kv_heads`."""
    n_heads = positive_int("n_heads", n_heads)
    n_kv_heads = positive_int("n_kv_heads", n_kv_heads)
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads = {n_heads} is not a multiple of n_kv_heads = {n_kv_heads}")
    head = positive_int("head", head, minimum=0)
    if head >= n_heads:
        raise ValueError(f"head = {head} is not one of the {n_heads} query heads 0 … {n_heads - 1}")
    return head // (n_heads // n_kv_heads)


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, mask=None, b_Q=None, b_K=None, b_V=None, b_O=None):
    """Multi-head self-attention.

    X (..., n, d_model); W_Q, W_K, W_V, W_O (d_model, d_model); optional biases b_* (d_model,);
    mask bool broadcastable to (..., n, n), True = may attend, shared by every head (combine masks
    with `&`) -> (out (..., n, d_model), weights (..., n_heads, n, n)).
    Each head attends with its own d_k = d_model / n_heads columns of X·W_Q, X·W_K and X·W_V (plus
    the same columns of b_Q, b_K, b_V when given), scaled by 1/√d_k; the heads' outputs are
    concatenated and multiplied by W_O (plus b_O). The article's layer has no biases; BERT-style
    layers do. A query with no allowed key gets zero weights in every head.
    """
    X = as_float_array("X", X)
    at_least("X", X, 2, "(..., n, d_model)")
    n, d_model = X.shape[-2:]
    n_heads = positive_int("n_heads", n_heads)
    if d_model % n_heads:
        raise ValueError(f"d_model = {d_model} (X {X.shape}) is not divisible by n_heads = {n_heads}")
    if mask is not None:
        mask = check_mask(mask, X.shape[:-2] + (n, n))
        mask = np.broadcast_to(mask, X.shape[:-2] + (n, n))[..., None, :, :]  # (..., 1, n, n): every head
    Q = split_heads(_linear(X, "W_Q", W_Q, "b_Q", b_Q), n_heads)  # (..., n_heads, n, d_k)
    K = split_heads(_linear(X, "W_K", W_K, "b_K", b_K), n_heads)
    V = split_heads(_linear(X, "W_V", W_V, "b_V", b_V), n_heads)
    heads, weights = attend(Q, K, V, mask)  # (..., n_heads, n, d_k), (..., n_heads, n, n)
    out = _linear(merge_heads(heads), "W_O", W_O, "b_O", b_O)  # (..., n, d_model)
    return out, weights


def _linear(X, name, W, b_name, b):
    """X·W (+ b) with W (d_model, d_model) and b (d_model,): (..., n, d_model) -> (..., n, d_model)."""
    d_model = X.shape[-1]
    W = as_float_array(name, W)
    if W.shape != (d_model, d_model):
        raise ValueError(f"{name} must have shape (d_model, d_model) = {(d_model, d_model)}, got {W.shape}")
    Y = X @ W
    if b is not None:
        b = as_float_array(b_name, b)
        if b.shape != (d_model,):
            raise ValueError(f"{b_name} must have shape (d_model,) = {(d_model,)}, got {b.shape}")
        Y = Y + b
    return Y
