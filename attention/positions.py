"""Positions: what tells attention where a token sits (on its own, with no mask, it cannot; see the page
"The output", section "Word order").

Both functions turn a position p into angles p·ω_i, one per pair of dimensions, with the frequencies
ω_i = base^(−2i/d) for i = 0, 1, …, pairs counted from 0 as code counts (the Positions page's ω_r, counted
from 1, is ω_(r−1) here): the first pair turns 1 radian per position, the last base^(−(d−2)/d) radians.

Pairs are interleaved, as in the RoFormer paper (Su et al., 2021) and the original transformer's sinusoids:
pair i is dimensions (2i, 2i + 1), so d = 4 has the pairs (0, 1) and (2, 3). Hugging Face's LLaMA code pairs
split halves instead, dimension i with i + d/2; the two agree after reordering the dimensions.
"""
import numpy as np

from ._checks import as_float_array, at_least, positive_int, real_number


def frequencies(d, base=10000):
    """ω_i = base^(−2i/d) for i = 0 … ⌈d/2⌉ − 1: radians per position of pair i. -> float64 (⌈d/2⌉,)"""
    d = positive_int("d", d)
    base = _base(base)
    return base ** (-np.arange(0, d, 2) / d)


def sinusoidal_positions(n, d, base=10000):
    """The original transformer's position vectors: row p is sin(p·ω_i), cos(p·ω_i) for each pair i.

    -> float64 (n, d): PE[p, 2i] = sin(p·ω_i), PE[p, 2i + 1] = cos(p·ω_i), positions p = 0 … n − 1.
    An odd d ends on a sine without its cosine. The rows are added to the token vectors X before the
    first attention layer.
    """
    n = positive_int("n", n, minimum=0)
    d = positive_int("d", d)
    angles = np.arange(n, dtype=np.float64)[:, None] * frequencies(d, base)[None, :]  # (n, 1) x (1, ⌈d/2⌉)
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d // 2])
    return pe


def rope(x, positions, base=10000):
    """Rotary position embedding (RoPE): each pair of x's entries turned by the angle position · ω_i.

    x (..., n, d), d even: queries or keys of one head; positions: real numbers whose shape broadcasts
    to x.shape[:-1] (usually (n,), the positions 0 … n − 1) -> (..., n, d), the dtype of x.
    Pair i is (x[2i], x[2i + 1]) (interleaved, as RoFormer), turned counter-clockwise by θ = p·ω_i:
    (a, b) -> (a cos θ − b sin θ, a sin θ + b cos θ). Norms are kept, and the score of a query rotated
    to position p against a key rotated to position p′ depends on p − p′ only.
    """
    x = as_float_array("x", x)
    at_least("x", x, 2, "(..., n, d)")
    d = x.shape[-1]
    if d == 0 or d % 2:
        raise ValueError(f"x's last axis d = {d} must be even and >= 2: RoPE turns the pairs (x0, x1), (x2, x3), …; "
                         f"got shape {x.shape}")
    positions = as_float_array("positions", positions).astype(np.float64)
    try:
        shape = np.broadcast_shapes(positions.shape, x.shape[:-1])
    except ValueError:
        shape = None
    if shape != x.shape[:-1]:
        raise ValueError(f"positions of shape {positions.shape} do not broadcast to x's shape without its last axis "
                         f"{x.shape[:-1]} (x {x.shape})")
    angles = positions[..., None] * frequencies(d, base)  # (..., n, 1) x (d/2,) -> (..., n, d/2); every ω_i <= 1
    cos, sin = np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., n, d/2) each: the two entries of every pair
    out = np.empty(x.shape, dtype=x.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
    if not np.isfinite(out).all():
        raise ValueError(f"the rotated x of shape {x.shape} overflowed {x.dtype}: use smaller x"
                         + ("" if x.dtype == np.float64 else ", or float64"))
    return out


def _base(base):
    value = real_number("base", base)
    if value < 1:
        raise ValueError(f"base must be >= 1 (the frequencies base^(−2i/d) must not grow past 1), got {base}")
    return value
