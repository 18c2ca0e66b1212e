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
