"""Watch it learn: the backprop example redone with plain loops, the training's gradients against torch autograd,
and the training run doing what the page says it does."""
import json
import math

import numpy as np
import pytest

import attention
from figures_src import build
from figures_src.pages import learning
from figures_src.pages.learning import training

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    out = tmp_path_factory.mktemp("generated")
    build.build(only=["ex-backprop-step", "ex-learning-checkpoints"], force=True, out=out, log=lambda *_: None)
    return {name: json.loads((out / "public" / "examples" / f"{name}.json").read_text(encoding="utf-8"))
            for name in ("ex-backprop-step", "ex-learning-checkpoints")}


def matmul(A, B):
    return [[sum(A[i][c] * B[c][j] for c in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def transpose(A):
    return [list(column) for column in zip(*A)]


def close(actual, expected, where):
    np.testing.assert_allclose(np.array(actual, dtype=float), np.array(expected, dtype=float), rtol=1e-12, atol=1e-12,
                               err_msg=where)


def test_backprop_example_redone_by_hand(published):
    ex = published["ex-backprop-step"]
    s, i, o = ex["steps"], ex["inputs"], ex["outputs"]
    W, V, Q, K, X = s["weights"], s["V"], s["Q"], s["K"], i["X"]
    out = o["out"]
    dO = [[a - t for a, t in zip(row, target)] for row, target in zip(out, i["target"])]
    close(s["dO"], dO, "dO = out − T")
    close(s["loss"], 0.5 * sum(d * d for row in dO for d in row), "loss")
    close(s["dV"], matmul(transpose(W), dO), "dV = Wᵀ dO")
    dW = matmul(dO, transpose(V))
    close(s["dW"], dW, "dW = dO Vᵀ")
    dS = [[w * (g - sum(gk * wk for gk, wk in zip(g_row, w_row))) for w, g in zip(w_row, g_row)]
          for w_row, g_row in zip(W, dW)]
    close(s["dS"], dS, "dS = W ⊙ (dW − rowsum(dW ⊙ W))")
    scale = 1 / math.sqrt(ex["d_k"])
    close(s["dQ"], [[v * scale for v in row] for row in matmul(dS, K)], "dQ = dS K · scale")
    close(s["dK"], [[v * scale for v in row] for row in matmul(transpose(dS), Q)], "dK = dSᵀ Q · scale")
    for name, d in (("W_Q", s["dQ"]), ("W_K", s["dK"]), ("W_V", s["dV"])):
        grad = matmul(transpose(X), d)
        close(s[f"d{name}"], grad, f"d{name} = Xᵀ d{name[-1]}")
        step = [[w - ex["learning_rate"] * g for w, g in zip(w_row, g_row)] for w_row, g_row in zip(i[name], grad)]
        close(o[f"{name}_next"], step, f"{name} after one step")
    assert o["loss_next"] < s["loss"]


def test_backprop_example_against_torch(published):
    ex = published["ex-backprop-step"]
    i = ex["inputs"]
    X = torch.tensor(i["X"], dtype=torch.float64)
    Ws = [torch.tensor(i[name], dtype=torch.float64, requires_grad=True) for name in ("W_Q", "W_K", "W_V")]
    Q, K, V = (X @ W for W in Ws)
    out = torch.softmax(Q @ K.T / math.sqrt(ex["d_k"]), dim=-1) @ V
    loss = 0.5 * ((out - torch.tensor(i["target"], dtype=torch.float64)) ** 2).sum()
    loss.backward()
    for name, W in zip(("W_Q", "W_K", "W_V"), Ws):
        np.testing.assert_allclose(ex["steps"][f"d{name}"], W.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("seed", range(5))
def test_training_gradients_against_torch(seed, scaled):
    rng = np.random.default_rng(seed)
    params = training.initial_parameters(rng, d_k=16)
    tokens = rng.integers(0, training.VOCAB, size=(4, training.N_POSITIONS))
    loss, grads, _ = training.loss_and_gradients(params, tokens, None if scaled else 1.0)

    X = torch.tensor(training.embed(tokens))
    tp = {name: torch.tensor(p, requires_grad=True) for name, p in params.items()}
    Q, K, V = X @ tp["W_Q"], X @ tp["W_K"], X @ tp["W_V"]
    S = Q @ K.transpose(-1, -2) * ((1 / math.sqrt(16)) if scaled else 1.0)
    logits = torch.softmax(S, dim=-1) @ V
    answers = torch.tensor(tokens[:, :-1])
    torch_loss = torch.nn.functional.cross_entropy(logits[:, 1:].reshape(-1, training.VOCAB), answers.reshape(-1))
    torch_loss.backward()
    assert loss == pytest.approx(torch_loss.item(), rel=1e-12)
    for name in params:
        np.testing.assert_allclose(grads[name], tp[name].grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)


def test_training_is_deterministic_and_finds_the_previous_token():
    run = training.Run(seed=0, d_k=8, steps=learning.MAIN.steps)
    first, second = training.train(run), training.train(run)
    for key in ("loss", "match", "grad_W_Q", "entropy"):
        assert np.array_equal(first[key], second[key]), key
    assert first["loss"][0] > 1.5 > 0.1 > first["loss"][-1]
    assert first["match"][-1] > 0.95


def test_checkpoints_example_is_what_the_layer_computes(published):
    ex = published["ex-learning-checkpoints"]
    steps = ex["steps"]
    assert ex["checkpoints"] == list(learning.CHECKPOINTS)
    assert np.array(steps["weights"]).shape == (len(learning.CHECKPOINTS), training.N_POSITIONS, training.N_POSITIONS)
    for c in range(len(ex["checkpoints"])):
        expected = attention.softmax(attention.scaled_scores(steps["Q"][c], steps["K"][c]))
        close(steps["weights"][c], expected, f"checkpoint {c}")
        close(ex["outputs"]["out"][c], expected @ np.array(steps["V"][c]), f"checkpoint {c} output")
    final = np.array(steps["weights"][-1])
    assert training.previous_token_weight(final) > 0.9 > training.previous_token_weight(np.array(steps["weights"][0]))


def test_previous_token_weight_is_one_on_the_sub_diagonal_only():
    n = training.N_POSITIONS
    assert training.previous_token_weight(np.eye(n, k=-1)) == 1
    assert training.previous_token_weight(np.eye(n)) == 0
    assert training.previous_token_weight(np.full((n, n), 1 / n)) == pytest.approx(1 / n)
