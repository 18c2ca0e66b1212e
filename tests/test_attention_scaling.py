"""The article's √d_k claim as a seeded statistical test.

For q, k with i.i.d. N(0, 1) entries, q·k is a sum of d_k independent products q_i k_i, each with
mean 0 and variance E[q²]E[k²] = 1, so var(q·k) = d_k and var(q·k / √d_k) = 1.

How close a sample variance s² of N draws should be: var(s²) ≈ (μ₄ - σ⁴) / N. For X = q·k,
E[X⁴] = d_k·E[q⁴]E[k⁴] + 3·d_k(d_k - 1) = 3d_k² + 6d_k (E[q⁴] = 3), so
var(s²) ≈ (2d_k² + 6d_k) / N and the relative standard error is √((2 + 6/d_k) / N).
We allow 5 standard errors: for any seed a check fails with probability below 1e-6 (s² is close to
normal at this N), while the band stays far narrower than the gap it must tell apart (d_k vs 1).
"""
import numpy as np
import pytest

import attention as A

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

N = 20_000
D_KS = [1, 2, 8, 32, 128, 512]


def relative_tolerance(d_k, n=N, sigmas=5):
    return sigmas * np.sqrt((2 + 6 / d_k) / n)


def query_key_pairs(d_k, seed):
    """N independent (q, k) pairs as N batches of one query and one key: (N, 1, d_k) each."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((N, 1, d_k)), rng.standard_normal((N, 1, d_k))


@pytest.mark.parametrize("d_k", D_KS)
def test_variance_of_dot_product_grows_like_d_k_and_scaling_brings_it_back_to_one(d_k):
    q, k = query_key_pairs(d_k, seed=d_k)
    raw = A.scores(q, k).ravel()  # (N, 1, 1) -> (N,): one q·k per pair
    scaled = A.scaled_scores(q, k).ravel()  # q·k / √d_k
    tol = relative_tolerance(d_k)
    assert abs(raw.var() / d_k - 1) < tol, (raw.var(), d_k, tol)
    assert abs(scaled.var() - 1) < tol, (scaled.var(), tol)
    np.testing.assert_allclose(scaled, raw / np.sqrt(d_k), rtol=1e-15)


def test_the_tolerance_tells_d_k_from_one():
    """The check above could fail: for every d_k > 1 the band around d_k leaves 1 well outside."""
    for d_k in D_KS[1:]:
        assert d_k * (1 - relative_tolerance(d_k)) > 1.5


@pytest.mark.parametrize("d_k", [64, 512])
def test_unscaled_scores_saturate_the_softmax_and_scaled_ones_do_not(d_k):
    """The consequence the article draws: without √d_k, one weight per row takes nearly everything."""
    rng = np.random.default_rng(d_k)
    Q, K = rng.standard_normal((2, 200, 16, d_k))  # 200 independent 16-token sequences
    small = rng.standard_normal((2, 200, 16, 4))
    largest_raw = A.softmax(A.scores(Q, K)).max(axis=-1).mean()
    largest_scaled = A.softmax(A.scaled_scores(Q, K)).max(axis=-1).mean()
    largest_small = A.softmax(A.scaled_scores(*small)).max(axis=-1).mean()
    assert largest_raw > 0.8
    assert largest_scaled < 0.3
    assert abs(largest_scaled - largest_small) < 0.03  # scaled: about the same spread whatever d_k is
