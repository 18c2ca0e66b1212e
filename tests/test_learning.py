"""Watch it learn: the backprop example redone with plain loops, the training's gradients against torch autograd,
and the training run doing what the page says it does."""
import json
import math
import re

import numpy as np
import pytest

import attention
from figures_src.engine.text import PUBLISHED_TOLERANCE
from figures_src.pages import learning
from models import learning as training

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def published(fresh_figures):
    """The two examples as built from scratch (the session's `fresh_figures`, tests/conftest.py)."""
    return {name: json.loads((fresh_figures / "public" / "examples" / f"{name}.json").read_text(encoding="utf-8"))
            for name in ("ex-backprop-step", "ex-learning-checkpoints")}


def matmul(A, B):
    return [[sum(A[i][c] * B[c][j] for c in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def transpose(A):
    return [list(column) for column in zip(*A)]


def close(actual, expected, where):
    """Equal within PUBLISHED_TOLERANCE of the largest entry (at least 1): the published JSON rounds each array."""
    expected = np.array(expected, dtype=float)
    largest = max(1.0, np.abs(expected).max(initial=0))
    np.testing.assert_allclose(np.array(actual, dtype=float), expected, rtol=0, atol=PUBLISHED_TOLERANCE * largest,
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
        close(ex["steps"][f"d{name}"], W.grad.numpy(), f"d{name} is autograd's gradient")


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


@pytest.mark.parametrize("model", ["learning", "decoder"])
def test_one_adam_step_for_both_models_and_it_lands_where_torchs_adam_does(model):
    """models/learning.py's adam_step is the one Adam: the decoder trains with it too, at its own learning rate
    (one rule, one place), and a few steps of it land where torch.optim.Adam does from the same gradients."""
    from models import decoder  # noqa: PLC0415

    assert decoder.adam_step is training.adam_step, "the decoder and the learning layer share one adam_step"
    rate = training.ADAM["learning_rate"] if model == "learning" else decoder.Training().learning_rate
    rng = np.random.default_rng(3)
    params = {"W_Q": rng.normal(size=(4, 3)), "b": rng.normal(size=3)}
    theirs = {name: torch.tensor(p.copy(), requires_grad=True) for name, p in params.items()}
    optimizer = torch.optim.Adam(list(theirs.values()), lr=rate, betas=(training.ADAM["beta1"], training.ADAM["beta2"]),
                                 eps=training.ADAM["epsilon"])
    moments = {name: (np.zeros_like(p), np.zeros_like(p)) for name, p in params.items()}
    for done in range(6):
        grads = {name: rng.normal(size=p.shape) * 10.0 ** (done - 3) for name, p in params.items()}
        if model == "learning":
            training.adam_step(params, grads, moments, done)  # its defaults are the page's ADAM
        else:
            decoder.adam_step(params, grads, moments, done, learning_rate=rate)
        for name, tensor in theirs.items():
            tensor.grad = torch.tensor(grads[name])
        optimizer.step()
    for name, tensor in theirs.items():
        np.testing.assert_allclose(params[name], tensor.detach().numpy(), rtol=0, atol=1e-12, err_msg=name)


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


# ---------------------------------------------------------------- what the backprop example's text says (issue 40)

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def backprop():
    example = learning.EX_BACKPROP.compute()
    return example, learning.backprop_snippets(example)


def printed_table(markdown, corner):
    """The rows of the Markdown table whose corner cell is `corner`: {row label: [numbers]}."""
    rows, inside = {}, False
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == corner:
            inside = True
        elif inside and line.startswith("| **"):
            rows[cells[0].strip("*")] = [float(c.replace("−", "-")) for c in cells[1:]]
        elif inside and not line.startswith("| ---"):
            inside = False
    return rows


def test_worked_entry_names_the_row_by_its_one_based_position(backprop):
    example, parts = backprop
    import re
    named = re.findall(r"Row (\d+) \(“(\w+)”\)", parts["dS"])
    assert named, parts["dS"]
    for number, token in named:
        assert example["tokens"][int(number) - 1] == token, f"row {number} is {example['tokens'][int(number) - 1]!r}, not {token!r}"


def test_ds_sentence_states_the_sign_and_the_direction_the_step_took(backprop):
    example, parts = backprop
    claim = learning.descent_claim(example)
    i, j = claim["i"], claim["j"]
    gradient = example["steps"]["dS"][i][j]
    before, after = claim["before"][i, j], claim["after"][i, j]
    assert np.sign(after - before) == -np.sign(gradient), "the step moved the cited score against its gradient"
    assert ("positive" if gradient > 0 else "negative") in parts["dS"]
    assert ("lowers it" if gradient > 0 else "raises it") in parts["dS"]
    assert f"from {learning.num(before, 3)} to {learning.num(after, 3)}, {'down' if after < before else 'up'}" in parts["step"]
    # the scores after the step are those of a forward pass with the new matrices, by plain numpy
    X = np.array(example["inputs"]["X"])
    Q, K = X @ np.array(example["outputs"]["W_Q_next"]), X @ np.array(example["outputs"]["W_K_next"])
    np.testing.assert_allclose(claim["after"], Q @ K.T / math.sqrt(example["d_k"]), rtol=1e-12)


def test_ds_claim_that_stops_holding_fails_the_build(backprop):
    example, _ = backprop
    doctored = json.loads(json.dumps({k: example[k] for k in ("tokens", "d_k", "inputs", "steps", "outputs")},
                                     default=lambda a: np.asarray(a).tolist()))
    rate = example["learning_rate"]
    for name in ("W_Q", "W_K"):  # a step *up* the gradient: every score moves with it
        doctored["outputs"][f"{name}_next"] = (np.array(example["inputs"][name])
                                               + rate * np.array(example["steps"][f"d{name}"])).tolist()
    with pytest.raises(learning.BuildError, match=r"ex-backprop-step: the score of \('sing', 'birds'\).*against its gradient"):
        learning.descent_claim(doctored)


def test_backprop_example_prints_what_dq_is_made_from(backprop):
    """X, Q, K and S̃ are printed, so dQ = dS̃ K / √d_k checks out by hand from the printed tables."""
    example, parts = backprop
    assert "ex-backprop-step-inputs.md" in (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")
    printed = {corner: printed_table(parts[key], corner)
               for key, corner in (("inputs", "X"), ("inputs", "Q"), ("inputs", "K"), ("inputs", "S̃"),
                                   ("dS", "dS̃"), ("dQ", "dQ"))}
    tokens = example["tokens"]
    for corner, name in (("X", ("inputs", "X")), ("Q", ("steps", "Q")), ("K", ("steps", "K")),
                         ("S̃", ("steps", "scaled_scores"))):
        np.testing.assert_allclose([printed[corner][t] for t in tokens], example[name[0]][name[1]], atol=5e-4, err_msg=corner)
    dS = np.array([printed["dS̃"][t] for t in tokens])
    K = np.array([printed["K"][t] for t in tokens])
    dQ = np.array([printed["dQ"][t] for t in tokens])
    np.testing.assert_allclose(dS @ K / math.sqrt(example["d_k"]), dQ, atol=3e-4)


def test_backprop_text_uses_one_symbol_per_meaning(backprop):
    """A for the weights, dA for their gradient, S̃ for the scaled scores: W only in the projections W_Q, W_K, W_V."""
    _, parts = backprop
    corners = {line.split("|")[1].strip() for part in parts.values() for line in part.splitlines()
               if line.startswith("| ") and not line.startswith("| **") and not line.startswith("| ---")}
    assert {"A", "dA", "dS̃"} <= corners and not {"W", "dW", "dS"} & corners, corners
    page = (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")
    assert r"A = \operatorname{softmax}(\tilde{S})" in page and r"\tilde{S} = Q K^{\text{T}} / \sqrt{d_k}" in page
    assert "W = \\operatorname{softmax}" not in page and "dW = dO" not in page


def test_training_section_names_its_loss_and_says_why_it_differs():
    page = (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")
    training_section = page[page.index("## A layer learns to look one token back"):page.index("## √dₖ, tested by training")]
    assert "**cross-entropy**" in training_section and "half the squared error" in training_section


def test_scale_table_prints_the_median_and_the_seeds_extremes(generated):
    assert learning.spread([0.01, 0.02, 0.7], 4) == "0.0200 (0.0100 to 0.7000)"
    text = "".join((generated / "snippets" / f"learning-scale-{part}.md").read_text(encoding="utf-8")
                   for part in ("numbers", "mechanics"))
    assert "±" not in text
    import re
    cells = re.findall(r"(−?[\d.]+) \((−?[\d.]+) to (−?[\d.]+)\)", text)
    assert len(cells) >= 8, text
    for middle, low, high in cells:
        low, middle, high = (float(x.replace("−", "-")) for x in (low, middle, high))
        assert low <= middle <= high


def this_build_s_learning():
    """The learning module as imported now: a build in this process (a test's) drops the pages' modules and the
    models they import, so a module object imported before it no longer holds the classes the build raises."""
    import importlib  # noqa: PLC0415
    return importlib.import_module("figures_src.pages.learning")


def test_claims_about_the_training_run_fail_the_build_when_false():
    """The page's sentences about the run (the gradient grows then shrinks, the loss falls, the last checkpoint
    looks one token back, the unscaled rows start nearer one-hot) are checked against the data."""
    current = this_build_s_learning()
    steps = np.arange(10.0)
    good = {"loss": 2 - steps / 10, "match": 0.1 + steps / 10, "grad_W_Q": np.array([1, 2, 5, 3, 2, 1, 0.5, 0.4, 0.3, 0.2])}
    assert current.history_claims(good) == 2
    for key, curve in (("grad_W_Q", steps + 1), ("loss", steps), ("match", np.full(10, 0.5))):
        with pytest.raises(current.BuildError, match="learning-history: the page says"):
            current.history_claims({**good, key: curve})
    n = training.N_POSITIONS
    looking_back = np.stack([np.full((n, n), 1 / n), np.eye(n, k=-1) + np.eye(n) * 0.0])
    current.checkpoints_alt({"steps": {"weights": looking_back}, "tokens": list("abcdefgh")})
    with pytest.raises(current.BuildError, match="learning-checkpoints: the page says after the last step"):
        current.checkpoints_alt({"steps": {"weights": np.stack([looking_back[0], np.eye(n)])}, "tokens": list("abcdefgh")})
    seeds, count = len(current.SEEDS), current.WIDE_STEPS
    curves = lambda value: np.full((seeds, count), value)  # noqa: E731
    data = {f"{key}_{label}": curves(value) for label, values in
            (("scaled", {"loss": 0.05, "match": 0.99, "grad_W_Q": 1e-6, "entropy": 1.7}),
             ("unscaled", {"loss": 0.05, "match": 0.99, "grad_W_Q": 1e-12, "entropy": 0.2}))
            for key, value in values.items()}
    data["grad_W_Q_unscaled"][:, 0], data["grad_W_Q_scaled"][:, 0] = 0.2, 0.035  # step 1, as the runs have them
    data["loss_scaled"][:, :5] = data["loss_unscaled"][:, :9] = 2.0  # below the threshold at steps 6 and 10
    assert "left out" not in current.experiment_snippets(data)["details"]  # every run settled: no run is named
    with pytest.raises(current.BuildError, match="learning-scale: the page says the unscaled rows start nearer one-hot"):
        current.experiment_snippets({**data, "entropy_unscaled": curves(1.9)})
    with pytest.raises(current.BuildError, match="learning-scale: the page says at step 1 the gradient reaching W_Q is larger"):
        current.experiment_snippets({**data, "grad_W_Q_unscaled": curves(1e-9)})
    late = data["grad_W_Q_unscaled"].copy()
    late[:, -current.LATE:] = 1e-3  # still moving at the end: above every scaled run's late gradient
    with pytest.raises(current.BuildError, match="learning-scale: the page says once one-hot"):
        current.experiment_snippets({**data, "grad_W_Q_unscaled": late})
    # a run that gets below the threshold only inside the last LATE steps is not yet one-hot there: it is left out
    # of the comparison, and the sentence says over which runs it holds
    late_run = {**data, "grad_W_Q_unscaled": data["grad_W_Q_unscaled"].copy(), "loss_unscaled": data["loss_unscaled"].copy()}
    late_run["grad_W_Q_unscaled"][0, -current.LATE:] = 1e-3
    late_run["loss_unscaled"][0, :count - 10] = 2.0
    text = current.experiment_snippets(late_run)["details"]
    assert (f"each run whose loss was below {current.THRESHOLD} by step {count - current.LATE} "
            f"({seeds - 1} unscaled, {seeds} scaled) lies between 1.0e−12 and 1.0e−12 without the scale") in text
    # row count - 10 of the curve is step count - 9: steps count from 1
    assert (f"The unscaled run of seed 0 is left out: its loss got below {current.THRESHOLD} only at step "
            f"{count - 9}, inside those last {current.LATE} steps, and its median gradient there is still 1.0e−03.") in text
    late_run["loss_unscaled"][:, :count - 10] = 2.0  # no unscaled run gets there before the last LATE steps
    with pytest.raises(current.BuildError, match="learning-scale: the page says some runs of each kind have a loss below"):
        current.experiment_snippets(late_run)


def test_the_gradient_sentence_is_the_runs(generated):
    current = this_build_s_learning()
    text = (generated / "snippets" / "learning-history-gradient.md").read_text(encoding="utf-8")
    grad = current.main_run()["grad_W_Q"]
    peak = int(np.argmax(grad))
    last = current.MAIN.steps  # steps count from 1: row peak of the history is step peak + 1
    assert f"to {current.num(grad[peak], 3)} at step {peak + 1}, then shrinks to {grad[-1]:.5f} at step {last}" in text
    # the value it ends on is the one the table under the figure prints in its last row
    rows = current.history_table(current.main_run())["rows"]
    assert rows[-1][0] == last and rows[-1][-1] == f"{grad[-1]:.5f}"
    assert "learning-history-gradient.md" in (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- the proofreader's findings on learning/ (fix-p3)

PAGE_TEXT = (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")


def test_pages_it_cites_are_named_not_called_the_previous_page():
    """The page before Watch it learn in the nav is Cost; its links go to Why divide by √dₖ, which they name."""
    assert "previous page" not in PAGE_TEXT
    links = re.findall(r"\[([^\]]+)\]\(scaling\.md\)", PAGE_TEXT)
    assert len(links) == 2 and set(links) == {"Why divide by √dₖ"}, links  # a third link would pass the DOM budget
    assert PAGE_TEXT.count("Why divide by √dₖ") == 3


def test_scale_paragraph_quotes_the_medians_its_tables_print():
    """Every number the √dₖ paragraph quotes is the statistic the tables beside it print: the median over the seeds."""
    current = this_build_s_learning()
    data = current.experiment()
    parts = current.experiment_snippets(data)
    text = parts["numbers"] + parts["story"] + parts["details"]
    median = lambda key: np.median(data[key][:, 0])  # noqa: E731
    assert f"a median row entropy of {current.num(median('entropy_unscaled'), 3)} nats, against " \
           f"{current.num(median('entropy_scaled'), 3)}" in text
    assert (f"a median $\\|dW_Q\\|$ of {current.num(median('grad_W_Q_unscaled'), 4)} against "
            f"{current.num(median('grad_W_Q_scaled'), 4)}") in text
    printed = {row.split("|")[1].strip(): row.split("|")[3].strip().split(" ")[0]
               for row in parts["numbers"].splitlines() if row.startswith("| ") and "(" in row}
    un, sc = int(printed["unscaled"]), int(printed["scaled by $1/\\sqrt{d_k}$"])
    assert f"a median of {un} steps against {sc}, {un}/{sc} = {un / sc:.2f} times as many" in text
    assert "on average" not in text


def test_the_step_sentence_names_the_scaled_score_by_query_key_row_and_column(backprop):
    example, parts = backprop
    claim = learning.descent_claim(example)
    i, j, tokens = claim["i"], claim["j"], example["tokens"]
    assert (f"The scaled score of query “{tokens[i]}” on key “{tokens[j]}” (row {i + 1}, column {j + 1}) goes from "
            f"{learning.num(claim['before'][i, j], 3)}") in parts["step"]


def test_the_output_is_o_in_text_tables_and_formulas(backprop):
    _, parts = backprop
    assert "| O |" in parts["forward"] and "| out |" not in parts["forward"]
    assert "\\text{out}" not in parts["forward"] and "\\sum (O - T)^2" in parts["forward"]
    assert "$dO = O - T$" in PAGE_TEXT and "\\text{out}" not in PAGE_TEXT


def test_the_tables_say_they_are_rounded_where_they_start():
    """A printed row of A adds up to 0.999 and dS̃ K/2 gives 0.0799 where dQ prints 0.0800: said once, before them."""
    start = PAGE_TEXT.index("## One step by hand")
    said = PAGE_TEXT.index("computed from unrounded values")
    assert start < said < PAGE_TEXT.index("ex-backprop-step-forward.md")


def test_checkpoint_captions_say_what_is_shown_with_its_colours_and_mean():
    """The static figure says which colour is a weight near 1; the example ships, per checkpoint, the caption the
    interactive figure shows, with that checkpoint's mean weight on i − 1."""
    import matplotlib as mpl  # noqa: PLC0415
    current = this_build_s_learning()
    example = current.EX_CHECKPOINTS.compute()
    caption = current.checkpoints_caption(example)
    assert "yellow at 1" in caption and "dark purple at 0" in caption
    red, green, blue, _ = mpl.colormaps[current.heatmap.__globals__["WEIGHT_CMAP"]](1.0)
    assert red > 0.9 and green > 0.85 and blue < 0.2, "the colour of 1 is yellow"
    captions = example["leading_axis"]["captions"]["weights"]
    assert len(captions) == len(example["checkpoints"])
    for step, weights, text in zip(example["checkpoints"], example["steps"]["weights"], captions):
        mean = current.num(training.previous_token_weight(np.asarray(weights)), 2)
        assert f"after {step} steps of training" in text and f"the mean weight on it here is {mean}." in text
        assert "yellow at 1" in text


# ---------------------------------------------------------------- dX, what the layer below receives (issue 54)

def test_backprop_example_goes_on_to_dx_as_torch_and_loops_find_it(backprop):
    """The example's dX is the gradient at X that torch's autograd finds, and the sum of the three paths
    dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ added up entry by entry."""
    example, _ = backprop
    i, s = example["inputs"], example["steps"]
    assert "dX" in s, "ex-backprop-step's JSON carries dX, the gradient the layer below receives"
    X = torch.tensor(np.asarray(i["X"]), dtype=torch.float64, requires_grad=True)
    Q, K, V = (X @ torch.tensor(np.asarray(i[name]), dtype=torch.float64) for name in ("W_Q", "W_K", "W_V"))
    out = torch.softmax(Q @ K.T / math.sqrt(example["d_k"]), dim=-1) @ V
    (0.5 * ((out - torch.tensor(np.asarray(i["target"]))) ** 2).sum()).backward()
    np.testing.assert_allclose(s["dX"], X.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg="dX is autograd's gradient at X")
    by_paths = [[sum(s[f"d{p}"][r][k] * i[f"W_{p}"][c][k] for p in "QKV" for k in range(example["d_k"]))
                 for c in range(len(i["X"][0]))] for r in range(len(i["X"]))]
    close(s["dX"], by_paths, "dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ")


def test_dx_checks_out_by_hand_from_the_printed_numbers(backprop):
    """The dX table prints the example's dX; its worked entry's products use the printed rows of dQ, dK, dV and the
    printed projections, and each sum on the page is the exact sum of those products."""
    from decimal import Decimal  # noqa: PLC0415
    example, parts = backprop
    tokens = example["tokens"]
    printed = {corner: printed_table(parts[key], corner) for key, corner in
               (("dX", "dX"), ("dQ", "dQ"), ("dK", "dK"), ("dV", "dV"), *(("projections", f"$W_{p}$") for p in "QKV"))}
    np.testing.assert_allclose([printed["dX"][t] for t in tokens], example["steps"]["dX"], atol=5e-4,
                               err_msg="the dX table prints the example's dX")
    for p in "QKV":
        assert [printed[f"$W_{p}$"][str(r + 1)] for r in range(len(example["inputs"]["X"][0]))] == \
            np.asarray(example["inputs"][f"W_{p}"]).tolist(), f"W_{p} is printed in full (its numbers have one decimal)"
    head = re.search(r"Row (\d+) \(“\w+”\), column (\d+), the largest entry, path by path", parts["dX"])
    assert head, parts["dX"]
    row, column = (int(x) for x in head.groups())
    token = tokens[row - 1]
    lines = [line.strip("| ").split(" | ") for line in parts["dX"].splitlines()
             if re.match(r"\| (\d+|sum) \|", line)]
    dec = lambda text: Decimal(text.replace("−", "-").strip("()"))  # noqa: E731
    terms, sums = lines[:-1], [dec(x) for x in lines[-1][1:]]
    assert [int(t[0]) for t in terms] == list(range(1, example["d_k"] + 1)), "one line per term c of the dot products"
    assert re.search(r"^\| c \| via dQ \| via dK \| via dV \|$", parts["dX"], flags=re.M) and "line k" not in parts["dX"], (
        "the worked dX entry counts its terms with c, which counts a vector's entries on Home; k is a key on this site")
    for path, p in enumerate("QKV"):
        factors = [[dec(x) for x in t[path + 1].split(" · ")] for t in terms]
        digits = 3 if p == "V" else 4
        assert [g for g, _ in factors] == [dec(f"{x:.{digits}f}") for x in printed[f"d{p}"][token]], \
            f"the d{p} factors are row {row} of the printed d{p}"
        assert [w for _, w in factors] == [Decimal(str(x)) for x in printed[f"$W_{p}$"][str(column)]], \
            f"the W_{p} factors are row {column} of the printed W_{p}"
        assert sum(g * w for g, w in factors) == sums[path], f"the d{p} path's sum is the exact sum of its products"
    total = re.search(r"add up to ([−\d. +()]+) = (−?[\d.]+), which the table prints as (−?[\d.]+)\.", parts["dX"])
    assert total, parts["dX"]
    assert [dec(term) for term in total.group(1).split(" + ")] == sums, "the three sums, as printed: a + (−b) + c"
    assert dec(total.group(2)) == sum(sums), "dX's entry is the sum of its three paths"
    assert dec(total.group(3)) == Decimal(f"{printed['dX'][token][column - 1]:.3f}"), "and prints as the table's entry"
    assert round(dec(total.group(2)), 3) == dec(total.group(3)), "the sum rounds to the printed entry"


def test_the_page_says_why_dx_is_what_the_layer_below_receives():
    page = (ROOT / "docs" / "learning.md").read_text(encoding="utf-8")
    assert r"dX = dQ\, W_Q^{\text{T}} + dK\, W_K^{\text{T}} + dV\, W_V^{\text{T}}" in page
    assert "ex-backprop-step-dX.md" in page and "ex-backprop-step-projections.md" in page
    assert "so $dX$ is the gradient that layer receives" in page, "one sentence says why dX goes to the layer below"


def test_the_ds_line_works_from_the_numbers_the_a_and_da_tables_print(backprop):
    """Every factor of the worked dS̃ entry is printed, digit for digit, in the A or dA table above it, in its row
    and column: a learner finds 4.9097 in the dA table, not a 4.910 to be guessed further."""
    example, parts = backprop
    tokens = example["tokens"]

    def cells(markdown, corner):
        """{row token: [cell texts]} of the table whose corner is `corner`."""
        table = markdown[markdown.index(f"| {corner} |"):].split("\n\n")[0]
        return {m.group(1): m.group(2).split(" | ") for m in re.finditer(r"^\| \*\*(\w+)\*\* \| (.+) \|$", table, flags=re.M)}

    A, dA = cells(parts["forward"], "A"), cells(parts["dW"], "dA")
    head = re.search(r"Row (\d+) \(“(\w+)”\), key “(\w+)”: \$([\d.]+) \\cdot \(([\d.−-]+) - ([\d.]+)\)", parts["dS"])
    assert head, parts["dS"]
    row, token, key, weight, gradient, average = head.groups()
    column = tokens.index(key)
    assert weight == A[token][column] and gradient.replace("-", "−") == dA[token][column], (
        "the worked dS̃ entry uses the weight and the dA entry as their tables print them")
    terms = re.search(r"\$\$(.+) \\approx ([\d.]+)\.\$\$", parts["dS"])
    assert terms and terms.group(2) == average, parts["dS"]
    pairs = [term.split(" \\cdot ") for term in terms.group(1).split(" + ")]
    assert [g.replace("-", "−") for g, _ in pairs] == dA[token] and [a for _, a in pairs] == A[token], (
        "the row's weighted average of dA is worked from the printed dA and A rows")


# ---------------------------------------------------------------- steps counted from 1 (issue 54)

def test_steps_count_from_1_and_checkpoints_count_the_steps_done(generated):
    """Readers count from 1 (Home): the history's steps run 1 … N, the figures' step axes start at 1, the tables say
    "loss at step 300", and a checkpoint is the number of steps done ("after 0 steps" is before training), so the
    history's last row and the last checkpoint are both 120."""
    current = this_build_s_learning()
    figures = generated / "fragments"
    rows = current.history_table(current.main_run())["rows"]
    assert rows[0][0] == 1 and rows[-1][0] == current.MAIN.steps == current.CHECKPOINTS[-1], (
        "the history counts steps from 1, and its last row is the last checkpoint's count of steps")
    history = (figures / "learning-history.html").read_text(encoding="utf-8")
    shown = [int(step) for step in re.findall(r"<tr><t[hd][^>]*>(\d+)</t[hd]>", history.split("<table", 1)[1])]
    assert shown == [r[0] for r in rows] and shown[0] == 1, "the page's history table counts steps from 1"
    checkpoints = (figures / "learning-checkpoints.html").read_text(encoding="utf-8")
    for step in current.CHECKPOINTS:
        assert f"Weights after {step} steps" in checkpoints, "each checkpoint is named by the steps done before it"
    assert "at step" not in checkpoints and "step 0" not in checkpoints, "a checkpoint is a count of steps done"
    scale = (figures / "learning-scale.html").read_text(encoding="utf-8")
    assert f"loss at step {current.WIDE_STEPS}<" in scale and f"step {current.WIDE_STEPS - 1}" not in scale
    assert "at step 1" in scale and "at step 0" not in scale
    snippets = generated / "snippets"
    numbers = (snippets / "learning-scale-numbers.md").read_text(encoding="utf-8")
    assert f"loss at step {current.WIDE_STEPS} |" in numbers, "the last of 300 steps is step 300"
    reached = int(np.flatnonzero(current.main_run()["match"] > 0.9)[0]) + 1
    assert f"(it passed 0.9 at step {reached})" in (snippets / "learning-history-numbers.md").read_text(encoding="utf-8"), (
        "the first step past 0.9 is counted from 1")
    assert "At step 1, before any update" in (snippets / "learning-scale-story.md").read_text(encoding="utf-8")
    example = json.loads((generated / "public" / "examples" / "ex-learning-checkpoints.json").read_text(encoding="utf-8"))
    assert example["checkpoints"] == list(current.CHECKPOINTS), "the JSON's checkpoints stay counts of updates done"
    assert example["leading_axis"] == {**example["leading_axis"], "name": "after",
                                       "labels": [f"{c} steps" for c in current.CHECKPOINTS]}, (
        "the slider's and the caption's words name a checkpoint as the steps done: \"after 20 steps\"")


def test_first_step_below_counts_from_1():
    assert training.first_step_below(np.array([1.0, 0.5, 0.05, 0.01]), 0.1) == 3, "the third step is step 3"
    assert training.first_step_below(np.array([0.05]), 0.1) == 1
    assert training.first_step_below(np.array([1.0, 0.5]), 0.1) is None
