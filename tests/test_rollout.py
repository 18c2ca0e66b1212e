"""Attention rollout: models/minilm/rollout.py by hand, its errors, and docs/widgets/your-sentence/rollout.js against it.

- A two-layer, two-token example worked by hand (in the comments) gives the numbers written here.
- Bad input raises a ValueError naming what is wrong.
- The JS rollout (run by Node, as the your-sentence worker runs it) equals numpy's within 1e-6, on random
  weights and on a real sentence's.
"""
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from models.minilm.encoder import encode
from models.minilm.model import load_model
from models.minilm.rollout import attention_rollout

ROOT = Path(__file__).resolve().parents[1]
JS_TOLERANCE = 1e-6


def test_two_layers_by_hand():
    # Layer 1, two heads: one sends every row to token 1, the other to token 2. Their mean is 1/2 everywhere;
    # plus the identity, [[1.5, 0.5], [0.5, 1.5]]; each row divided by its sum 2: Â_1 = [[0.75, 0.25], [0.25, 0.75]].
    layer1 = [[[1, 0], [1, 0]], [[0, 1], [0, 1]]]
    # Layer 2, two equal heads [[1, 0], [0.5, 0.5]]: plus I, [[2, 0], [0.5, 1.5]]; halved: Â_2 = [[1, 0], [0.25, 0.75]].
    layer2 = [[[1, 0], [0.5, 0.5]], [[1, 0], [0.5, 0.5]]]
    # R_2 = Â_2 · Â_1: row 1 = 1 × [0.75, 0.25] = [0.75, 0.25];
    #                  row 2 = 0.25 × [0.75, 0.25] + 0.75 × [0.25, 0.75] = [0.1875 + 0.1875, 0.0625 + 0.5625].
    rollout = attention_rollout(np.array([layer1, layer2], dtype=float))
    assert rollout.shape == (2, 2, 2)
    assert np.allclose(rollout[0], [[0.75, 0.25], [0.25, 0.75]], atol=1e-15)
    assert np.allclose(rollout[1], [[0.75, 0.25], [0.375, 0.625]], atol=1e-15)


def test_rows_stay_shares_of_the_input():
    weights = random_weights(np.random.default_rng(0), 4, 3, 6)
    rollout = attention_rollout(weights)
    assert np.allclose(rollout.sum(axis=-1), 1) and (rollout >= 0).all()
    assert np.allclose(attention_rollout(np.broadcast_to(np.eye(6), (4, 3, 6, 6))), np.eye(6))  # attention to self only: nothing mixes


@pytest.mark.parametrize("weights, message", [
    (np.ones((2, 3, 3)) / 3, r"\(n_layers, n_heads, n, n\) with n ≥ 1, got shape \(2, 3, 3\)"),
    (np.ones((1, 1, 2, 3)) / 3, r"got shape \(1, 1, 2, 3\)"),
    (np.ones((1, 1, 0, 0)), r"got shape \(1, 1, 0, 0\)"),
    (np.ones((1, 1, 2, 2), dtype=int), "floating point, got int64"),
    (np.full((1, 1, 2, 2), np.nan), "finite numbers"),
    (np.array([[[[1.5, -0.5], [0.5, 0.5]]]]), "must not be negative"),
    (np.array([[[[0.5, 0.5], [0.5, 0.6]]], [[[0.5, 0.5], [0.5, 0.5]]]]), "layer 1, head 1, row 2 adds up to 1.100000"),
])
def test_bad_weights_are_refused_by_name(weights, message):
    with pytest.raises(ValueError, match=message):
        attention_rollout(weights)


def random_weights(rng, n_layers, n_heads, n):
    scores = rng.normal(size=(n_layers, n_heads, n, n)) * 3
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)).astype(np.float32)  # float32, as the worker holds them


def js_rollouts(cases, tmp_path):
    (tmp_path / "cases.json").write_text(json.dumps([{"weights": w.tolist()} for w in cases]))
    node = shutil.which("node")
    assert node, "Node.js is needed (make test installs it)"
    result = subprocess.run([node, "tests/node/rollout.mjs", str(tmp_path / "cases.json")], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return [np.array(flat).reshape(w.shape[-1], w.shape[-1]) for flat, w in zip(json.loads(result.stdout), cases)]


def test_js_rollout_equals_numpy(tmp_path):
    rng = np.random.default_rng(43)
    cases = [random_weights(rng, 6, 12, n) for n in (1, 2, 5, 16, 40)] + [random_weights(rng, 2, 1, 9)]
    model = load_model()
    _, ids = model.tokenize("The animal didn't cross the street because it was too tired.")
    cases.append(encode(model.params, model.config, ids).weights.astype(np.float32))
    worst = 0.0
    for weights, js in zip(cases, js_rollouts(cases, tmp_path)):
        reference = attention_rollout(weights)[-1]
        worst = max(worst, float(np.abs(js - reference).max()))
    print(f"\nJS vs numpy rollout, {len(cases)} cases: max |Δ| {worst:.2e}")
    assert worst <= JS_TOLERANCE
