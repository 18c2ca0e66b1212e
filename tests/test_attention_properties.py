"""Properties that hold for every input (hypothesis, derandomized so CI sees the same examples every run)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attention as A

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

# A fixed profile applied per test, so these settings reach no other test module.
PROFILE = settings(derandomize=True, max_examples=80, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow])


def finite(low, high, dtype=np.float64):
    return arrays(dtype, st.just(()), elements=st.floats(low, high, width=np.dtype(dtype).itemsize * 8)).map(float)


@st.composite
def attention_inputs(draw, dtype=np.float64, with_mask=True):
    """Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v) with 0-2 batch axes, and a mask of some broadcast shape."""
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    n_q, n_k, d_k, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 9)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    width = np.dtype(dtype).itemsize * 8
    values = st.floats(-6, 6, width=width)
    Q = draw(arrays(dtype, batch + (n_q, d_k), elements=values))
    K = draw(arrays(dtype, batch + (n_k, d_k), elements=values))
    V = draw(arrays(dtype, batch + (n_k, d_v), elements=values))
    mask = None
    if with_mask:
        shape = draw(st.sampled_from([batch + (n_q, n_k), (n_q, n_k), (n_q, 1), (1, n_k), (n_k,)]))
        mask = draw(st.none() | arrays(bool, shape))
    return Q, K, V, mask


def full_mask(mask, shape):
    return np.ones(shape, dtype=bool) if mask is None else np.broadcast_to(mask, shape)


@PROFILE
@given(attention_inputs())
def test_rows_sum_to_one_over_allowed_keys_and_masked_weights_are_exactly_zero(inputs):
    Q, K, V, mask = inputs
    out, weights = A.attend(Q, K, V, mask)
    allowed = full_mask(mask, weights.shape)
    assert (weights >= 0).all()
    assert (weights[~allowed] == 0).all()  # exactly 0, not merely small
    has_key = allowed.any(axis=-1)
    np.testing.assert_allclose(weights.sum(axis=-1)[has_key], 1.0, rtol=1e-13)
    assert (weights.sum(axis=-1)[~has_key] == 0).all()
    assert (out[~has_key] == 0).all()  # a query with no allowed key: a zero output row, never NaN


@PROFILE
@given(st.data())
def test_softmax_is_unchanged_by_adding_a_constant_to_a_row(data):
    S = data.draw(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 8)), elements=st.floats(-30, 30)))
    shift = data.draw(arrays(np.float64, (S.shape[0], 1), elements=st.floats(-1e3, 1e3)))
    mask = data.draw(st.none() | arrays(bool, S.shape))
    np.testing.assert_allclose(A.softmax(S + shift, mask), A.softmax(S, mask), rtol=1e-9, atol=1e-12)


@PROFILE
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 8)), elements=st.floats(-1e4, 1e4)))
def test_softmax_is_stable_for_large_scores(S):
    W = A.softmax(S)
    assert np.isfinite(W).all()
    np.testing.assert_allclose(W.sum(axis=-1), 1.0, rtol=1e-13)
    # The largest score of a row always keeps a weight of at least 1/n_k.
    assert (W[np.arange(len(S)), S.argmax(axis=-1)] >= 1 / S.shape[-1] - 1e-15).all()


@PROFILE
@given(st.data())
def test_permuting_keys_and_values_together_leaves_the_output_unchanged(data):
    Q, K, V, mask = data.draw(attention_inputs())
    n_k = K.shape[-2]
    perm = np.array(data.draw(st.permutations(range(n_k))))
    out, weights = A.attend(Q, K, V, mask)
    permuted_mask = None if mask is None else full_mask(mask, weights.shape)[..., perm]
    out_p, weights_p = A.attend(Q, K[..., perm, :], V[..., perm, :], permuted_mask)
    np.testing.assert_allclose(out_p, out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weights_p, weights[..., perm], rtol=1e-13, atol=1e-15)  # the row sums change order


@PROFILE
@given(st.data())
def test_permuting_queries_permutes_the_output_rows(data):
    Q, K, V, mask = data.draw(attention_inputs())
    n_q = Q.shape[-2]
    perm = np.array(data.draw(st.permutations(range(n_q))))
    out, weights = A.attend(Q, K, V, mask)
    permuted_mask = None if mask is None else full_mask(mask, weights.shape)[..., perm, :]
    out_p, weights_p = A.attend(Q[..., perm, :], K, V, permuted_mask)
    # Each row is computed on its own, though BLAS may tile the rows differently: allow the last bit.
    np.testing.assert_allclose(out_p, out[..., perm, :], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(weights_p, weights[..., perm, :], rtol=1e-14, atol=1e-15)


@PROFILE
@given(st.data())
def test_self_attention_is_permutation_equivariant(data):
    """Reorder the tokens of X and the output rows come out in the same new order, nothing else changes:
    without position information in X, attention cannot tell word order (one head and several)."""
    n, d_model = data.draw(st.integers(1, 7)), data.draw(st.sampled_from([2, 4, 6]))
    values = st.floats(-3, 3)
    X = data.draw(arrays(np.float64, (n, d_model), elements=values))
    W_Q, W_K, W_V, W_O = (data.draw(arrays(np.float64, (d_model, d_model), elements=values)) for _ in range(4))
    perm = np.array(data.draw(st.permutations(range(n))))
    out, weights = A.attend(X @ W_Q, X @ W_K, X @ W_V)
    out_p, weights_p = A.attend(X[perm] @ W_Q, X[perm] @ W_K, X[perm] @ W_V)
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weights_p, weights[perm][:, perm], rtol=1e-12, atol=1e-14)
    multi, _ = A.multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads=2)
    multi_p, _ = A.multi_head_attention(X[perm], W_Q, W_K, W_V, W_O, n_heads=2)
    np.testing.assert_allclose(multi_p, multi[perm], rtol=1e-12, atol=1e-12)


@PROFILE
@given(st.data())
def test_attend_chunked_equals_attend(data):
    Q, K, V, mask = data.draw(attention_inputs())
    n_k = K.shape[-2]
    scale = data.draw(st.none() | st.floats(-3, 3))
    expected = A.attend(Q, K, V, mask, scale)[0]
    # 1, n_k, a size that does not divide n_k (when there is one), larger than n_k, and any size.
    sizes = {1, n_k, n_k + 3, data.draw(st.integers(1, 12))}
    sizes |= {b for b in range(2, n_k) if n_k % b}
    for block_size in sorted(sizes):
        np.testing.assert_allclose(A.attend_chunked(Q, K, V, mask, scale, block_size), expected, rtol=1e-12, atol=1e-12)


def test_attend_chunked_on_a_long_causal_sequence():
    rng = np.random.default_rng(0)
    Q, K, V = (rng.normal(size=(2, 300, 16)) for _ in range(3))
    mask = A.causal_mask(300) & A.padding_mask([300, 123], 300)
    expected = A.attend(Q, K, V, mask)[0]
    for block_size in (7, 128, 300):  # block_size 1 is covered above, on short sequences
        np.testing.assert_allclose(A.attend_chunked(Q, K, V, mask, block_size=block_size), expected, rtol=1e-11, atol=1e-12)


@PROFILE
@given(attention_inputs(dtype=np.float32))
def test_float32_in_gives_float32_out(inputs):
    Q, K, V, mask = inputs
    out, weights = A.attend(Q, K, V, mask)
    assert out.dtype == weights.dtype == np.float32
    assert A.attend_chunked(Q, K, V, mask, block_size=2).dtype == np.float32
    assert A.scores(Q, K).dtype == A.scaled_scores(Q, K).dtype == np.float32
    assert A.softmax(A.scores(Q, K), mask).dtype == np.float32
    assert A.row_entropy(weights).dtype == A.row_entropy(weights, base=2).dtype == np.float32
    reference = A.attend(*(x.astype(np.float64) for x in (Q, K, V)), mask)[0]
    np.testing.assert_allclose(out, reference, rtol=1e-4, atol=1e-4)


def test_float32_multi_head_attention():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2, 5, 8)).astype(np.float32)
    Ws = [rng.normal(size=(8, 8)).astype(np.float32) for _ in range(4)]
    out, weights = A.multi_head_attention(X, *Ws, 4, A.causal_mask(5))
    assert out.dtype == weights.dtype == np.float32


def test_integer_input_gives_float64():
    out, weights = A.attend([[1, 0]], [[1, 0], [0, 1]], [[1, 2], [3, 4]])
    assert out.dtype == weights.dtype == np.float64


@PROFILE
@given(attention_inputs(with_mask=False))
def test_entropy_lies_between_zero_and_log_n_k(inputs):
    Q, K, V, _ = inputs
    weights = A.attend(Q, K, V)[1]
    H = A.row_entropy(weights)
    assert H.shape == weights.shape[:-1]
    assert (H >= 0).all() and (H <= np.log(K.shape[-2]) + 1e-12).all()
    np.testing.assert_allclose(A.row_entropy(weights, base=2), H / np.log(2), rtol=1e-12, atol=1e-15)
