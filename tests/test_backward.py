"""The backward pass against two outside references: PyTorch's autograd and central finite differences.

torch is a test-only dependency. The finite differences run in float64 on the library's own forward pass,
so they check the formulas without trusting anything but `attend`.
"""
import re

import numpy as np
import pytest

import attention as A

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

TOL = dict(rtol=1e-10, atol=1e-10)


def to_torch(x, grad=False):
    return torch.tensor(np.ascontiguousarray(x), requires_grad=grad)


def backward_case(seed):
    """Random shapes with batch and head axes, some of them broadcast, a boolean mask, maybe a scale, and dO."""
    rng = np.random.default_rng(20_000 + seed)
    batch, heads = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    n_q, n_k, d_k, d_v = (int(x) for x in rng.integers(1, 7, size=4))
    # K and V sometimes shared by every head or sequence, so their gradients must be summed back.
    kv_batch = [(batch, heads), (batch, 1), (heads,), ()][seed % 4]
    Q = rng.normal(scale=1.5, size=(batch, heads, n_q, d_k))
    K = rng.normal(scale=1.5, size=kv_batch + (n_k, d_k))
    V = rng.normal(size=kv_batch + (n_k, d_v))
    mask_shape = [(n_q, n_k), (batch, 1, n_q, n_k), (batch, heads, n_q, n_k), (batch, 1, 1, n_k), None][seed % 5]
    mask = None if mask_shape is None else rng.random(mask_shape) < rng.uniform(0.3, 1.0)
    scale = None if seed % 3 else float(rng.uniform(0.05, 2.0))
    d_out = rng.normal(size=(batch, heads, n_q, d_v))
    return Q, K, V, d_out, mask, scale


def torch_attention(Q, K, V, mask, scale):
    """softmax(Q Kᵀ · scale) V in torch, with a row that has no allowed key giving zero weights (torch: NaN)."""
    factor = 1 / np.sqrt(Q.shape[-1]) if scale is None else scale
    S = Q @ K.transpose(-1, -2) * factor
    if mask is None:
        return torch.softmax(S, dim=-1) @ V
    allowed = torch.broadcast_to(torch.from_numpy(mask), S.shape)
    has_key = allowed.any(dim=-1, keepdim=True)
    S = S.masked_fill(~allowed, -torch.inf).masked_fill(~has_key, 0.0)  # such a row: a harmless softmax, then 0
    return (torch.softmax(S, dim=-1) * has_key) @ V


@pytest.mark.parametrize("seed", range(240))
def test_attend_backward_against_torch_autograd(seed):
    Q, K, V, d_out, mask, scale = backward_case(seed)
    tQ, tK, tV = to_torch(Q, True), to_torch(K, True), to_torch(V, True)
    (torch_attention(tQ, tK, tV, mask, scale) * to_torch(d_out)).sum().backward()
    dQ, dK, dV = A.attend_backward(Q, K, V, d_out, mask, scale)
    assert dQ.shape == Q.shape and dK.shape == K.shape and dV.shape == V.shape
    for ours, theirs in ((dQ, tQ), (dK, tK), (dV, tV)):
        assert not np.isnan(ours).any()
        np.testing.assert_allclose(ours, theirs.grad.numpy(), **TOL)


def numerical_gradient(f, x, h=1e-6):
    """Central differences of the scalar f at x, entry by entry, in float64."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        grad[index] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


@pytest.mark.parametrize("seed", range(30))
def test_attend_backward_against_finite_differences(seed):
    Q, K, V, d_out, mask, scale = backward_case(seed)
    dQ, dK, dV = A.attend_backward(Q, K, V, d_out, mask, scale)

    def loss(q, k, v):
        return float((A.attend(q, k, v, mask, scale)[0] * d_out).sum())

    np.testing.assert_allclose(dQ, numerical_gradient(lambda q: loss(q, K, V), Q), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dK, numerical_gradient(lambda k: loss(Q, k, V), K), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dV, numerical_gradient(lambda v: loss(Q, K, v), V), rtol=1e-6, atol=1e-7)


def test_masked_pairs_and_fully_masked_rows_send_no_gradient():
    rng = np.random.default_rng(3)
    Q, K, V, d_out = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2)), rng.normal(size=(4, 2))
    mask = A.causal_mask(4, 5)
    mask[2] = False  # query 2 may attend to nothing
    mask[:, 4] = False  # nobody may attend to key 4
    dQ, dK, dV = A.attend_backward(Q, K, V, d_out, mask)
    assert not np.isnan(dQ).any()
    assert (dQ[2] == 0).all()
    assert (dK[4] == 0).all() and (dV[4] == 0).all()
    _, weights = A.attend(Q, K, V, mask)
    dS = A.softmax_backward(weights, d_out @ V.T)
    assert (dS[~mask] == 0).all()
    np.testing.assert_allclose(dS.sum(axis=-1), 0, atol=1e-15)  # adding a constant to a row changes nothing


@pytest.mark.parametrize("seed", range(20))
def test_softmax_backward_against_torch(seed):
    rng = np.random.default_rng(seed)
    S = to_torch(rng.normal(scale=3, size=(2, 4, 6)), True)
    d_weights = rng.normal(size=(2, 4, 6))
    weights = torch.softmax(S, dim=-1)
    (weights * to_torch(d_weights)).sum().backward()
    np.testing.assert_allclose(A.softmax_backward(weights.detach().numpy(), d_weights), S.grad.numpy(), **TOL)


def test_float32_in_gives_float32_gradients():
    Q, K, V, d_out, mask, scale = backward_case(7)
    grads32 = A.attend_backward(*(x.astype(np.float32) for x in (Q, K, V, d_out)), mask, scale)
    for g32, g64 in zip(grads32, A.attend_backward(Q, K, V, d_out, mask, scale)):
        assert g32.dtype == np.float32
        np.testing.assert_allclose(g32, g64, rtol=1e-4, atol=1e-4)


# --- multi-head ------------------------------------------------------------------------------------

def torch_mha(d_model, n_heads, Ws, biases):
    """An nn.MultiheadAttention in float64 carrying our weights; torch computes x @ W.T, we x @ W."""
    mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=biases is not None, batch_first=True, dtype=torch.float64)
    W_Q, W_K, W_V, W_O = Ws
    with torch.no_grad():
        mha.in_proj_weight.copy_(to_torch(np.concatenate([W_Q.T, W_K.T, W_V.T])))  # (3·d_model, d_model)
        mha.out_proj.weight.copy_(to_torch(W_O.T))
        if biases is not None:
            mha.in_proj_bias.copy_(to_torch(np.concatenate(biases[:3])))
            mha.out_proj.bias.copy_(to_torch(biases[3]))
    return mha


@pytest.mark.parametrize("seed", range(80))
def test_multi_head_backward_against_torch_autograd(seed):
    rng = np.random.default_rng(30_000 + seed)
    n_heads = int(rng.integers(1, 4))
    d_model = n_heads * int(rng.integers(1, 4))
    batch, n = int(rng.integers(1, 4)), int(rng.integers(1, 7))
    X = rng.normal(size=(batch, n, d_model))
    Ws = [rng.normal(scale=d_model**-0.5, size=(d_model, d_model)) for _ in range(4)]
    biases = [rng.normal(size=d_model) for _ in range(4)] if seed % 2 else None
    d_out = rng.normal(size=(batch, n, d_model))
    lengths = rng.integers(1, n + 1, size=batch)  # at least one key, so torch has no all-masked row
    causal, padding = A.causal_mask(n), A.padding_mask(lengths, n)

    mha = torch_mha(d_model, n_heads, Ws, biases)
    tX = to_torch(X, True)
    out, _ = mha(tX, tX, tX, attn_mask=to_torch(~causal), key_padding_mask=to_torch(~padding[:, 0, :]), need_weights=False)
    (out * to_torch(d_out)).sum().backward()

    grads = A.multi_head_attention_backward(X, *Ws, n_heads, d_out, causal & padding, *(biases or [None] * 4))
    dW_in = mha.in_proj_weight.grad.numpy()  # (3·d_model, d_model), rows W_Qᵀ, W_Kᵀ, W_Vᵀ
    np.testing.assert_allclose(grads["X"], tX.grad.numpy(), **TOL)
    for i, name in enumerate(("W_Q", "W_K", "W_V")):
        np.testing.assert_allclose(grads[name], dW_in[i * d_model:(i + 1) * d_model].T, **TOL)
    np.testing.assert_allclose(grads["W_O"], mha.out_proj.weight.grad.numpy().T, **TOL)
    if biases is None:
        assert set(grads) == {"X", "W_Q", "W_K", "W_V", "W_O"}
    else:
        db_in = mha.in_proj_bias.grad.numpy()
        for i, name in enumerate(("b_Q", "b_K", "b_V")):
            np.testing.assert_allclose(grads[name], db_in[i * d_model:(i + 1) * d_model], **TOL)
        np.testing.assert_allclose(grads["b_O"], mha.out_proj.bias.grad.numpy(), **TOL)


@pytest.mark.parametrize("seed", range(6))
def test_multi_head_backward_against_finite_differences(seed):
    rng = np.random.default_rng(40_000 + seed)
    n_heads, d_model, n = 2, 4, 3
    X = rng.normal(size=(2, n, d_model))
    params = {name: rng.normal(scale=0.5, size=(d_model, d_model)) for name in ("W_Q", "W_K", "W_V", "W_O")}
    params |= {name: rng.normal(size=d_model) for name in ("b_Q", "b_K", "b_V", "b_O")}
    mask = A.causal_mask(n)
    mask[0, 0] = False  # the first query attends to nothing
    d_out = rng.normal(size=(2, n, d_model))

    def loss(**changed):
        args = params | changed
        out, _ = A.multi_head_attention(changed.get("X", X), args["W_Q"], args["W_K"], args["W_V"], args["W_O"],
                                        n_heads, mask, args["b_Q"], args["b_K"], args["b_V"], args["b_O"])
        return float((out * d_out).sum())

    grads = A.multi_head_attention_backward(X, *(params[k] for k in ("W_Q", "W_K", "W_V", "W_O")), n_heads, d_out,
                                            mask, *(params[k] for k in ("b_Q", "b_K", "b_V", "b_O")))
    for name, value in (params | {"X": X}).items():
        numerical = numerical_gradient(lambda x, name=name: loss(**{name: x}), value)
        np.testing.assert_allclose(grads[name], numerical, rtol=1e-6, atol=1e-7, err_msg=name)


# --- bad input: exactly attend's errors ------------------------------------------------------------

rng = np.random.default_rng(0)
Q0, K0, V0 = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
D0 = rng.normal(size=(3, 2))


def with_nan(x):
    x = x.copy()
    x[1, 1] = np.nan
    return x


BAD_INPUTS = {
    "mismatched d_k": dict(K=K0[:, :3]),
    "mismatched n_k": dict(V=np.zeros((6, 2))),
    "Q too few axes": dict(Q=Q0[0]),
    "V too few axes": dict(V=V0[0]),
    "batch does not broadcast": dict(Q=np.zeros((2, 3, 4)), K=np.zeros((3, 5, 4))),
    "NaN in K": dict(K=with_nan(K0)),
    "inf in V": dict(V=np.where(V0 > 0, np.inf, V0)),
    "Q a string": dict(Q="abc"),
    "Q complex": dict(Q=np.ones((3, 4), dtype=complex)),
    "mask not boolean": dict(mask=np.ones((3, 5))),
    "mask does not broadcast": dict(mask=np.ones((3, 4), dtype=bool)),
    "scale NaN": dict(scale=np.nan),
    "scale a string": dict(scale="0.5"),
    "float32 overflow": dict(Q=np.full((3, 4), 1e20, np.float32), K=np.full((5, 4), 1e20, np.float32)),
}


@pytest.mark.parametrize("bad", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_raises_what_attend_raises(bad):
    args = dict(Q=Q0, K=K0, V=V0, mask=None, scale=None) | bad
    with pytest.raises(Exception) as from_attend:
        A.attend(**args)
    with pytest.raises(type(from_attend.value)) as from_backward:
        A.attend_backward(d_out=D0, **args)
    assert str(from_backward.value) == str(from_attend.value)


@pytest.mark.parametrize("d_out, error, message", [
    (np.zeros((3, 3)), ValueError, "d_out must have the shape of attend's output (3, 2), got (3, 3)"),
    (with_nan(D0), ValueError, "d_out of shape (3, 2) contains nan at index (1, 1); it must hold finite numbers"),
    ("abc", TypeError, "d_out must be an array of numbers, got str"),
])
def test_bad_d_out(d_out, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        A.attend_backward(Q0, K0, V0, d_out)


def test_softmax_backward_shapes_must_match():
    with pytest.raises(ValueError, match=r"weights and d_weights must have the same shape: weights \(3, 5\), d_weights \(3, 4\)"):
        A.softmax_backward(np.full((3, 5), 0.2), np.zeros((3, 4)))


def test_multi_head_backward_checks_like_the_forward_pass():
    X = rng.normal(size=(2, 5, 6))
    W = rng.normal(size=(6, 6))
    with pytest.raises(ValueError) as from_forward:
        A.multi_head_attention(X, W, W, W[:5], W, 2)
    with pytest.raises(ValueError) as from_backward:
        A.multi_head_attention_backward(X, W, W, W[:5], W, 2, np.zeros((2, 5, 6)))
    assert str(from_backward.value) == str(from_forward.value)
    with pytest.raises(ValueError, match=r"d_out must have the shape of multi_head_attention's output \(2, 5, 6\), got \(5, 6\)"):
        A.multi_head_attention_backward(X, W, W, W, W, 2, np.zeros((5, 6)))


# --- overflow and impossible weights: a clear error, never NaN gradients ------------------------------------

@pytest.mark.parametrize("dtype, factors", [(np.float32, dict(V=1e20, d_out=1e20)), (np.float64, dict(V=1e300, d_out=1e10))])
def test_gradients_that_overflow_are_an_error_not_nan(dtype, factors):
    args = {name: x.astype(dtype) for name, x in dict(Q=Q0, K=K0, V=V0, d_out=D0).items()}
    for name, factor in factors.items():
        args[name] = args[name] * dtype(factor)
    A.attend(args["Q"], args["K"], args["V"])  # the forward pass itself is fine
    dtype = np.dtype(dtype).name
    wider = ", or float64" if dtype == "float32" else ""
    message = f"the {dtype} gradient dW = d_out Vᵀ of shape (3, 5) contains +inf or NaN: it overflowed {dtype}; use smaller d_out and V{wider}"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        A.attend_backward(**args)


@pytest.mark.parametrize("weights, message", [
    ([[0.5, 0.5, 0.5, 0.5], [0.25] * 4], "weights of shape (2, 4) has a row summing to 2 at index (0,)"),
    ([[1.0, 0, 0, 0], [0.5, 0.75, 0, -0.25]], "weights of shape (2, 4) has the negative weight -0.25 at index (1, 3)"),
    ([[0.25] * 4, [0.2] * 4], "weights of shape (2, 4) has a row summing to 0.8 at index (1,)"),
])
def test_softmax_backward_refuses_rows_no_softmax_gives(weights, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        A.softmax_backward(np.array(weights), np.ones((2, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_backward_takes_real_softmax_rows_and_empty_ones(dtype):
    weights = A.softmax(rng.normal(size=(3, 7, 64)).astype(dtype), mask=np.arange(64) < np.arange(7)[:, None])  # row 0: nothing
    assert (weights[:, 0] == 0).all()
    dS = A.softmax_backward(weights, rng.normal(size=weights.shape).astype(dtype))
    np.testing.assert_allclose(dS.sum(axis=-1), 0, atol=1e-5)


# --- one head of self-attention, down to X: dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ (issue 54) -------------------

def self_attention_case(seed):
    """X with a batch axis or none, projections to d_k and d_v, maybe a causal or random mask and a scale, dO."""
    rng = np.random.default_rng(50_000 + seed)
    batch = [(), (int(rng.integers(1, 4)),)][seed % 2]
    n, d_model, d_k, d_v = (int(x) for x in rng.integers(1, 6, size=4))
    X = rng.normal(size=batch + (n, d_model))
    W_Q, W_K = (rng.normal(size=(d_model, d_k)) for _ in range(2))
    W_V = rng.normal(size=(d_model, d_v))
    mask = [None, A.causal_mask(n), rng.random((n, n)) < 0.7][seed % 3]
    if mask is not None:
        mask[:, 0] = True  # every row keeps a key, so torch's softmax has no all-masked row
    scale = None if seed % 4 else float(rng.uniform(0.1, 2.0))
    return X, W_Q, W_K, W_V, rng.normal(size=batch + (n, d_v)), mask, scale


@pytest.mark.parametrize("seed", range(40))
def test_self_attention_backward_reaches_x_as_torch_autograd_does(seed):
    X, W_Q, W_K, W_V, d_out, mask, scale = self_attention_case(seed)
    tX, tW_Q, tW_K, tW_V = (to_torch(x, True) for x in (X, W_Q, W_K, W_V))
    (torch_attention(tX @ tW_Q, tX @ tW_K, tX @ tW_V, mask, scale) * to_torch(d_out)).sum().backward()
    grads = A.self_attention_backward(X, W_Q, W_K, W_V, d_out, mask, scale)
    for name, theirs in (("X", tX), ("W_Q", tW_Q), ("W_K", tW_K), ("W_V", tW_V)):
        assert grads[name].shape == theirs.shape, f"d{name} has {name}'s shape"
        np.testing.assert_allclose(grads[name], theirs.grad.numpy(), **TOL,
                                   err_msg=f"d{name} is the gradient torch's autograd finds at {name}")


def loop_self_attention_backward(X, W_Q, W_K, W_V, d_out, scale):
    """One sequence, no mask, as a sum per entry the way it is written on paper: -> dX as lists."""
    from loop_reference import attend, matmul  # noqa: PLC0415  the tests' plain-loop reference

    Q, K, V = matmul(X, W_Q), matmul(X, W_K), matmul(X, W_V)
    _, W = attend(Q, K, V, scale=scale)
    n, d_model = len(X), len(X[0])
    dW = [[sum(d_out[i][c] * V[j][c] for c in range(len(V[0]))) for j in range(n)] for i in range(n)]
    dS = [[W[i][j] * (dW[i][j] - sum(dW[i][k] * W[i][k] for k in range(n))) for j in range(n)] for i in range(n)]
    dQ = [[scale * sum(dS[i][j] * K[j][c] for j in range(n)) for c in range(len(K[0]))] for i in range(n)]
    dK = [[scale * sum(dS[i][j] * Q[i][c] for i in range(n)) for c in range(len(Q[0]))] for j in range(n)]
    dV = [[sum(W[i][j] * d_out[i][c] for i in range(n)) for c in range(len(V[0]))] for j in range(n)]
    return [[sum(dP[i][k] * M[a][k] for dP, M in ((dQ, W_Q), (dK, W_K), (dV, W_V)) for k in range(len(M[0])))
             for a in range(d_model)] for i in range(n)]


@pytest.mark.parametrize("seed", range(0, 40, 2))
def test_self_attention_backward_dx_matches_plain_loops(seed):
    X, W_Q, W_K, W_V, d_out, _, scale = self_attention_case(seed)
    factor = 1 / np.sqrt(W_Q.shape[1]) if scale is None else scale
    expected = loop_self_attention_backward(*(M.tolist() for M in (X, W_Q, W_K, W_V, d_out)), factor)
    np.testing.assert_allclose(A.self_attention_backward(X, W_Q, W_K, W_V, d_out, scale=scale)["X"], expected, **TOL,
                               err_msg="dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ, summed entry by entry")


def test_self_attention_backward_names_a_projection_that_does_not_fit_x():
    X = rng.normal(size=(3, 4))
    with pytest.raises(ValueError, match=r"^W_K must be a \(d_model, d\) matrix with d_model = 4 \(X's last axis\), got shape \(5, 2\)$"):
        A.self_attention_backward(X, np.ones((4, 2)), np.ones((5, 2)), np.ones((4, 2)), np.zeros((3, 2)))
