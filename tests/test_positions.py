"""Positions: sinusoidal position vectors and RoPE against plain loops and torch, their properties, their errors.

Pairs are interleaved, (x0, x1), (x2, x3), …, as in RoFormer; torch is the outside reference, written two ways:
Meta's original LLaMA code (complex numbers, interleaved pairs) and Hugging Face's (split halves, `rotate_half`),
which agrees with ours once the dimensions are reordered.
"""
import math
import re

import numpy as np
import pytest

import attention as A
import loop_reference as loops

try:
    import torch
except ImportError:  # a test-only dependency (in CI); the loop tests run without it
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

TOL = dict(rtol=1e-12, atol=1e-12)


def random_case(seed):
    """Random x (batch, n, d) with d even, integer positions (n,), and a base."""
    rng = np.random.default_rng(seed)
    batch, n, pairs = int(rng.integers(1, 4)), int(rng.integers(1, 9)), int(rng.integers(1, 9))
    x = rng.normal(scale=2.0, size=(batch, n, 2 * pairs))
    positions = rng.integers(0, 500, size=n)
    base = [10000, 500000, 100, 1][seed % 4]
    return rng, x, positions, base


# --- hand-worked numbers -------------------------------------------------------------------------

def test_sinusoidal_positions_by_hand():
    # d = 4: ω_0 = 1 and ω_1 = 10000^(−2/4) = 1/100, so row p is [sin p, cos p, sin p/100, cos p/100].
    expected = [[math.sin(p), math.cos(p), math.sin(p / 100), math.cos(p / 100)] for p in range(3)]
    np.testing.assert_allclose(A.sinusoidal_positions(3, 4), expected, rtol=1e-15, atol=1e-16)
    np.testing.assert_array_equal(A.sinusoidal_positions(1, 5), [[0.0, 1.0, 0.0, 1.0, 0.0]])


def test_rope_by_hand():
    # One pair turned a quarter turn (position π/2 at ω_0 = 1): (a, b) -> (−b, a).
    np.testing.assert_allclose(A.rope([[3.0, 4.0]], [math.pi / 2]), [[-4.0, 3.0]], atol=1e-15)
    # Position 0 turns nothing.
    x = np.array([[1.0, -2.0, 0.5, 7.0]])
    np.testing.assert_array_equal(A.rope(x, [0]), x)


# --- against plain loops ---------------------------------------------------------------------------

@pytest.mark.parametrize("n, d, base", [(0, 3, 10000), (1, 1, 10000), (7, 4, 10000), (12, 9, 10000), (30, 16, 100), (5, 6, 1)])
def test_sinusoidal_positions_against_loops(n, d, base):
    pe = A.sinusoidal_positions(n, d, base)
    assert pe.shape == (n, d) and pe.dtype == np.float64
    np.testing.assert_allclose(pe, np.array(loops.sinusoidal_positions(n, d, base)).reshape(n, d), **TOL)


@pytest.mark.parametrize("seed", range(24))
def test_rope_against_loops(seed):
    _, x, positions, base = random_case(seed)
    out = A.rope(x, positions, base)
    assert out.shape == x.shape and out.dtype == np.float64
    for b in range(x.shape[0]):
        np.testing.assert_allclose(out[b], loops.rope(x[b].tolist(), positions.tolist(), base), **TOL)


# --- against torch ---------------------------------------------------------------------------------

def torch_sinusoidal(n, d, base=10000.0):
    """The PyTorch tutorial's PositionalEncoding table (even d)."""
    position = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(base) / d))
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def torch_rope_interleaved(x, positions, base):
    """Meta's original LLaMA `apply_rotary_emb`: each interleaved pair is a complex number, times e^(i p ω)."""
    d = x.shape[-1]
    freqs = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    freqs_cis = torch.polar(torch.ones(len(positions), d // 2, dtype=torch.float64), torch.outer(positions, freqs))
    x_complex = torch.view_as_complex(x.reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(x_complex * freqs_cis).flatten(-2)


def torch_rope_split_halves(x, positions, base):
    """Hugging Face's LLaMA: dimension i paired with i + d/2, `x * cos + rotate_half(x) * sin`."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    emb = torch.cat([torch.outer(positions, inv_freq)] * 2, dim=-1)  # (n, d)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    rotate_half = torch.cat((-x2, x1), dim=-1)
    return x * emb.cos() + rotate_half * emb.sin()


@needs_torch
@pytest.mark.parametrize("n, d", [(1, 2), (10, 4), (50, 64), (7, 512)])
def test_sinusoidal_positions_against_torch(n, d):
    np.testing.assert_allclose(A.sinusoidal_positions(n, d), torch_sinusoidal(n, d).numpy(), **TOL)


@needs_torch
@pytest.mark.parametrize("seed", range(40))
def test_rope_against_torch_interleaved(seed):
    _, x, positions, base = random_case(seed)
    expected = torch_rope_interleaved(torch.from_numpy(x), torch.from_numpy(positions.astype(np.float64)), base)
    np.testing.assert_allclose(A.rope(x, positions, base), expected.numpy(), **TOL)


@needs_torch
@pytest.mark.parametrize("seed", range(20))
def test_split_halves_is_ours_with_the_dimensions_reordered(seed):
    """What the docstring says: Hugging Face's pairs (i, i + d/2) are ours once entry i + d/2 sits beside entry i."""
    _, x, positions, base = random_case(seed)
    d = x.shape[-1]
    interleave = np.stack([np.arange(d // 2), np.arange(d // 2) + d // 2], axis=-1).ravel()  # 0, d/2, 1, d/2+1, …
    ours = np.empty_like(x)
    ours[..., interleave] = A.rope(x[..., interleave], positions, base)
    expected = torch_rope_split_halves(torch.from_numpy(x), torch.from_numpy(positions.astype(np.float64)), base)
    np.testing.assert_allclose(ours, expected.numpy(), **TOL)
    if d > 2:  # without the reordering the two conventions differ
        assert not np.allclose(A.rope(x, positions, base), expected.numpy())


# --- properties ------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_rope_keeps_every_norm(seed):
    _, x, positions, base = random_case(seed)
    out = A.rope(x, positions, base)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-13)
    # pair by pair, too: each pair is turned on its own circle
    pairs = lambda v: np.hypot(v[..., 0::2], v[..., 1::2])  # noqa: E731
    np.testing.assert_allclose(pairs(out), pairs(x), rtol=1e-13)


@pytest.mark.parametrize("seed", range(20))
def test_the_score_depends_only_on_the_offset(seed):
    """q at position m against k at position n: the same score for every (m, n) with the same m − n."""
    rng = np.random.default_rng(100 + seed)
    d = 2 * int(rng.integers(1, 9))
    q, k = rng.normal(size=(1, d)), rng.normal(size=(1, d))
    base = [10000, 100, 10][seed % 3]
    m, n = (int(v) for v in rng.integers(0, 200, size=2))
    score = (A.rope(q, [m], base) @ A.rope(k, [n], base).T).item()
    for shift in rng.integers(-m, 300, size=5):  # shifted together, both stay >= 0
        shifted = (A.rope(q, [m + shift], base) @ A.rope(k, [n + shift], base).T).item()
        assert shifted == pytest.approx(score, rel=1e-10, abs=1e-10)
    # and it is the score of q, unturned, against k turned back by the offset
    assert (q @ A.rope(k, [n - m], base).T).item() == pytest.approx(score, rel=1e-10, abs=1e-10)


def test_a_score_table_of_positions_is_constant_along_each_diagonal():
    rng = np.random.default_rng(7)
    q, k = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
    positions = np.arange(12)
    Q = A.rope(np.repeat(q, 12, axis=0), positions)  # the same query at positions 0 … 11
    K = A.rope(np.repeat(k, 12, axis=0), positions)
    S = A.scores(Q, K)  # (12, 12): entry (m, n) is q at m against k at n
    for offset in range(-11, 12):
        diagonal = np.diagonal(S, offset=-offset)  # the cells with m − n = offset
        np.testing.assert_allclose(diagonal, diagonal[0], rtol=1e-12, atol=1e-12)
    assert not np.allclose(S, S[0, 0])  # while different offsets give different scores


def test_turning_twice_adds_the_positions():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 6))
    a, b = rng.integers(0, 50, size=5), rng.integers(0, 50, size=5)
    np.testing.assert_allclose(A.rope(A.rope(x, a), b), A.rope(x, a + b), **TOL)
    np.testing.assert_allclose(A.rope(A.rope(x, a), -a), x, **TOL)


def test_rope_broadcasts_positions_over_batch_and_heads():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 5, 4))  # (batch, n_heads, n, d)
    out = A.rope(x, np.arange(5))
    for b in range(2):
        for h in range(3):
            np.testing.assert_allclose(out[b, h], A.rope(x[b, h], np.arange(5)), rtol=0, atol=0)
    # one position per query of every sequence, and one position for all of them
    per_sequence = rng.integers(0, 9, size=(2, 1, 5))
    np.testing.assert_allclose(A.rope(x, per_sequence)[1, 2], A.rope(x[1, 2], per_sequence[1, 0]), rtol=0, atol=0)
    np.testing.assert_allclose(A.rope(x, 3), A.rope(x, np.full(5, 3)), rtol=0, atol=0)


def test_float32_in_float32_out():
    x = np.random.default_rng(5).normal(size=(4, 8)).astype(np.float32)
    out = A.rope(x, np.arange(4))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, A.rope(x.astype(np.float64), np.arange(4)), rtol=1e-6, atol=1e-6)


def test_sinusoidal_rows_lie_on_unit_circles_and_start_at_sin0_cos0():
    pe = A.sinusoidal_positions(40, 10)
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, rtol=1e-15)
    np.testing.assert_array_equal(pe[0], [0.0, 1.0] * 5)


# --- errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, error, message", [
    ((-1, 4), ValueError, "n must be >= 0, got -1"),
    ((3, 0), ValueError, "d must be >= 1, got 0"),
    ((2.5, 4), TypeError, "n must be an integer, got float"),
    ((3, "4"), TypeError, "d must be an integer, got str"),
    ((True, 4), TypeError, "n must be an integer, got bool"),
    ((3, 4, 0.5), ValueError, "base must be >= 1"),
    ((3, 4, float("nan")), ValueError, "base must be finite, got nan"),
    ((3, 4, "10000"), TypeError, "base must be a real number, got str"),
])
def test_sinusoidal_positions_errors(args, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.sinusoidal_positions(*args)


X = np.ones((3, 4))


@pytest.mark.parametrize("x, positions, kwargs, error, message", [
    (np.ones((3, 3)), [0, 1, 2], {}, ValueError, "x's last axis d = 3 must be even and >= 2: RoPE turns the pairs (x0, x1), (x2, x3), …; got shape (3, 3)"),
    (np.ones((3, 0)), [0, 1, 2], {}, ValueError, "x's last axis d = 0 must be even"),
    (np.ones(4), [0], {}, ValueError, "x must have shape (..., n, d), got shape (4,)"),
    (np.array([[1.0, np.nan]]), [0], {}, ValueError, "x of shape (1, 2) contains nan at index (0, 1); it must hold finite numbers"),
    (X, [0, np.nan, 2], {}, ValueError, "positions of shape (3,) contains nan at index (1,)"),
    (X, [0, 1], {}, ValueError, "positions of shape (2,) do not broadcast to x's shape without its last axis (3,) (x (3, 4))"),
    (X, np.zeros((2, 3)), {}, ValueError, "positions of shape (2, 3) do not broadcast"),
    (X, [True, False, True], {}, TypeError, "positions must hold real numbers, got dtype bool"),
    (X, None, {}, TypeError, "positions must be an array of numbers, got NoneType"),
    ("abc", [0], {}, TypeError, "x must be an array of numbers, got str"),
    (X, [0, 1, 2], {"base": 0}, ValueError, "base must be >= 1"),
    (X, [0, 1, 2], {"base": -5}, ValueError, "base must be >= 1"),
    (X, [0, 1, 2], {"base": np.inf}, ValueError, "base must be finite"),
    (np.full((1, 2), 1.5e308), [math.pi / 4], {}, ValueError, "the rotated x of shape (1, 2) overflowed float64: use smaller x"),
    (np.full((1, 2), 3e38, dtype=np.float32), [math.pi / 4], {}, ValueError, "overflowed float32: use smaller x, or float64"),
])
def test_rope_errors(x, positions, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        A.rope(x, positions, **kwargs)


# --- the page: its worked example by plain loops, and its claims failing the build when false ------

def test_the_rope_example_redone_with_plain_loops():
    from figures_src.pages import positions as page

    example = page.EX_ROPE.compute()
    q, k = example["inputs"]["Q"].tolist(), example["inputs"]["K"].tolist()
    positions = example["positions"]
    Q_turned = loops.rope(q * len(positions), positions, example["base"])
    K_turned = loops.rope(k * len(positions), positions, example["base"])
    np.testing.assert_allclose(example["steps"]["Q_rotated"], Q_turned, **TOL)
    np.testing.assert_allclose(example["steps"]["K_rotated"], K_turned, **TOL)
    np.testing.assert_allclose(example["steps"]["scores"], loops.scores(Q_turned, K_turned), **TOL)
    angles = [[p / example["base"] ** (2 * r / len(q[0])) for r in range(len(q[0]) // 2)] for p in positions]
    np.testing.assert_allclose(example["steps"]["angles"], angles, **TOL)


def test_the_offsets_table_fails_the_build_when_its_claim_does_not_hold(monkeypatch):
    from figures_src.engine import BuildError
    from figures_src.pages import positions as page

    S = np.array(page.EX_ROPE.compute()["steps"]["scores"])
    page.offset_rows(S)  # holds as built
    broken = S.copy()
    broken[4, 1] += 1e-9  # one cell of the offset-3 diagonal moved
    with pytest.raises(BuildError, match=r"the same offset 3 but scores"):
        page.offset_rows(broken)
    with pytest.raises(BuildError, match="different offsets print the same score"):
        page.offset_rows(np.ones_like(S))
    monkeypatch.setitem(page.OFFSETS, 3, [(3, 0), (4, 2)])
    with pytest.raises(BuildError, match=re.escape("do not all have p − p′ = 3")):
        page.offset_rows(S)


def test_the_worked_turn_and_score_fail_the_build_when_the_printed_numbers_do_not_add_up():
    from figures_src.engine import BuildError
    from figures_src.pages import positions as page

    example = page.EX_ROPE.compute()
    q, angles, turned = example["inputs"]["Q"][0], example["steps"]["angles"][5], example["steps"]["Q_rotated"][5]
    assert page.turn_by_hand(q, angles, turned)["turned"] == [page.num(v, 4) for v in turned]
    with pytest.raises(BuildError, match="no printing of cos and sin"):
        page.turn_by_hand(q, angles, turned + 0.01)
    k_turned = example["steps"]["K_rotated"][2]
    q_text, k_text = [page.num(v, 4) for v in turned], [page.num(v, 4) for v in k_turned]
    page.dot_by_hand(q_text, k_text, example["steps"]["scores"][5, 2])
    with pytest.raises(BuildError, match="the products added up by hand give"):
        page.dot_by_hand(q_text, k_text, example["steps"]["scores"][5, 2] + 0.01)
