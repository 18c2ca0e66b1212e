"""The worked examples: frozen numbers, the JSON contract, and an independent recomputation.

- Every example's published JSON matches tests/golden/examples.json. Changing a cited number must be a
  deliberate act: rerun `.venv/bin/python tests/golden/update.py` and commit the new golden file with it.
- Every example follows the contract in CONTRIBUTING.md, and the examples that drive interactive heatmaps
  carry everything the interactive layer reads.
- Every number is recomputed from the example's own inputs with plain Python loops (math only, no
  numpy), and from the library's functions step by step: within PUBLISHED_TOLERANCE of its array's largest entry,
  as the JSON rounds each array (figures_src/engine/text.py's `published`).
"""
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import attention  # noqa: E402
from figures_src import registry  # noqa: E402
from figures_src.engine import Example, Figure  # noqa: E402
from figures_src.engine.text import PUBLISHED_TOLERANCE, published_note  # noqa: E402

GOLDEN = json.loads((ROOT / "tests" / "golden" / "examples.json").read_text(encoding="utf-8"))
DECLARED = {example.id: example for example in registry.examples()}
# The library's names (CONTRIBUTING.md, "Worked examples"): the only keys inputs, steps and outputs may use.
ARRAY_NAMES = {"X", "memory", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V", "mask", "scores", "scaled_scores", "weights", "out",
               "entropy", "heads", "concat",
               "target", "loss", "dO", "dV", "dW", "dS", "dQ", "dK", "dW_Q", "dW_K", "dW_V", "dX",
               "W_Q_next", "W_K_next", "W_V_next", "loss_next",
               "angles", "Q_rotated", "K_rotated",
               "logits_rest", "W_OU", "logits",
               # one token through one layer of the real encoder (docs/block.md)
               "attended", "residual1", "mean1", "variance1", "norm1", "pre_activation", "hidden", "ffn_out",
               "residual2", "mean2", "variance2", "norm1_gamma", "norm1_beta", "norm2_gamma", "norm2_beta"}
# Examples a heatmap figure declares as its own: the interactive layer loads them.
INTERACTIVE = sorted({item.example.id for item in registry.items()
                      if isinstance(item, Figure) and isinstance(item.example, Example)})
TOLERANCE = 1e-12


@pytest.fixture(scope="module")
def published(fresh_figures):
    """Every declared example exactly as its JSON download publishes it: built from scratch by the one entry point
    into a temporary folder (the session's `fresh_figures`, tests/conftest.py) and read back."""
    return {
        name: json.loads((fresh_figures / "public" / "examples" / f"{name}.json").read_text(encoding="utf-8"))
        for name in DECLARED
    }


@pytest.fixture(scope="module")
def examples(published):
    """The examples computed from seeded inputs, which the golden file freezes. The real model's (seed null)
    are computed from the committed extraction; tests/test_real_heads.py checks those."""
    return {name: ex for name, ex in published.items() if ex["seed"] is not None}


def single_sequence(ex):
    """One sentence through one head (a training run's checkpoints on a leading axis are not, nor is
    cross-attention, whose keys come from a second sequence)."""
    return "tokens" in ex and "n_heads" not in ex and "checkpoints" not in ex and "key_tokens" not in ex


def masked(ex):
    return "mask" in ex["inputs"]


# ------------------------------------------------------------------ golden


def assert_same(actual, expected, where):
    """Equal structure, equal strings/ints/bools, floats equal up to TOLERANCE (platform rounding only)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and sorted(actual) == sorted(expected), f"{where}: keys differ"
        for key in expected:
            assert_same(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: length differs"
        for k, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{k}]")
    elif isinstance(expected, float) and not isinstance(actual, bool) and isinstance(actual, (int, float)):
        assert math.isclose(actual, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE), f"{where}: {actual!r} != {expected!r}"
    else:
        assert actual == expected and type(actual) is type(expected), f"{where}: {actual!r} != {expected!r}"


UPDATE = ("a cited example's numbers changed: if you meant it (a retrained model, a new example), run "
          "`.venv/bin/python tests/golden/update.py` and commit tests/golden/ saying which cited numbers moved")


def test_every_example_has_a_golden_entry_and_no_golden_entry_is_stale(examples):
    assert sorted(GOLDEN) == sorted(examples), UPDATE
    assert len(examples) >= 10


def test_published_numbers_match_the_golden_file(examples):
    for name in sorted(GOLDEN):
        try:
            assert_same(examples[name], GOLDEN[name], name)
        except AssertionError as error:
            raise AssertionError(f"{error}. {UPDATE}") from None


def test_golden_comparison_catches_a_changed_number():
    changed = json.loads(json.dumps(GOLDEN["ex-scores"]))
    changed["steps"]["scores"][0][0] += 1e-9
    with pytest.raises(AssertionError, match="scores"):
        assert_same(changed, GOLDEN["ex-scores"], "ex-scores")


# ------------------------------------------------------------------ the contract


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_example_follows_the_contract(published, name):
    ex = published[name]
    for key in ("id", "title", "page", "library_version", "precision", "seed", "inputs", "steps", "outputs"):
        assert key in ex, f"{name} lacks {key}"
    assert ex["precision"] == published_note(), "an example's JSON says how its numbers are rounded"
    assert ex["id"] == name
    assert ex["library_version"] == attention.__version__
    assert isinstance(ex["seed"], int) or ex["seed"] is None and ex["model"]
    assert ex["page"].endswith("/") and (ROOT / "docs" / (ex["page"].rstrip("/") + ".md")).exists()
    page_text = (ROOT / "docs" / (ex["page"].rstrip("/") + ".md")).read_text(encoding="utf-8")
    cite = f"{name}-cite.md" if DECLARED[name].cite_line else f"{ex['page'].rstrip('/')}-cite.md"
    assert f"generated/snippets/{cite}" in page_text, f"{ex['page']} does not show the cite line of {name}"
    for group in ("inputs", "steps"):
        assert ex[group] or ex["seed"] is None, f"{name}.{group} is empty"
    for group in ("inputs", "steps", "outputs"):
        for key, value in ex[group].items():
            assert key in ARRAY_NAMES, f"{name}.{group}.{key} is not a library name"
            arr = np.array(value)
            if key == "mask":
                assert arr.dtype == bool
            else:
                assert np.issubdtype(arr.dtype, np.floating), f"{name}.{group}.{key} is {arr.dtype}"
                assert np.isfinite(arr).all()


def test_the_interactive_examples_are_declared_by_heatmap_figures():
    assert {"ex-scores", "ex-softmax", "ex-demo", "ex-multi-head", "ex-mask-causal", "ex-mask-padding"} <= set(INTERACTIVE)


@pytest.mark.parametrize("name", INTERACTIVE)
def test_interactive_examples_carry_what_the_heatmaps_read(examples, name):
    ex = examples[name]
    assert isinstance(ex["d_k"], int) and ex["scale"] == pytest.approx(1 / math.sqrt(ex["d_k"]), rel=PUBLISHED_TOLERANCE)
    for key in ("Q", "K", "V", "scaled_scores", "weights", "entropy"):
        assert key in ex["steps"], f"{name} lacks steps.{key}"
    assert "out" in ex["outputs"]
    if "mask" in name:
        assert masked(ex)
    tokens = ex.get("tokens") or ex["batch_tokens"]
    weights = np.array(ex["steps"]["weights"])
    n = len(tokens) if "tokens" in ex else len(tokens[0])
    assert weights.shape[-2:] == (n, n)
    if "n_heads" in ex:
        assert weights.shape == (ex["n_heads"], n, n)
        assert np.array(ex["steps"]["Q"]).shape == (ex["n_heads"], n, ex["d_k"])
    if "batch_tokens" in ex:
        assert weights.shape == (ex["batch_size"], n, n) and len(ex["lengths"]) == ex["batch_size"]


# A trained model's numbers, rounded for printing (the rounded numbers are the example's inputs): decimals, largest |x|.
TRAINED_INPUTS = {"ex-decode-step": (2, 10)}


def test_inputs_are_small_integers_and_one_decimal_numbers(examples):
    """So hand computation is possible and the printed digits are stable."""
    for name, ex in examples.items():
        for key, value in ex["inputs"].items():
            if key == "mask":
                continue
            arr = np.array(value)
            digits, largest = TRAINED_INPUTS.get(name, (0 if key == "X" else 1, 2))
            assert np.array_equal(np.round(arr, digits), arr), f"{name}.inputs.{key} is not {digits}-decimal"
            assert np.abs(arr).max() <= largest


# ------------------------------------------------------------------ plain loops


def matmul(A, B):
    return [[sum(A[i][c] * B[c][j] for c in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def attention_by_hand(Q, K, V, mask=None):
    """Scores, scaled scores, weights, entropy and output of one sequence, written as on paper."""
    n_q, n_k, d_k = len(Q), len(K), len(K[0])
    S = [[sum(Q[i][c] * K[j][c] for c in range(d_k)) for j in range(n_k)] for i in range(n_q)]
    scaled = [[s / math.sqrt(d_k) for s in row] for row in S]
    weights, entropy = [], []
    for i in range(n_q):
        allowed = [mask is None or mask[i][j] for j in range(n_k)]
        top = max(s for s, ok in zip(scaled[i], allowed) if ok)
        e = [math.exp(s - top) if ok else 0.0 for s, ok in zip(scaled[i], allowed)]
        total = sum(e)
        row = [x / total for x in e]
        weights.append(row)
        entropy.append(-sum(w * math.log(w) for w in row if w > 0))
    out = [[sum(weights[i][j] * V[j][c] for j in range(n_k)) for c in range(len(V[0]))] for i in range(n_q)]
    return {"scores": S, "scaled_scores": scaled, "weights": weights, "entropy": entropy, "out": out}


def close(actual, expected, where):
    """Equal within PUBLISHED_TOLERANCE of the largest entry (at least 1): the JSON rounds each array."""
    expected = np.array(expected, dtype=float)
    largest = max(1.0, np.abs(expected[np.isfinite(expected)]).max(initial=0))
    np.testing.assert_allclose(np.array(actual, dtype=float), expected, rtol=0, atol=PUBLISHED_TOLERANCE * largest,
                               err_msg=where)


def check_sequence(ex, where, X, mask, W_Q, W_K, W_V, steps, out):
    Q, K, V = matmul(X, W_Q), matmul(X, W_K), matmul(X, W_V)
    close(steps["Q"], Q, f"{where} Q")
    close(steps["K"], K, f"{where} K")
    close(steps["V"], V, f"{where} V")
    hand = attention_by_hand(Q, K, V, mask)
    for key in ("scores", "scaled_scores", "weights", "entropy"):
        close(steps[key], hand[key], f"{where} {key}")
    close(out, hand["out"], f"{where} out")


def test_single_sequence_examples_recomputed_by_hand(examples):
    checked = [name for name, ex in examples.items() if single_sequence(ex)]
    assert len(checked) >= 7
    for name in checked:
        check_single_sequence(name, examples[name])


def check_single_sequence(name, ex):
    i = ex["inputs"]
    check_sequence(ex, name, i["X"], i.get("mask"), i["W_Q"], i["W_K"], i["W_V"], ex["steps"], ex["outputs"]["out"])
    assert ex["outputs"]["weights"] == ex["steps"]["weights"]


@pytest.mark.parametrize("name", ["ex-mask-padding", "ex-mask-combined"])
def test_batch_examples_recomputed_by_hand_one_sequence_at_a_time(examples, name):
    ex = examples[name]
    assert "batch_tokens" in ex
    i = ex["inputs"]
    for b, length in enumerate(ex["lengths"]):
        steps = {key: value[b] for key, value in ex["steps"].items()}
        mask = i["mask"][b]
        for row in mask:
            assert not any(row[length:]), f"{name}: sequence {b} may attend to padding"
        check_sequence(ex, f"{name}[{b}]", i["X"][b], mask, i["W_Q"], i["W_K"], i["W_V"], steps, ex["outputs"]["out"][b])


def test_multi_head_example_recomputed_head_by_head(examples):
    ex = examples["ex-multi-head"]
    i, h, d_k = ex["inputs"], ex["n_heads"], ex["d_k"]
    XQ, XK, XV = matmul(i["X"], i["W_Q"]), matmul(i["X"], i["W_K"]), matmul(i["X"], i["W_V"])
    concat = [[] for _ in XQ]
    for head in range(h):
        cols = slice(head * d_k, (head + 1) * d_k)
        Q, K, V = ([row[cols] for row in M] for M in (XQ, XK, XV))
        close(ex["steps"]["Q"][head], Q, f"head {head} Q")
        hand = attention_by_hand(Q, K, V)
        for key in ("scores", "scaled_scores", "weights", "entropy"):
            close(ex["steps"][key][head], hand[key], f"head {head} {key}")
        close(ex["steps"]["heads"][head], hand["out"], f"head {head} output")
        for r, row in enumerate(hand["out"]):
            concat[r] += row
    close(ex["steps"]["concat"], concat, "concat")
    close(ex["outputs"]["out"], matmul(concat, i["W_O"]), "out = concat · W_O")


# ------------------------------------------------------------------ the library, step by step


def test_single_sequence_examples_agree_with_the_library_functions(examples):
    for name, ex in examples.items():
        if single_sequence(ex):
            check_with_the_library(name, ex)


def check_with_the_library(name, ex):
    steps = ex["steps"]
    mask = None if "mask" not in ex["inputs"] else np.array(ex["inputs"]["mask"])
    S = attention.scaled_scores(steps["Q"], steps["K"])
    close(steps["scaled_scores"], S, name)
    close(steps["weights"], attention.softmax(S, mask), name)
    close(steps["entropy"], attention.row_entropy(np.array(steps["weights"])), name)
    chunked = attention.attend_chunked(steps["Q"], steps["K"], steps["V"], mask=mask, block_size=2)
    close(ex["outputs"]["out"], chunked, f"{name}: the chunked path")


def test_masked_weights_are_exactly_zero(examples):
    names = [name for name, ex in examples.items() if masked(ex)]
    assert len(names) >= 4
    for name in names:
        ex = examples[name]
        weights, mask = np.array(ex["steps"]["weights"]), np.array(ex["inputs"]["mask"])
        assert (weights[~mask] == 0).all(), name
        close(weights.sum(axis=-1), np.ones(weights.shape[:-1]), f"{name}: rows add up to 1")


# ------------------------------------------------------------------ what the pages print


def test_worked_dot_product_adds_up_to_the_published_score(examples):
    from figures_src.pages import scores

    module_example = scores.EX_SCORES.compute()
    i, j = scores.worked_entry(module_example)
    text = scores.scores_snippets(module_example)["entry"]
    score = examples["ex-scores"]["steps"]["scores"][i][j]
    assert score == max(max(row) for row in examples["ex-scores"]["steps"]["scores"])
    assert f"{score:.2f}" in text
    assert f"{examples['ex-scores']['steps']['scaled_scores'][i][j]:g}".rstrip("0") in text


def test_followed_output_row_is_the_published_row(examples):
    from figures_src.pages import output

    module_example = output.EX_OUTPUT.compute()
    i = output.followed_row(module_example)
    text = output.output_snippets(module_example)["row"]
    for value in examples["ex-output"]["outputs"]["out"][i]:
        assert f"{value:.4f}".replace("-", "−") in text


def test_multi_head_cost_table_is_constant_across_heads():
    from figures_src.pages import multi_head

    data = multi_head.cost_data()
    assert [h for h, _ in data["rows"]] == [1, 2, 4, 8, 16]
    params = {c["params"] for _, c in data["rows"]}
    total = {c["total_macs"] for _, c in data["rows"]}
    assert len(params) == 1 and len(total) == 1
    assert "same parameter count" in multi_head.cost_snippets(data)["verdict"]


def test_citation_file_names_the_project_and_its_version():
    import yaml

    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0"
    assert citation["title"] == "Attention Is a Heatmap"
    assert str(citation["version"]) == attention.__version__
    assert citation["authors"] and all("name" in a or "family-names" in a for a in citation["authors"])
    assert "ex-scores" in citation["message"]


def test_a_leading_axis_names_itself_unless_it_is_heads_or_a_batch(published):
    """The interactive caption names the grid it shows from the example's own leading_axis ("after 20 steps"): the
    checkpoints example carries it, and the contract refuses a leading axis nobody named or labels that miss."""
    from figures_src.engine import BuildError  # noqa: PLC0415
    from figures_src.engine.examples import check_example  # noqa: PLC0415

    ex = published["ex-learning-checkpoints"]
    axis = ex["leading_axis"]
    # a checkpoint is a count of steps done (issue 54: readers count steps from 1, and "step 0" read as an index)
    assert (axis["name"], axis["labels"]) == ("after", [f"{step} steps" for step in ex["checkpoints"]])
    assert [f"after {step} steps" in text for step, text in zip(ex["checkpoints"], axis["captions"]["weights"])] == [True] * len(ex["checkpoints"])
    assert len(ex["leading_axis"]["labels"]) == len(ex["steps"]["Q"])
    grids = {"id": "ex-x", "title": "t", "page": "p", "library_version": "0", "seed": 0, "inputs": {}, "outputs": {},
             "steps": {"Q": np.zeros((2, 3, 4))}}
    with pytest.raises(BuildError, match=r"example ex-x: its 2 grids on a leading axis are neither heads nor a batch"):
        check_example(grids)
    check_example({**grids, "leading_axis": {"name": "step", "labels": ["0", "10"]}})
    check_example({**grids, "n_heads": 2})
    with pytest.raises(BuildError, match=r"example ex-x: leading_axis has 1 labels for a leading axis of 2 entries"):
        check_example({**grids, "leading_axis": {"name": "step", "labels": ["0"]}})
    with pytest.raises(BuildError, match=r"example ex-x: leading_axis must be"):
        check_example({**grids, "leading_axis": {"name": "", "labels": ["0", "10"]}})


def test_the_masks_step_table_prints_scores_by_the_sites_number_rule():
    """masks/ "From −∞ to a weight of 0": s̃ follows engine/text.cell (2 decimals, 3 only for an exact tie),
    as everywhere else: −0.18, not −0.180; each masked entry is −∞ and each allowed one repeats its s̃."""
    from figures_src.engine.text import cell
    from figures_src.pages import masks

    example = masks.EX_MASK_CAUSAL.data()
    text = masks.causal_snippets(example)["step"]
    i = len(example["tokens"]) // 2
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| **") and "total" not in line]
    assert len(rows) == len(example["tokens"])
    for row, s, allowed in zip(rows, example["steps"]["scaled_scores"][i], example["inputs"]["mask"][i]):
        assert row[1] == cell(s) and row[2] == (cell(s) if allowed else "−∞"), row
    assert any(row[1] == "−0.18" for row in rows)  # the case the proofreader found ("−0.180")


def test_the_blend_table_adds_up_by_hand():
    """output/ "The numbers as a table" under the blend figure: each printed sum is the sum of the printed terms,
    and each term is the printed weight times the value to 1 decimal (4-decimal terms did not add up)."""
    from decimal import Decimal

    from figures_src.pages import output

    data = output.blend_data()
    table = output.blend_table(data)
    number = lambda cell: Decimal(cell.text.replace("−", "-"))  # noqa: E731  the cell as the page prints it
    *terms, sums = table["rows"]
    assert sums[0] == "output (sum)"
    for c in range(1, len(table["columns"])):
        assert sum(number(row[c]) for row in terms) == number(sums[c]), table["columns"][c]
        assert round(float(number(sums[c])), 4) == round(float(data["out"][c - 1]), 4)
    for row, vj in zip(terms, data["V"]):
        weight = Decimal(row[0].split("a_j = ")[1].rstrip(")"))
        assert [number(x) for x in row[1:]] == [weight * Decimal(f"{v:.1f}") for v in vj], row[0]
        assert [x.value for x in row[1:]] == [float(number(x)) for x in row[1:]], "the CSV writes the exact terms"
