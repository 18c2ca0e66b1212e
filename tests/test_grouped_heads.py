"""Grouped-query attention's sharing (`share_kv_heads`, `kv_head_of`) against a plain loop, transformers' LLaMA
`repeat_kv`, and PyTorch's SDPA with enable_gqa, in float64."""
import numpy as np
import pytest

import attention as A

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(("n_heads", "n_kv_heads"), [(4, 2), (9, 3), (6, 1), (5, 5)])
def test_share_kv_heads_gives_each_query_head_its_groups_head(n_heads, n_kv_heads):
    X = np.random.default_rng(n_heads).normal(size=(2, n_kv_heads, 3, 4))
    shared = A.share_kv_heads(X, n_heads)
    assert shared.shape == (2, n_heads, 3, 4)
    for g in range(n_heads):  # the loop: query head g reads head g // (n_heads / n_kv_heads)
        kv = g * n_kv_heads // n_heads
        assert A.kv_head_of(g, n_heads, n_kv_heads) == kv, "kv_head_of names the group's key/value head"
        assert np.array_equal(shared[:, g], X[:, kv]), f"query head {g} must read key/value head {kv}"


def test_share_kv_heads_matches_transformers_repeat_kv():
    from transformers.models.llama.modeling_llama import repeat_kv  # noqa: PLC0415
    X = np.random.default_rng(0).normal(size=(2, 3, 5, 8))
    expected = repeat_kv(torch.from_numpy(X), 3).numpy()
    assert np.array_equal(A.share_kv_heads(X, 9), expected), "the sharing is LLaMA's repeat_kv"


@pytest.mark.parametrize("seed", range(20))
def test_grouped_attention_matches_sdpa_enable_gqa(seed):
    rng = np.random.default_rng(seed)
    n_kv_heads = int(rng.integers(1, 4))
    n_heads = n_kv_heads * int(rng.integers(1, 4))
    n, d_k = int(rng.integers(1, 7)), int(rng.integers(1, 9))
    Q = rng.normal(size=(1, n_heads, n, d_k))
    K, V = rng.normal(size=(2, 1, n_kv_heads, n, d_k))
    mask = A.causal_mask(n)
    out, _ = A.attend(Q, A.share_kv_heads(K, n_heads), A.share_kv_heads(V, n_heads), mask)
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(x) for x in (Q, K, V)), attn_mask=torch.from_numpy(mask), enable_gqa=True)
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-10, atol=1e-10,
                               err_msg="grouped attention is PyTorch's SDPA with enable_gqa")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: A.share_kv_heads(np.zeros((3, 2, 4)), 4), "cannot share n_kv_heads = 3"),
    (lambda: A.share_kv_heads(np.zeros((2, 4)), 4), "X"),
    (lambda: A.share_kv_heads(np.full((2, 2, 4), np.nan), 4), "X"),
    (lambda: A.kv_head_of(4, 4, 2), "head = 4 is not one of the 4 query heads"),
    (lambda: A.kv_head_of(0, 9, 2), "not a multiple"),
])
def test_grouped_heads_name_the_culprit(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
