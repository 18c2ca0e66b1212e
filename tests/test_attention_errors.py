"""Bad input gets a clear error naming the argument and its shape; edge cases never give NaN or a warning."""
import re
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import attention as A

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

rng = np.random.default_rng(0)
Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
X = rng.normal(size=(2, 5, 6))
W = rng.normal(size=(6, 6))


def attend_out(*args, **kwargs):
    return A.attend(*args, **kwargs)[0]


ATTENDS = [attend_out, A.attend_chunked]
QK_FUNCTIONS = [A.scores, A.scaled_scores, lambda q, k: A.attend(q, k, V), lambda q, k: A.attend_chunked(q, k, V)]


# --- shapes ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("f", QK_FUNCTIONS)
def test_mismatched_d_k(f):
    with pytest.raises(ValueError, match=re.escape("Q and K must share d_k (their last axis): Q (3, 4), K (5, 3)")):
        f(Q, K[:, :3])


@pytest.mark.parametrize("f", ATTENDS)
def test_mismatched_n_k_between_K_and_V(f):
    with pytest.raises(ValueError, match=re.escape("K and V must have the same number of keys n_k (axis -2): K (5, 4), V (6, 2)")):
        f(Q, K, np.zeros((6, 2)))


@pytest.mark.parametrize("f", ATTENDS)
@pytest.mark.parametrize("name, shape", [("Q", "(..., n_q, d_k)"), ("K", "(..., n_k, d_k)"), ("V", "(..., n_k, d_v)")])
def test_too_few_axes(f, name, shape):
    args = {"Q": Q, "K": K, "V": V}
    args[name] = args[name][0]
    with pytest.raises(ValueError, match=re.escape(f"{name} must have shape {shape}, got shape ({args[name].size},)")):
        f(**args)


@pytest.mark.parametrize("f", ATTENDS)
def test_batch_dimensions_that_do_not_broadcast(f):
    with pytest.raises(ValueError, match=re.escape("batch dimensions (all but the last two axes) do not broadcast: Q (2, 3, 4), K (3, 5, 4)")):
        f(np.zeros((2, 3, 4)), np.zeros((3, 5, 4)), np.zeros((5, 2)))


# --- values ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("f", ATTENDS)
@pytest.mark.parametrize("name", ["Q", "K", "V"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_or_inf_in_Q_K_or_V(f, name, bad):
    args = {"Q": Q.copy(), "K": K.copy(), "V": V.copy()}
    args[name][1, 1] = bad
    shape = args[name].shape
    with pytest.raises(ValueError, match=re.escape(f"{name} of shape {shape} contains {bad} at index (1, 1); it must hold finite numbers")):
        f(**args)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_plus_inf_scores_in_softmax(bad):
    with pytest.raises(ValueError, match=re.escape(f"S of shape (2, 2) contains {bad} at index (0, 1); it must hold finite numbers or -inf")):
        A.softmax([[0.0, bad], [1.0, 2.0]])


@pytest.mark.parametrize("f", ATTENDS)
def test_scores_that_overflow_float32_are_an_error_not_nan(f):
    big = np.full((2, 4), 1e20, dtype=np.float32)  # finite, but q·k = 4e40 is not a float32
    with pytest.raises(ValueError, match=re.escape("the float32 scores of shape (2, 2) contain +inf or NaN: Q Kᵀ overflowed")):
        f(big, big, big)


@pytest.mark.parametrize("value, error, message", [
    ("abc", TypeError, "Q must be an array of numbers, got str"),
    (None, TypeError, "Q must be an array of numbers, got NoneType"),
    ([[1.0, 2.0], [3.0]], TypeError, "Q must be an array of numbers"),
    (np.ones((3, 4), dtype=complex), TypeError, "Q must hold real numbers, got dtype complex128 (shape (3, 4))"),
    (np.ones((3, 4), dtype=bool), TypeError, "Q must hold real numbers, got dtype bool (shape (3, 4))"),
])
def test_wrong_types(value, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.attend(value, K, V)


# --- masks -----------------------------------------------------------------------------------------

MASKED_CALLS = {
    "attend": lambda m: A.attend(Q, K, V, m),
    "attend_chunked": lambda m: A.attend_chunked(Q, K, V, m),
    "softmax": lambda m: A.softmax(np.zeros((3, 5)), m),
}


@pytest.mark.parametrize("call", MASKED_CALLS.values(), ids=MASKED_CALLS.keys())
@pytest.mark.parametrize("mask", [np.ones((3, 5), dtype=int), np.ones((3, 5)), [[1, 0, 1, 0, 1]] * 3])
def test_mask_that_is_not_boolean(call, mask):
    with pytest.raises(TypeError, match=r"mask must be boolean \(True = may attend\), got dtype (int64|float64) \(shape \(3, 5\)\)"):
        call(mask)


@pytest.mark.parametrize("call", MASKED_CALLS.values(), ids=MASKED_CALLS.keys())
@pytest.mark.parametrize("shape", [(3, 4), (5, 3), (3,), (2, 3, 5)])
def test_mask_that_does_not_broadcast(call, shape):
    with pytest.raises(ValueError, match=re.escape(f"mask of shape {shape} does not broadcast to the scores' shape (3, 5)")):
        call(np.ones(shape, dtype=bool))


def test_multi_head_mask_that_does_not_broadcast():
    with pytest.raises(ValueError, match=re.escape("mask of shape (4, 4) does not broadcast to the scores' shape (2, 5, 5)")):
        A.multi_head_attention(X, W, W, W, W, 2, mask=A.causal_mask(4))
    with pytest.raises(TypeError, match=re.escape("mask must be boolean (True = may attend), got dtype int64 (shape (5, 5))")):
        A.multi_head_attention(X, W, W, W, W, 2, mask=A.causal_mask(5).astype(int))


# --- multi-head ------------------------------------------------------------------------------------

def test_d_model_not_divisible_by_n_heads():
    message = re.escape("d_model = 6 (X (2, 5, 6)) is not divisible by n_heads = 4")
    with pytest.raises(ValueError, match=message):
        A.multi_head_attention(X, W, W, W, W, 4)
    with pytest.raises(ValueError, match=message):
        A.split_heads(X, 4)
    with pytest.raises(ValueError, match=re.escape("d_model = 6 is not divisible by n_heads = 4")):
        A.multi_head_cost(10, 6, 4)


@pytest.mark.parametrize("n_heads, error, message", [
    (0, ValueError, "n_heads must be >= 1, got 0"),
    (2.0, TypeError, "n_heads must be an integer, got float"),
    (True, TypeError, "n_heads must be an integer, got bool"),
])
def test_bad_n_heads(n_heads, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.multi_head_attention(X, W, W, W, W, n_heads)


@pytest.mark.parametrize("name", ["W_Q", "W_K", "W_V", "W_O"])
def test_projection_of_the_wrong_shape(name):
    Ws = {"W_Q": W, "W_K": W, "W_V": W, "W_O": W, name: W[:, :5]}
    with pytest.raises(ValueError, match=re.escape(f"{name} must have shape (d_model, d_model) = (6, 6), got (6, 5)")):
        A.multi_head_attention(X, n_heads=2, **Ws)


@pytest.mark.parametrize("name", ["b_Q", "b_K", "b_V", "b_O"])
def test_bias_of_the_wrong_shape(name):
    with pytest.raises(ValueError, match=re.escape(f"{name} must have shape (d_model,) = (6,), got (5,)")):
        A.multi_head_attention(X, W, W, W, W, 2, **{name: np.zeros(5)})


def test_nan_in_X_or_a_projection():
    bad = W.copy()
    bad[2, 3] = np.nan
    with pytest.raises(ValueError, match=re.escape("W_V of shape (6, 6) contains nan at index (2, 3)")):
        A.multi_head_attention(X, W, W, bad, W, 2)
    with pytest.raises(ValueError, match=re.escape("X of shape (6, 6) contains nan at index (2, 3)")):
        A.multi_head_attention(bad, W, W, W, W, 2)


@pytest.mark.parametrize("x, n_heads, error, message", [
    (np.zeros(6), 2, ValueError, "X must have shape (..., n, d_model), got shape (6,)"),
    (np.zeros((1, 5, 6)), 4, ValueError, "d_model = 6 (X (1, 5, 6)) is not divisible by n_heads = 4"),
    (np.zeros((1, 5, 6)), 0, ValueError, "n_heads must be >= 1, got 0"),
    (np.zeros((1, 5, 6)), 2.0, TypeError, "n_heads must be an integer, got float"),
])
def test_split_heads_names_the_culprit(x, n_heads, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.split_heads(x, n_heads)


def test_merge_heads_needs_a_head_axis():
    with pytest.raises(ValueError, match=re.escape("X must have shape (..., n_heads, n, d_k), got shape (5, 6)")):
        A.merge_heads(np.zeros((5, 6)))


# --- masks' own arguments --------------------------------------------------------------------------

@pytest.mark.parametrize("window, error, message", [
    (0, ValueError, "window must be >= 1, got 0"),
    (-3, ValueError, "window must be >= 1, got -3"),
    (2.5, TypeError, "window must be an integer, got float"),
])
def test_bad_window(window, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.sliding_window_mask(5, window)


@pytest.mark.parametrize("lengths, message", [
    ([2, 6], "lengths[1] = 6 is outside [0, n] with n = 5 (lengths of shape (2,))"),
    ([-1, 3, 5], "lengths[0] = -1 is outside [0, n] with n = 5 (lengths of shape (3,))"),
])
def test_length_outside_zero_to_n(lengths, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        A.padding_mask(lengths, 5)


def test_lengths_of_the_wrong_type_or_shape():
    with pytest.raises(TypeError, match=re.escape("lengths must be integers, got dtype float64 (shape (2,))")):
        A.padding_mask([2.0, 3.5], 5)
    with pytest.raises(ValueError, match=re.escape("lengths must have shape (batch,), got shape (2, 1)")):
        A.padding_mask([[2], [3]], 5)


@pytest.mark.parametrize("call, message", [
    (lambda: A.causal_mask(-1), "n_q must be >= 0, got -1"),
    (lambda: A.causal_mask(3, -2), "n_k must be >= 0, got -2"),
    (lambda: A.sliding_window_mask(-1, 2), "n must be >= 0, got -1"),
    (lambda: A.sliding_window_mask(3, 0), "window must be >= 1, got 0"),
    (lambda: A.strided_mask(-1, 2), "n must be >= 0, got -1"),
    (lambda: A.strided_mask(3, 0), "stride must be >= 1, got 0"),
    (lambda: A.global_mask(-1, []), "n must be >= 0, got -1"),
    (lambda: A.global_mask(4, [0, 4]), "positions[1] = 4 is outside [0, n) with n = 4"),
    (lambda: A.global_mask(4, [-1]), "positions[0] = -1 is outside [0, n) with n = 4"),
    (lambda: A.global_mask(4, [1, 1]), "positions must be distinct, got [1, 1]"),
    (lambda: A.padding_mask([1], -1), "n must be >= 0, got -1"),
    (lambda: A.padding_mask([1], 0), "lengths[0] = 1 is outside [0, n] with n = 0"),
])
def test_mask_sizes(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_global_mask_positions_must_be_integers():
    with pytest.raises(TypeError, match=re.escape("positions must be a 1-D array of integers, got dtype float64 (shape (1,))")):
        A.global_mask(4, [1.0])


# --- other arguments -------------------------------------------------------------------------------

@pytest.mark.parametrize("scale, error, message", [
    (np.nan, ValueError, "scale must be finite, got nan"),
    (np.inf, ValueError, "scale must be finite, got inf"),
    ("0.5", TypeError, "scale must be a real number, got str"),
    (True, TypeError, "scale must be a real number, got bool"),
])
def test_bad_scale(scale, error, message):
    for call in (lambda: A.scaled_scores(Q, K, scale), lambda: A.attend(Q, K, V, scale=scale),
                 lambda: A.attend_chunked(Q, K, V, scale=scale)):
        with pytest.raises(error, match=re.escape(message)):
            call()


@pytest.mark.parametrize("block_size, error, message", [
    (0, ValueError, "block_size must be >= 1, got 0"),
    (1.5, TypeError, "block_size must be an integer, got float"),
])
def test_bad_block_size(block_size, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.attend_chunked(Q, K, V, block_size=block_size)


def test_row_entropy_rejects_negative_weights_and_bad_bases():
    with pytest.raises(ValueError, match=re.escape("W of shape (2, 2) has a negative weight -0.5 at index (1, 0); weights must be >= 0")):
        A.row_entropy([[0.5, 0.5], [-0.5, 1.5]])
    for base in (1, 0, -2):
        with pytest.raises(ValueError, match=re.escape(f"base must be a positive number other than 1, got {base}")):
            A.row_entropy([[0.5, 0.5]], base=base)
    with pytest.raises(TypeError, match=re.escape("base must be a real number, got str")):
        A.row_entropy([[0.5, 0.5]], base="2")


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(n=0, d_k=4), ValueError, "n must be >= 1, got 0"),
    (dict(n=4, d_k=4.0), TypeError, "d_k must be an integer, got float"),
    (dict(n=4, d_k=4, d_v=0), ValueError, "d_v must be >= 1, got 0"),
    (dict(n=4, d_k=4, n_heads=0), ValueError, "n_heads must be >= 1, got 0"),
    (dict(n=4, d_k=4, itemsize=0), ValueError, "itemsize must be >= 1, got 0"),
])
def test_bad_cost_arguments(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.attention_cost(**kwargs)


# --- edge cases that must work, without NaN and without a numpy warning ---------------------------

def no_warnings(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any numpy RuntimeWarning (overflow, invalid, divide) fails here
        return f(*args, **kwargs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_is_stable_for_plus_minus_1e4(dtype):
    S = np.array([[1e4, -1e4, 0.0], [1e4, 1e4, 1e4 - np.log(2)], [-1e4, -1e4, -1e4]], dtype=dtype)
    W = no_warnings(A.softmax, S)
    assert W.dtype == dtype
    np.testing.assert_allclose(W, [[1, 0, 0], [0.4, 0.4, 0.2], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-3 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("f", ATTENDS)
def test_fully_masked_row_gives_zero_weights_and_zero_output(f):
    mask = np.ones((3, 5), dtype=bool)
    mask[1] = False
    out = no_warnings(f, Q, K, V, mask)
    assert not np.isnan(out).any()
    np.testing.assert_array_equal(out[1], 0.0)
    assert (out[[0, 2]] != 0).all()
    weights = no_warnings(A.attend, Q, K, V, mask)[1]
    np.testing.assert_array_equal(weights[1], 0.0)
    np.testing.assert_allclose(weights[[0, 2]].sum(axis=-1), 1.0)


def test_everything_masked_and_minus_inf_rows():
    np.testing.assert_array_equal(no_warnings(A.softmax, np.zeros((2, 3)), np.zeros((2, 3), dtype=bool)), 0.0)
    np.testing.assert_array_equal(no_warnings(A.softmax, [[-np.inf, -np.inf], [-np.inf, 0.0]]), [[0.0, 0.0], [0.0, 1.0]])
    out, weights = no_warnings(A.attend, Q, K, V, np.zeros((3, 5), dtype=bool))
    np.testing.assert_array_equal(out, 0.0)
    np.testing.assert_array_equal(weights, 0.0)
    assert (no_warnings(A.row_entropy, weights) == 0.0).all()


@pytest.mark.parametrize("f", ATTENDS)
def test_no_keys_at_all_gives_zero_output(f):
    out = no_warnings(f, Q, np.zeros((0, 4)), np.zeros((0, 2)))
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(out, 0.0)


def test_inputs_are_not_modified():
    S = rng.normal(size=(3, 5))
    mask = rng.random((3, 5)) < 0.5
    copies = [x.copy() for x in (Q, K, V, S, mask)]
    A.attend(Q, K, V, mask)
    A.attend_chunked(Q, K, V, mask, block_size=2)
    A.softmax(S, mask)
    for original, copy in zip((Q, K, V, S, mask), copies):
        np.testing.assert_array_equal(original, copy)


@pytest.mark.parametrize("f", ["scores", "scaled_scores", "attend", "attend_chunked"])
def test_zero_width_queries_and_keys(f):
    Q, K = np.zeros((3, 0)), np.zeros((4, 0))
    args = (Q, K, np.ones((4, 2))) if f.startswith("attend") else (Q, K)
    with pytest.raises(ValueError, match=r"d_k >= 1.*Q \(3, 0\), K \(4, 0\)"):
        getattr(A, f)(*args)


@pytest.mark.parametrize("mask", [np.array([True, True, False]), np.array(True)])
def test_multi_head_takes_every_mask_attend_takes(mask):
    """A key mask of shape (n,) or a scalar mask broadcasts the same way in both."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3, 4))
    W = [rng.normal(size=(4, 4)) for _ in range(4)]
    out, weights = A.multi_head_attention(X, *W, n_heads=2, mask=mask)
    full = np.broadcast_to(mask, (3, 3))
    expected, _ = A.multi_head_attention(X, *W, n_heads=2, mask=full)
    np.testing.assert_allclose(out, expected)
    assert (weights[..., ~full] == 0).all()


# --- the library's edges agree with attend -----------------------------------------------------------

OVERFLOWS = {  # name -> (Q, K, scale, dtype, culprit)
    "float32 Q Kᵀ": (np.full((2, 4), 1e30, np.float32), np.full((2, 4), 1e30, np.float32), None, "float32", "Q Kᵀ"),
    "float64 Q Kᵀ": (np.full((2, 4), 1e300), np.full((2, 4), 1e300), None, "float64", "Q Kᵀ"),
    "float64 scale": (np.full((2, 4), 1e10), np.full((2, 4), 1e10), 1e300, "float64", "the scale times Q Kᵀ"),
    "float32 scale": (np.full((2, 4), 1e10, np.float32), np.full((2, 4), 1e10, np.float32), 1e30, "float32",
                      "the scale times Q Kᵀ"),
}


@pytest.mark.parametrize("case", sorted(OVERFLOWS))
def test_every_path_raises_on_overflow_naming_the_dtype_and_the_culprit(case):
    Qo, Ko, scale, dtype, culprit = OVERFLOWS[case]
    message = f"the {dtype} scores of shape (2, 2) contain +inf or NaN: {culprit} overflowed {dtype}"
    calls = {"scaled_scores": lambda: A.scaled_scores(Qo, Ko, scale),
             "attend": lambda: A.attend(Qo, Ko, Ko, scale=scale),
             "attend_chunked": lambda: A.attend_chunked(Qo, Ko, Ko, scale=scale, block_size=1)}
    if scale is None:
        calls["scores"] = lambda: A.scores(Qo, Ko)
    for name, call in calls.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an error, not a numpy warning and an inf
            with pytest.raises(ValueError) as failure:
                call()
        text = str(failure.value)
        assert text.startswith(message), f"{name}: {text}"
        assert text.endswith(", or float64") == (dtype == "float32"), f"{name}: {text}"


def test_a_scale_too_large_for_the_dtype_is_named():
    Q32 = np.ones((2, 3), np.float32)
    for call in (lambda: A.scaled_scores(Q32, Q32, 1e300), lambda: A.attend(Q32, Q32, Q32, scale=1e300)):
        with pytest.raises(ValueError, match=re.escape("scale 1e+300 overflows float32")):
            call()


@pytest.mark.parametrize("scale", [Fraction(1, 2), Decimal("0.5"), np.float32(0.5), np.float64(0.5), np.int64(2), 2])
def test_any_real_number_is_a_scale(scale):
    expected_scores = A.scaled_scores(Q, K, float(scale))
    np.testing.assert_array_equal(A.scaled_scores(Q, K, scale), expected_scores)
    np.testing.assert_array_equal(A.attend(Q, K, V, scale=scale)[1], A.attend(Q, K, V, scale=float(scale))[1])
    np.testing.assert_array_equal(A.attend_chunked(Q, K, V, scale=scale), A.attend_chunked(Q, K, V, scale=float(scale)))


@pytest.mark.parametrize("scale, error, message", [
    (Decimal("NaN"), ValueError, "scale must be finite, got NaN"),
    (Fraction(10 ** 400), ValueError, "scale must be finite"),
    (np.bool_(True), TypeError, "scale must be a real number, got bool"),
    (1 + 2j, TypeError, "scale must be a real number, got complex"),
])
def test_what_is_not_a_finite_real_scale(scale, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.scaled_scores(Q, K, scale)


def test_empty_masks_are_what_attend_accepts():
    empty = np.zeros((0, 4))
    assert A.causal_mask(0).shape == (0, 0) and A.causal_mask(0).dtype == bool
    assert A.causal_mask(0, 3).shape == (0, 3)
    assert A.sliding_window_mask(0, 2).shape == (0, 0)
    out, weights = A.attend(empty, empty, empty, mask=A.causal_mask(0))
    assert out.shape == (0, 4) and weights.shape == (0, 0)
    lengths = A.padding_mask([], 3)
    assert lengths.shape == (0, 1, 3) and lengths.dtype == bool
    batch = np.zeros((0, 3, 4))
    out, weights = A.attend(batch, batch, batch, mask=lengths)
    assert out.shape == (0, 3, 4) and weights.shape == (0, 3, 3)
    np.testing.assert_array_equal(A.padding_mask([0, 2], 0 + 2)[:, 0], [[False, False], [True, True]])
