"""The library against plain Python loops (tests/loop_reference.py) and hand-worked numbers, on small cases."""
import math

import numpy as np
import pytest

import attention as A
import loop_reference as loops

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

SEEDS = range(12)
TOL = dict(rtol=1e-12, atol=1e-13)


def random_case(seed, n_q=None, n_k=None, d_k=None, d_v=None):
    rng = np.random.default_rng(seed)
    n_q = n_q or int(rng.integers(1, 6))
    n_k = n_k or int(rng.integers(1, 7))
    d_k = d_k or int(rng.integers(1, 5))
    d_v = d_v or int(rng.integers(1, 5))
    Q = rng.normal(size=(n_q, d_k))
    K = rng.normal(size=(n_k, d_k))
    V = rng.normal(size=(n_k, d_v))
    mask = rng.random((n_q, n_k)) < 0.6
    mask[0] = False  # always one query that may attend to nothing
    return rng, Q, K, V, mask


# --- hand-worked numbers -------------------------------------------------------------------------

def test_worked_example_by_hand():
    Q = [[1.0, 0.0], [0.0, 2.0]]
    K = [[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    V = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    np.testing.assert_array_equal(A.scores(Q, K), [[2.0, 0.0, 1.0], [0.0, 2.0, 2.0]])
    np.testing.assert_allclose(A.scaled_scores(Q, K), np.array([[2.0, 0.0, 1.0], [0.0, 2.0, 2.0]]) / math.sqrt(2))
    np.testing.assert_array_equal(A.scaled_scores(Q, K, scale=0.5), [[1.0, 0.0, 0.5], [0.0, 1.0, 1.0]])
    out, weights = A.attend(Q, K, V, scale=math.log(3))  # scores * ln 3 -> e^s = 3^score
    np.testing.assert_allclose(weights, [[9 / 13, 1 / 13, 3 / 13], [1 / 19, 9 / 19, 9 / 19]], rtol=1e-14)
    np.testing.assert_allclose(out, [[12 / 13, 4 / 13], [10 / 19, 18 / 19]], rtol=1e-14)


def test_softmax_by_hand():
    np.testing.assert_allclose(A.softmax([0.0, math.log(3)]), [0.25, 0.75], rtol=1e-15)
    np.testing.assert_array_equal(A.softmax([[5.0, 5.0, 5.0, 5.0]]), [[0.25] * 4])
    w = A.softmax([[1.0, 2.0, 3.0]], mask=[[True, False, True]])
    np.testing.assert_allclose(w, [[1 / (1 + math.e**2), 0.0, math.e**2 / (1 + math.e**2)]], rtol=1e-15)


def test_entropy_by_hand():
    np.testing.assert_allclose(A.row_entropy([[0.5, 0.5], [1.0, 0.0]], base=2), [1.0, 0.0], rtol=1e-15)
    np.testing.assert_allclose(A.row_entropy([[0.25] * 4]), [math.log(4)], rtol=1e-15)


# --- against the loops ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_scores_and_scaled_scores(seed):
    rng, Q, K, _, _ = random_case(seed)
    np.testing.assert_allclose(A.scores(Q, K), loops.scores(Q.tolist(), K.tolist()), **TOL)
    np.testing.assert_allclose(A.scaled_scores(Q, K), loops.scaled_scores(Q.tolist(), K.tolist()), **TOL)
    scale = float(rng.uniform(-2, 2))
    np.testing.assert_allclose(A.scaled_scores(Q, K, scale), loops.scaled_scores(Q.tolist(), K.tolist(), scale), **TOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_with_mask_and_minus_inf(seed):
    rng, _, _, _, mask = random_case(seed)
    S = rng.normal(scale=5, size=mask.shape)
    S[rng.random(S.shape) < 0.15] = -np.inf
    expected = loops.softmax(S.tolist(), mask.tolist())
    np.testing.assert_allclose(A.softmax(S, mask), expected, **TOL)
    np.testing.assert_allclose(A.softmax(S), loops.softmax(S.tolist()), **TOL)
    np.testing.assert_array_equal(A.softmax(S, mask)[0], 0.0)  # the query with no allowed key


@pytest.mark.parametrize("seed", SEEDS)
def test_attend(seed):
    rng, Q, K, V, mask = random_case(seed)
    for m in (None, mask):
        out, weights = A.attend(Q, K, V, m)
        ref_out, ref_weights = loops.attend(Q.tolist(), K.tolist(), V.tolist(), None if m is None else m.tolist())
        np.testing.assert_allclose(weights, ref_weights, **TOL)
        np.testing.assert_allclose(out, ref_out, **TOL)
    np.testing.assert_array_equal(A.attend(Q, K, V, mask)[0][0], 0.0)


@pytest.mark.parametrize("seed", SEEDS)
def test_attend_with_batch_dimensions(seed):
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(2, 3, 4, 2))
    K = rng.normal(size=(1, 3, 5, 2))  # broadcast over the first batch axis
    V = rng.normal(size=(2, 1, 5, 3))  # and over the second
    mask = rng.random((3, 4, 5)) < 0.5
    out, weights = A.attend(Q, K, V, mask)
    assert out.shape == (2, 3, 4, 3) and weights.shape == (2, 3, 4, 5)
    for a in range(2):
        for b in range(3):
            ref_out, ref_weights = loops.attend(Q[a, b].tolist(), K[0, b].tolist(), V[a, 0].tolist(), mask[b].tolist())
            np.testing.assert_allclose(out[a, b], ref_out, **TOL)
            np.testing.assert_allclose(weights[a, b], ref_weights, **TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("with_bias", [False, True])
def test_multi_head_attention(seed, with_bias):
    rng = np.random.default_rng(seed)
    n_heads = int(rng.integers(1, 4))
    d_model = n_heads * int(rng.integers(1, 4))
    n = int(rng.integers(1, 6))
    X = rng.normal(size=(n, d_model))
    Ws = [rng.normal(size=(d_model, d_model)) for _ in range(4)]
    biases = [rng.normal(size=d_model) for _ in range(4)] if with_bias else [None] * 4
    mask = A.causal_mask(n) & (rng.random((n, n)) < 0.7)
    out, weights = A.multi_head_attention(X, *Ws, n_heads, mask, *biases)
    lists = [None if b is None else b.tolist() for b in biases]
    ref_out, ref_weights = loops.multi_head_attention(X.tolist(), *(W.tolist() for W in Ws), n_heads, mask.tolist(), *lists)
    assert weights.shape == (n_heads, n, n)
    np.testing.assert_allclose(weights, ref_weights, **TOL)
    np.testing.assert_allclose(out, ref_out, rtol=1e-11, atol=1e-12)


def test_multi_head_with_batch_and_padding():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3, 4, 6))
    Ws = [rng.normal(size=(6, 6)) for _ in range(4)]
    lengths = [4, 2, 0]
    mask = A.causal_mask(4) & A.padding_mask(lengths, 4)
    out, weights = A.multi_head_attention(X, *Ws, 3, mask)
    assert out.shape == (3, 4, 6) and weights.shape == (3, 3, 4, 4)
    for b, length in enumerate(lengths):
        ref_mask = [[i >= j and j < length for j in range(4)] for i in range(4)]
        ref_out, ref_weights = loops.multi_head_attention(X[b].tolist(), *(W.tolist() for W in Ws), 3, ref_mask)
        np.testing.assert_allclose(out[b], ref_out, rtol=1e-11, atol=1e-12)
        np.testing.assert_allclose(weights[b], ref_weights, **TOL)
    np.testing.assert_array_equal(weights[2], 0.0)  # the empty sequence attends to nothing
    np.testing.assert_array_equal(out[2], 0.0)


def test_split_and_merge_heads():
    X = np.arange(2 * 3 * 6, dtype=float).reshape(2, 3, 6)
    heads = A.split_heads(X, 3)  # (2, 3 heads, 3, 2)
    assert heads.shape == (2, 3, 3, 2)
    for h in range(3):
        np.testing.assert_array_equal(heads[:, h], X[..., 2 * h:2 * h + 2])
    np.testing.assert_array_equal(A.merge_heads(heads), X)


@pytest.mark.parametrize("batch, n, n_heads, d_k", [(1, 5, 2, 3), (2, 4, 3, 2), (3, 1, 1, 4), (2, 6, 4, 1)])
def test_split_and_merge_heads_against_loops(batch, n, n_heads, d_k):
    """The batched layout entry by entry: (batch, n, d_model) -> (batch, n_heads, n, d_k) and back, exactly."""
    X = np.random.default_rng(batch * 100 + n).normal(size=(batch, n, n_heads * d_k))
    heads = A.split_heads(X, n_heads)
    assert heads.shape == (batch, n_heads, n, d_k), "split_heads: (batch, n, d_model) -> (batch, n_heads, n, d_k)"
    np.testing.assert_array_equal(heads, loops.split_heads(X.tolist(), n_heads))
    merged = A.merge_heads(heads)
    assert merged.shape == X.shape, "merge_heads: (batch, n_heads, n, d_k) -> (batch, n, d_model)"
    np.testing.assert_array_equal(merged, loops.merge_heads(heads.tolist()))
    np.testing.assert_array_equal(merged, X, err_msg="split then merge gives back every bit of X")
    # attention on the 4-D layout is each head's attention on its own columns, batch by batch
    out, weights = A.attend(heads, heads, heads)  # (batch, n_heads, n, d_k), (batch, n_heads, n, n)
    for b in range(batch):
        for h in range(n_heads):
            cols = X[b][:, h * d_k:(h + 1) * d_k].tolist()
            ref_out, ref_weights = loops.attend(cols, cols, cols)
            np.testing.assert_allclose(out[b, h], ref_out, **TOL)
            np.testing.assert_allclose(weights[b, h], ref_weights, **TOL)


@pytest.mark.parametrize("n_q, n_k", [(1, 1), (4, 4), (3, 6), (6, 3)])
def test_causal_mask(n_q, n_k):
    np.testing.assert_array_equal(A.causal_mask(n_q, n_k), loops.causal_mask(n_q, n_k))
    assert A.causal_mask(n_q, n_k).dtype == bool
    np.testing.assert_array_equal(A.causal_mask(n_q), loops.causal_mask(n_q))


@pytest.mark.parametrize("n, window", [(1, 1), (5, 1), (5, 2), (6, 3), (4, 10)])
def test_strided_and_global_masks(n, window):
    np.testing.assert_array_equal(A.strided_mask(n, window), loops.strided_mask(n, window))
    positions = list(range(0, n, window + 1))
    np.testing.assert_array_equal(A.global_mask(n, positions), loops.global_mask(n, positions))
    assert A.global_mask(n, []).sum() == 0


@pytest.mark.parametrize("n, window", [(1, 1), (5, 1), (5, 2), (6, 3), (4, 4), (4, 9)])
def test_sliding_window_mask(n, window):
    mask = A.sliding_window_mask(n, window)
    np.testing.assert_array_equal(mask, loops.sliding_window_mask(n, window))
    np.testing.assert_array_equal(mask.sum(axis=1), np.minimum(np.arange(n) + 1, window))


@pytest.mark.parametrize("lengths, n", [([3], 3), ([0, 1, 4], 4), ([2, 5, 5, 0], 5)])
def test_padding_mask(lengths, n):
    mask = A.padding_mask(lengths, n)
    assert mask.shape == (len(lengths), 1, n) and mask.dtype == bool
    np.testing.assert_array_equal(mask, loops.padding_mask(lengths, n))


@pytest.mark.parametrize("seed", SEEDS)
def test_row_entropy(seed):
    rng, Q, K, V, mask = random_case(seed)
    W = A.attend(Q, K, V, mask)[1]
    for base in (None, 2, 10):
        np.testing.assert_allclose(A.row_entropy(W, base), [loops.row_entropy(row, base) for row in W.tolist()], **TOL)
    assert A.row_entropy(W)[0] == 0.0  # the query that attends to nothing


@pytest.mark.parametrize("n, d_k, d_v, n_heads", [(1, 1, 1, 1), (5, 3, 3, 1), (4, 2, 5, 1), (3, 4, 2, 3)])
def test_attention_cost_counts_the_loops_work(n, d_k, d_v, n_heads):
    rng = np.random.default_rng(n * 100 + d_k)
    loops.COUNTER["macs"] = 0
    for _ in range(n_heads):
        loops.scores(rng.normal(size=(n, d_k)).tolist(), rng.normal(size=(n, d_k)).tolist())
    qk_macs = loops.COUNTER["macs"]
    loops.COUNTER["macs"] = 0
    for _ in range(n_heads):
        weights = rng.random((n, n)).tolist()
        V = rng.normal(size=(n, d_v)).tolist()
        [[loops.dot(w, [v[c] for v in V]) for c in range(d_v)] for w in weights]
    av_macs = loops.COUNTER["macs"]
    cost = A.attention_cost(n, d_k, d_v, n_heads=n_heads, itemsize=8)
    # The KV cache: every token's key (d_k numbers) and value (d_v numbers) in every head, counted one by one.
    kv_numbers_per_token = sum(d_k + d_v for _ in range(n_heads))
    assert cost == {"score_entries": n_heads * n * n, "score_bytes": 8 * n_heads * n * n,
                    "qk_macs": qk_macs, "av_macs": av_macs,
                    "kv_bytes_per_token": 8 * kv_numbers_per_token, "kv_cache_bytes": 8 * n * kv_numbers_per_token}
    assert A.attention_cost(n, d_k)["av_macs"] == A.attention_cost(n, d_k)["qk_macs"]  # d_v defaults to d_k
    assert A.attention_cost(n, d_k)["score_bytes"] == 4 * n * n  # float32 by default


def test_attention_cost_quadruples_when_n_doubles():
    small, large = A.attention_cost(512, 64, n_heads=8), A.attention_cost(1024, 64, n_heads=8)
    assert all(large[key] == 4 * small[key] for key in ("score_entries", "score_bytes", "qk_macs", "av_macs"))
    assert large["kv_cache_bytes"] == 2 * small["kv_cache_bytes"]  # the cache grows with n, not n²
    assert large["kv_bytes_per_token"] == small["kv_bytes_per_token"]


def test_kv_cache_is_the_keys_and_values_a_decoder_keeps():
    """The cache of n tokens holds exactly the K and V arrays of those tokens: its bytes are theirs."""
    n, d_k, d_v, n_heads = 7, 4, 3, 2
    K = np.zeros((n_heads, n, d_k), dtype=np.float32)
    V = np.zeros((n_heads, n, d_v), dtype=np.float32)
    cost = A.attention_cost(n, d_k, d_v, n_heads=n_heads, itemsize=4)
    assert cost["kv_cache_bytes"] == K.nbytes + V.nbytes
    assert cost["kv_bytes_per_token"] == (K.nbytes + V.nbytes) // n


@pytest.mark.parametrize("n, d_model, n_heads", [(3, 4, 2), (5, 6, 3), (2, 6, 1)])
def test_multi_head_cost_counts_the_loops_work(n, d_model, n_heads):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, d_model)).tolist()
    Ws = [rng.normal(size=(d_model, d_model)).tolist() for _ in range(4)]
    loops.COUNTER["macs"] = 0
    loops.multi_head_attention(X, *Ws, n_heads)  # counts the attention products only, not projections
    cost = A.multi_head_cost(n, d_model, n_heads)
    assert cost["attention_macs"] == loops.COUNTER["macs"] == 2 * n * n * d_model
    assert cost["d_k"] == d_model // n_heads
    assert cost["params"] == 4 * d_model * d_model
    assert cost["projection_macs"] == 4 * n * d_model * d_model
    assert cost["total_macs"] == cost["projection_macs"] + cost["attention_macs"]
