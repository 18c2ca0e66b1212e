"""PyTorch as the outside reference: SDPA and nn.MultiheadAttention agree with us to 1e-10 in float64.

torch is a test-only dependency; it is skipped only where it is not installed (it is in CI).
"""
import numpy as np
import pytest

import attention as A

torch = pytest.importorskip("torch")
F = torch.nn.functional

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

TOL = dict(rtol=1e-10, atol=1e-10)


def to_torch(x):
    return torch.from_numpy(np.ascontiguousarray(x))


def sdpa_case(seed):
    """Random (batch, heads, n_q, n_k, d_k, d_v) shapes, inputs, a boolean mask and maybe a scale."""
    rng = np.random.default_rng(seed)
    batch, heads = int(rng.integers(1, 4)), int(rng.integers(1, 5))
    n_q, n_k, d_k, d_v = (int(x) for x in rng.integers(1, 9, size=4))
    Q = rng.normal(scale=2.0, size=(batch, heads, n_q, d_k))
    K = rng.normal(scale=2.0, size=(batch, heads, n_k, d_k))
    V = rng.normal(size=(batch, heads, n_k, d_v))
    # Masks of several broadcast shapes; some rows end up with no allowed key at all.
    mask_shape = [(n_q, n_k), (batch, 1, n_q, n_k), (batch, heads, n_q, n_k), (batch, 1, 1, n_k)][seed % 4]
    mask = rng.random(mask_shape) < rng.uniform(0.3, 1.0)
    scale = None if seed % 3 else float(rng.uniform(0.05, 2.0))
    return Q, K, V, mask, scale


@pytest.mark.parametrize("seed", range(200))
def test_sdpa_with_boolean_masks(seed):
    Q, K, V, mask, scale = sdpa_case(seed)
    expected = F.scaled_dot_product_attention(to_torch(Q), to_torch(K), to_torch(V), attn_mask=to_torch(mask), scale=scale)
    out, weights = A.attend(Q, K, V, mask, scale)
    assert out.dtype == np.float64 and not np.isnan(out).any()
    np.testing.assert_allclose(out, expected.numpy(), **TOL)
    np.testing.assert_allclose(A.attend_chunked(Q, K, V, mask, scale, block_size=3), expected.numpy(), **TOL)
    # The weights against torch's own softmax of the masked, scaled scores.
    factor = 1 / np.sqrt(Q.shape[-1]) if scale is None else scale
    S = (to_torch(Q) @ to_torch(K).transpose(-1, -2) * factor).masked_fill(~to_torch(mask), -torch.inf)
    torch_weights = torch.nan_to_num(torch.softmax(S, dim=-1), nan=0.0)  # torch: NaN for a row with no key
    np.testing.assert_allclose(weights, torch_weights.numpy(), **TOL)


@pytest.mark.parametrize("seed", range(40))
def test_sdpa_without_mask_and_causal(seed):
    Q, K, V, _, scale = sdpa_case(seed)
    expected = F.scaled_dot_product_attention(to_torch(Q), to_torch(K), to_torch(V), scale=scale)
    np.testing.assert_allclose(A.attend(Q, K, V, scale=scale)[0], expected.numpy(), **TOL)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    causal = F.scaled_dot_product_attention(to_torch(Q), to_torch(K), to_torch(V), is_causal=True, scale=scale)
    np.testing.assert_allclose(A.attend(Q, K, V, A.causal_mask(n_q, n_k), scale)[0], causal.numpy(), **TOL)


@pytest.mark.parametrize("seed", range(40))
def test_split_attend_merge_against_torch_sdpa_on_4d_inputs(seed):
    """The batched layout as every real implementation writes it (nanoGPT's view, transpose, SDPA, transpose, view):
    split_heads is torch's view + transpose bit for bit, attend on the 4-D heads is scaled_dot_product_attention,
    and merge_heads is the transpose + view back."""
    rng, n_heads, d_model, batch, n, X, Ws = mha_case(seed)
    d_k = d_model // n_heads
    W_Q, W_K, W_V, W_O = Ws
    projected = [to_torch(X @ W) for W in (W_Q, W_K, W_V)]  # (batch, n, d_model) each
    q, k, v = (P.view(batch, n, n_heads, d_k).transpose(1, 2) for P in projected)  # (batch, n_heads, n, d_k)
    Q, K, V = (A.split_heads(X @ W, n_heads) for W in (W_Q, W_K, W_V))
    for ours, theirs in zip((Q, K, V), (q, k, v)):
        assert ours.shape == (batch, n_heads, n, d_k), "split_heads: (batch, n, d_model) -> (batch, n_heads, n, d_k)"
        np.testing.assert_array_equal(ours, theirs.numpy(), err_msg="split_heads moves numbers, it computes none")
    causal = A.causal_mask(n)
    for mask, is_causal in ((None, False), (causal, True)):
        y = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)  # (batch, n_heads, n, d_k)
        heads, _ = A.attend(Q, K, V, mask)
        np.testing.assert_allclose(heads, y.numpy(), **TOL)
        merged = y.transpose(1, 2).contiguous().view(batch, n, d_model)  # (batch, n, d_model)
        np.testing.assert_array_equal(A.merge_heads(y.numpy()), merged.numpy(), err_msg="merge_heads is transpose + view")
        np.testing.assert_allclose(A.merge_heads(heads) @ W_O, (merged @ to_torch(W_O)).numpy(), **TOL)
        np.testing.assert_allclose(A.multi_head_attention(X, *Ws, n_heads, mask=mask)[0],
                                   (merged @ to_torch(W_O)).numpy(), **TOL)


def torch_mha(d_model, n_heads, W_Q, W_K, W_V, W_O, biases=None):
    """An nn.MultiheadAttention in float64 carrying our weights. torch computes x @ W.T, we x @ W."""
    mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=biases is not None, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(to_torch(np.concatenate([W_Q.T, W_K.T, W_V.T])))  # (3·d_model, d_model)
        mha.out_proj.weight.copy_(to_torch(W_O.T))
        if biases is not None:
            b_Q, b_K, b_V, b_O = biases
            mha.in_proj_bias.copy_(to_torch(np.concatenate([b_Q, b_K, b_V])))
            mha.out_proj.bias.copy_(to_torch(b_O))
    return mha.eval()


def mha_case(seed):
    rng = np.random.default_rng(10_000 + seed)
    n_heads = int(rng.integers(1, 5))
    d_model = n_heads * int(rng.integers(1, 5))
    batch, n = int(rng.integers(1, 4)), int(rng.integers(1, 9))
    X = rng.normal(size=(batch, n, d_model))
    Ws = [rng.normal(scale=d_model**-0.5, size=(d_model, d_model)) for _ in range(4)]
    return rng, n_heads, d_model, batch, n, X, Ws


@pytest.mark.parametrize("seed", range(120))
def test_multihead_attention_against_torch(seed):
    rng, n_heads, d_model, batch, n, X, Ws = mha_case(seed)
    mha = torch_mha(d_model, n_heads, *Ws)
    # A causal mask and a padding mask, combined with & on our side; torch's masks say True = blocked.
    lengths = rng.integers(1, n + 1, size=batch)  # at least one key, so torch has no all-masked row
    causal, padding = A.causal_mask(n), A.padding_mask(lengths, n)
    with torch.no_grad():
        expected, expected_weights = mha(to_torch(X), to_torch(X), to_torch(X), attn_mask=to_torch(~causal),
                                         key_padding_mask=to_torch(~padding[:, 0, :]), need_weights=True,
                                         average_attn_weights=False)
    out, weights = A.multi_head_attention(X, *Ws, n_heads, mask=causal & padding)
    assert weights.shape == (batch, n_heads, n, n)
    np.testing.assert_allclose(weights, expected_weights.numpy(), **TOL)
    np.testing.assert_allclose(out, expected.numpy(), **TOL)


@pytest.mark.parametrize("seed", range(60))
def test_multihead_attention_with_biases_against_torch(seed):
    rng, n_heads, d_model, batch, n, X, Ws = mha_case(seed)
    biases = [rng.normal(size=d_model) for _ in range(4)]
    mha = torch_mha(d_model, n_heads, *Ws, biases=biases)
    with torch.no_grad():
        expected, expected_weights = mha(to_torch(X), to_torch(X), to_torch(X), need_weights=True,
                                         average_attn_weights=False)
    out, weights = A.multi_head_attention(X, *Ws, n_heads, None, *biases)
    np.testing.assert_allclose(weights, expected_weights.numpy(), **TOL)
    np.testing.assert_allclose(out, expected.numpy(), **TOL)


def test_float32_agrees_with_torch_float32():
    Q, K, V, mask, _ = sdpa_case(4)
    Q, K, V = (x.astype(np.float32) for x in (Q, K, V))
    expected = F.scaled_dot_product_attention(to_torch(Q), to_torch(K), to_torch(V), attn_mask=to_torch(mask))
    out, weights = A.attend(Q, K, V, mask)
    assert out.dtype == weights.dtype == np.float32
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-5, atol=1e-5)


def test_the_masks_docstring_names_the_torch_api_whose_convention_it_shares():
    """attention/masks.py (shown on the masks page) says True = may attend is scaled_dot_product_attention's
    convention, not "PyTorch's": nn.MultiheadAttention reads the same mask the other way round."""
    import attention.masks

    summary = attention.masks.__doc__.splitlines()[0]
    assert "True = may attend (the convention of PyTorch's scaled_dot_product_attention)" in summary
    causal = A.causal_mask(4)
    x = to_torch(np.random.default_rng(0).normal(size=(1, 4, 4)))
    with torch.no_grad():
        sdpa = F.scaled_dot_product_attention(x, x, x, attn_mask=to_torch(causal))
        mha = torch.nn.MultiheadAttention(4, 1, batch_first=True, dtype=torch.float64).eval()
        _, mha_weights = mha(x[:, 1:3], x, x, attn_mask=to_torch(causal[1:3]))  # rows with a blocked key left
    np.testing.assert_allclose(sdpa.numpy(), A.attend(x.numpy(), x.numpy(), x.numpy(), causal)[0], **TOL)
    # our mask given to nn.MultiheadAttention blocks exactly the keys we allow
    assert (mha_weights.numpy()[0][causal[1:3]] == 0).all() and (mha_weights.numpy()[0][~causal[1:3]] > 0).all()
