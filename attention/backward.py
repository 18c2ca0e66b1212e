"""The backward pass: how a change in the output's loss flows back to Q, K, V and the projections.

In the article's names, with O = W V the output, W = softmax(S) the weights and S = Q Kᵀ · scale the
scaled scores, and dO = ∂loss/∂O given:

    dV = Wᵀ dO                          each value row gets the output gradients its weights sent it
    dW = dO Vᵀ                          how the loss would change with each weight
    dS = W ⊙ (dW − rowsum(dW ⊙ W))      the softmax's backward: a weight's pull minus the row's average pull
    dQ = dS K · scale
    dK = dSᵀ Q · scale

and, when Q = X W_Q, K = X W_K and V = X W_V come from one input X, on to the projections and to X itself:

    dW_Q = Xᵀ dQ                        (likewise dW_K = Xᵀ dK, dW_V = Xᵀ dV)
    dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ    X feeds the queries, the keys and the values: the three paths add

A masked pair has weight 0, so it gets dS = 0 and sends nothing back; a row with no allowed key
has all-zero weights and gives zero gradients (never NaN). The forward pass is recomputed, so the
checks and errors are exactly `attend`'s; a gradient that overflows its dtype (finite inputs too large for
it) raises ValueError naming the gradient and the arguments to shrink, as `attend` does for the scores.
"""
import numpy as np

from ._checks import as_float_array, at_least, gradient_overflow_error, softmax_rows
from .attend import attend
from .multihead import _linear, merge_heads, multi_head_attention, split_heads
from .scores import resolve_scale


def softmax_backward(weights, d_weights):
    """The gradient with respect to the scores, given the softmax's output and the gradient at it.

    weights (..., n_q, n_k) = softmax(S), d_weights (..., n_q, n_k) = ∂loss/∂W -> dS (..., n_q, n_k),
    dS = W ⊙ (dW − rowsum(dW ⊙ W)). Each row of the softmax depends only on its own row of scores, and
    adding the same number to a whole row of scores changes nothing, so each row of dS sums to 0
    (a row of zero weights, one that attended to nothing, gives a zero row).
    Weights that cannot come from a softmax (a negative weight, a row summing to neither 1 nor 0) raise
    ValueError.
    """
    W = as_float_array("weights", weights)
    dW = as_float_array("d_weights", d_weights)
    at_least("weights", W, 1, "(..., n_k)")
    if W.shape != dW.shape:
        raise ValueError(f"weights and d_weights must have the same shape: weights {W.shape}, d_weights {dW.shape}")
    softmax_rows("weights", W)
    row_pull = (dW * W).sum(axis=-1, keepdims=True)  # (..., n_q, 1): the weighted average of dW over the row
    return W * (dW - row_pull)


def attend_backward(Q, K, V, d_out, mask=None, scale=None):
    """Gradients of `attend(Q, K, V, mask, scale)`'s output: (dQ, dK, dV), the shapes of Q, K and V.

    Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v), d_out (..., n_q, d_v) = ∂loss/∂out, of
    the shape `attend` returns; mask and scale as in `attend`.
    dV = Wᵀ dO; dW = dO Vᵀ; dS = W ⊙ (dW − rowsum(dW ⊙ W)); dQ = dS K · scale; dK = dSᵀ Q · scale.
    When Q, K or V was broadcast along a batch axis, its gradient is summed over that axis.
    """
    Q_in, K_in, V_in = (as_float_array(name, x) for name, x in (("Q", Q), ("K", K), ("V", V)))
    out, W = attend(Q_in, K_in, V_in, mask, scale)
    d_out = as_float_array("d_out", d_out)
    if d_out.shape != out.shape:
        raise ValueError(f"d_out must have the shape of attend's output {out.shape}, got {d_out.shape}")
    factor = resolve_scale(scale, Q_in.shape[-1], np.result_type(Q_in, K_in))
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, as an error
        dV = finite("dV = Wᵀ d_out", np.swapaxes(W, -1, -2) @ d_out, "d_out")  # (..., n_k, n_q) x (..., n_q, d_v) -> (..., n_k, d_v)
        dW = finite("dW = d_out Vᵀ", d_out @ np.swapaxes(V_in, -1, -2), "d_out and V")  # (..., n_q, d_v) x (..., d_v, n_k) -> (..., n_q, n_k)
        dS = finite("dS = W ⊙ (dW − rowsum(dW ⊙ W))", W * (dW - (dW * W).sum(axis=-1, keepdims=True)),
                    "d_out and V")  # (..., n_q, n_k); 0 wherever W is 0
        dQ = finite("dQ = dS K · scale", (dS @ K_in) * factor, "d_out, V and K")  # (..., n_q, n_k) x (..., n_k, d_k) -> (..., n_q, d_k)
        dK = finite("dK = dSᵀ Q · scale", (np.swapaxes(dS, -1, -2) @ Q_in) * factor,
                    "d_out, V and Q")  # (..., n_k, n_q) x (..., n_q, d_k) -> (..., n_k, d_k)
    return _sum_to(dQ, Q_in.shape), _sum_to(dK, K_in.shape), _sum_to(dV, V_in.shape)


def self_attention_backward(X, W_Q, W_K, W_V, d_out, mask=None, scale=None):
    """Gradients of one head of self-attention, `attend(X W_Q, X W_K, X W_V, mask, scale)`, down to X itself.

    X (..., n, d_model), W_Q and W_K (d_model, d_k), W_V (d_model, d_v), d_out (..., n, d_v) = ∂loss/∂out
    -> {"Q": dQ, "K": dK, "V": dV, "W_Q": dW_Q, "W_K": dW_K, "W_V": dW_V, "X": dX}, each of its argument's shape.
    dW_Q = Xᵀ dQ (summed over the batch, as every sequence shares W_Q), and
    dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ: each row of X feeds its query, its key and its value, so a change in it
    reaches the loss along those three paths, and its gradient is their sum. dX is what the layer below receives.
    """
    X = as_float_array("X", X)
    weights = {name: as_float_array(name, w) for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V))}
    at_least("X", X, 2, "(..., n, d_model)")
    for name, W in weights.items():
        if W.ndim != 2 or W.shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must be a (d_model, d) matrix with d_model = {X.shape[-1]} (X's last axis), "
                             f"got shape {W.shape}")
    Q, K, V = (X @ weights[f"W_{part}"] for part in "QKV")  # (..., n, d_model) x (d_model, d) -> (..., n, d)
    grads = dict(zip("QKV", attend_backward(Q, K, V, d_out, mask, scale)))
    X_t = np.swapaxes(X, -1, -2)  # (..., d_model, n)
    for part in "QKV":
        grads[f"W_{part}"] = _batch_sum(X_t @ grads[part])  # (..., d_model, n) x (..., n, d) -> (d_model, d)
    grads["X"] = sum(grads[part] @ weights[f"W_{part}"].T for part in "QKV")  # (..., n, d) x (d, d_model)
    return grads


def multi_head_attention_backward(X, W_Q, W_K, W_V, W_O, n_heads, d_out, mask=None,
                                  b_Q=None, b_K=None, b_V=None, b_O=None):
    """Gradients of `multi_head_attention(...)`'s output with respect to X and every parameter.

    Arguments as in `multi_head_attention`, plus d_out (..., n, d_model) = ∂loss/∂out
    -> {"X": dX, "W_Q": dW_Q, "W_K": ..., "W_V": ..., "W_O": ..., and "b_Q" ... "b_O" for the biases given},
    each of its argument's shape. With C the concatenated heads and P = X·W_Q (+ b_Q) the projected
    queries (likewise for keys and values): dW_O = Cᵀ dO, dC = dO W_Oᵀ, each head's slice of dC goes
    back through `attend_backward`, then dW_Q = Xᵀ dP_Q, db_Q = the column sums of dP_Q and
    dX = dP_Q W_Qᵀ + dP_K W_Kᵀ + dP_V W_Vᵀ, summed over the batch.
    """
    # The forward pass checks every argument and raises the same errors as multi_head_attention.
    out, _ = multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, mask, b_Q, b_K, b_V, b_O)
    d_out = as_float_array("d_out", d_out)
    if d_out.shape != out.shape:
        raise ValueError(f"d_out must have the shape of multi_head_attention's output {out.shape}, got {d_out.shape}")
    X = as_float_array("X", X)
    n = X.shape[-2]
    if mask is not None:
        mask = np.broadcast_to(np.asarray(mask), X.shape[:-2] + (n, n))[..., None, :, :]  # (..., 1, n, n)
    weights = {name: as_float_array(name, w) for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O))}
    biases = {"b_Q": b_Q, "b_K": b_K, "b_V": b_V, "b_O": b_O}
    P = {part: _linear(X, f"W_{part}", weights[f"W_{part}"], f"b_{part}", biases[f"b_{part}"]) for part in "QKV"}
    Q, K, V = (split_heads(P[part], n_heads) for part in "QKV")  # (..., n_heads, n, d_k)
    heads, _ = attend(Q, K, V, mask)
    C = merge_heads(heads)  # (..., n, d_model)
    grads = {"W_O": _batch_sum(np.swapaxes(C, -1, -2) @ d_out)}  # (..., d_model, n) x (..., n, d_model)
    if b_O is not None:
        grads["b_O"] = _rows_sum(d_out)
    d_heads = split_heads(d_out @ weights["W_O"].T, n_heads)  # dC = dO W_Oᵀ, cut into heads
    dQ, dK, dV = attend_backward(Q, K, V, d_heads, mask)  # (..., n_heads, n, d_k) each
    dX = np.zeros_like(X, dtype=np.result_type(X, d_out))
    for part, d_head in zip("QKV", (dQ, dK, dV)):
        dP = merge_heads(d_head)  # (..., n, d_model)
        grads[f"W_{part}"] = _batch_sum(np.swapaxes(X, -1, -2) @ dP)  # (..., d_model, n) x (..., n, d_model)
        if biases[f"b_{part}"] is not None:
            grads[f"b_{part}"] = _rows_sum(dP)
        dX += dP @ weights[f"W_{part}"].T
    return {"X": dX, **{name: grads[name] for name in ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O")
                        if name in grads}}


def finite(gradient, values, culprits):
    """`values` unchanged, or the error naming `gradient` if it holds +inf, -inf or NaN (finite inputs overflowed)."""
    if not np.isfinite(values).all():
        raise gradient_overflow_error(gradient, values.dtype, values.shape, culprits)
    return values


def _sum_to(grad, shape):
    """Sum `grad` over the axes that broadcasting added or stretched, so it has `shape` again."""
    extra = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(extra))) if extra else grad
    stretched = tuple(axis for axis, size in enumerate(shape) if size == 1 and grad.shape[axis] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def _batch_sum(per_item):
    """(..., a, b) -> (a, b): a parameter shared by every sequence collects every sequence's gradient."""
    return per_item.reshape(-1, *per_item.shape[-2:]).sum(axis=0)


def _rows_sum(per_row):
    """(..., n, d) -> (d,): a bias added to every row collects every row's gradient."""
    return per_row.reshape(-1, per_row.shape[-1]).sum(axis=0)
