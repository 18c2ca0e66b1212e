"""The built site's JavaScript, run in Chromium, against attention/ and figures_src/heatmap.py.

Every step the interactive heatmap recomputes (scores, scaling, masks, softmax, entropy, the weighted sum
of values) agrees with the library to 1e-9 on 60 seeded cases; its colours are matplotlib's colormaps and
its numbers print exactly as the static figures print them.
"""
import math

import matplotlib as mpl
import numpy as np
import pytest

import attention
from figures_src.engine.heatmap import SCORE_CMAP, WEIGHT_CMAP, colour_scale
from figures_src.engine.text import num as format_number

TOLERANCE = 1e-9
N_CASES = 60
MULTIPLIERS = (0.1, 1.0, 10.0)  # the ends and the middle of the page's slider, besides random ones


def make_case(seed):
    """Random shapes, inputs, scale and one of four mask kinds, all from `seed`."""
    rng = np.random.default_rng(seed)
    n_q, n_k = int(rng.integers(1, 8)), int(rng.integers(1, 9))
    d_k, d_v = int(rng.integers(1, 7)), int(rng.integers(1, 6))
    spread = float(rng.choice([0.5, 1.0, 3.0]))
    Q = rng.normal(0, spread, (n_q, d_k))
    K = rng.normal(0, spread, (n_k, d_k))
    V = rng.normal(0, 1, (n_k, d_v))
    multiplier = MULTIPLIERS[seed] if seed < len(MULTIPLIERS) else float(10 ** rng.uniform(-1, 1))
    kind = ["none", "causal", "padding", "random"][seed % 4]
    if kind == "none":
        mask = None
    elif kind == "causal":
        mask = attention.causal_mask(n_q, n_k)
    elif kind == "padding":
        length = int(rng.integers(1, n_k + 1))
        mask = np.broadcast_to(attention.padding_mask([length], n_k)[0], (n_q, n_k)).copy()
    else:
        mask = rng.random((n_q, n_k)) < 0.6  # some rows may have no allowed key at all
    return {"Q": Q, "K": K, "V": V, "factor": multiplier / math.sqrt(d_k), "mask": mask}


def reference(case):
    Q, K, V, factor, mask = case["Q"], case["K"], case["V"], case["factor"], case["mask"]
    scaled = attention.scaled_scores(Q, K, scale=factor)
    if mask is not None:
        scaled = np.where(mask, scaled, -np.inf)
    out, weights = attention.attend(Q, K, V, mask=mask, scale=factor)
    return {
        "scores": attention.scores(Q, K),
        "scaled_scores": scaled,
        "weights": weights,
        "entropy": attention.row_entropy(weights),
        "out": out,
    }


@pytest.fixture
def math_page(page, site_url):
    page.goto(site_url)
    page.evaluate("async (url) => { window.aihMath = await import(url); }", site_url + "javascripts/attention-math.js")
    return page


def test_browser_attention_matches_the_library_on_60_seeded_cases(math_page):
    cases = [make_case(seed) for seed in range(N_CASES)]
    sent = [
        {"Q": c["Q"].tolist(), "K": c["K"].tolist(), "V": c["V"].tolist(), "factor": c["factor"],
         "mask": None if c["mask"] is None else c["mask"].tolist()}
        for c in cases
    ]
    results = math_page.evaluate("(cases) => cases.map((c) => aihMath.attendScores(aihMath.scores(c.Q, c.K), c.V, c.factor, c.mask))", sent)
    kinds = set()
    for seed, (case, got) in enumerate(zip(cases, results)):
        want = reference(case)
        for step, expected in want.items():
            actual = np.array(got[step], dtype=float).reshape(expected.shape)
            assert np.array_equal(np.isneginf(actual), np.isneginf(expected)), f"case {seed}: masked cells of {step} differ"
            finite = np.isfinite(expected)
            error = np.abs(actual[finite] - expected[finite]).max(initial=0.0)
            assert error <= TOLERANCE, f"case {seed}: {step} differs by {error:.3g}"
        kinds.add("none" if case["mask"] is None else "masked")
        if case["mask"] is not None and not case["mask"].all(axis=-1).all():
            kinds.add("row with a masked key")
    assert kinds == {"none", "masked", "row with a masked key"}


def test_colour_tables_are_matplotlibs_colormaps(math_page):
    scales = math_page.evaluate("aihMath.SCALES")
    diverging = mpl.colormaps[SCORE_CMAP]._segmentdata
    nodes = np.array([[row[1] for row in diverging[c]] for c in ("red", "green", "blue")]).T
    assert np.array_equal(np.array(scales["diverging"]), np.round(nodes * 255))
    samples = mpl.colormaps[WEIGHT_CMAP](np.linspace(0, 1, len(scales["sequential"])))[:, :3]
    assert np.array_equal(np.array(scales["sequential"]), np.round(samples * 255))


def test_cell_colours_match_the_static_figures(math_page):
    """Within 4/255 per channel (21 samples of viridis, linearly interpolated), at 2001 values per scale."""
    rng = np.random.default_rng(0)
    limit = 2.7
    tables = {
        "weights": np.linspace(0, 1, 2001),
        "scaled_scores": np.concatenate([np.linspace(-limit, limit, 2001), rng.normal(0, 2, 200)]),
    }
    for quantity, values in tables.items():
        got = math_page.evaluate(
            "([vs, q, l]) => vs.map((v) => aihMath.cellColour(v, q, l))", [values.tolist(), quantity, limit]
        )
        cmap, norm = colour_scale(np.array([[limit, -limit]]), quantity)
        want = cmap(norm(values))[:, :3] * 255
        error = np.abs(np.array(got) - want).max()
        assert error <= 4, f"{quantity}: a colour is {error:.2f}/255 away from matplotlib's"


def test_numbers_print_exactly_like_the_static_figures(math_page):
    rng = np.random.default_rng(1)
    values = np.concatenate([
        rng.normal(0, 3, 500),
        np.arange(-40, 41) / 8,  # exact binary ties at two decimals: 0.125, 0.375, ...
        [0.0, -0.0, -0.001, 0.004999, 0.005, 1.005, 2.675, -np.inf, 123.456],
    ])
    got = math_page.evaluate("(vs) => vs.map((v) => aihMath.formatNumber(v))", values.tolist())
    assert got == [format_number(v) for v in values]
