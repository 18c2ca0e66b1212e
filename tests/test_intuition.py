"""The intuition pictures and the added topics (issue 15, part B): every number they show, recomputed
independently (plain loops, PyTorch) from the library's inputs, and every claim their text makes."""
import math
import re
from decimal import Decimal

import numpy as np
import pytest
import torch

import attention
import by_hand
import loop_reference as loops
from figures_src.pages import cost, multi_head, output, scores, sentences


@pytest.fixture(scope="module")
def running():
    return sentences.self_attention_example(sentences.RUNNING)


# ---------------------------------------------------------------- Scores: arrows and asymmetry


def test_arrows_give_the_dot_products_and_their_geometry():
    data = scores.arrows_data()
    q = data["q"].tolist()
    expected = [loops.dot(q, k) for k in data["K"].tolist()]
    np.testing.assert_allclose(data["scores"], expected, rtol=0, atol=1e-15)
    same, right, opposite = data["scores"]
    assert same > 0 and opposite == -same and right == 0  # the three cases the panels name
    cosines = [loops.dot(q, k) / math.hypot(*q) / math.hypot(*k) for k in data["K"].tolist()]
    assert cosines == pytest.approx([1, 0, -1], abs=1e-12)
    caption = scores.arrows_caption(data)
    assert f"q · k = {scores.num(same, 2, True)}; at a right angle, 0; pointing the opposite way, −{scores.num(same, 2, True)}" in caption
    scaled = [s / math.sqrt(len(q)) for s in data["scores"]]  # the page's formula scales before the softmax
    assert data["weights"][0] == pytest.approx(math.exp(scaled[0]) / sum(math.exp(s) for s in scaled), rel=1e-12)


def test_every_arrow_panel_labels_q_and_k_clear_of_both_arrows():
    """The right-angle panel's k once sat on its own arrow's shaft, unreadable."""
    def distance_to_shaft(point, tip):  # from a point to the segment from the origin to tip
        point, tip = np.asarray(point), np.asarray(tip, dtype=float)
        t = np.clip(point @ tip / (tip @ tip), 0, 1)
        return float(np.linalg.norm(point - t * tip))

    data = scores.arrows_data()
    positions = scores.arrow_label_positions(data)
    assert len(positions) == len(data["K"]) == 3
    for k, labels in zip(data["K"], positions):
        assert set(labels) == {"q", "k"}
        for point in labels.values():
            assert max(abs(c) for c in point) < scores.ARROW_REACH - 0.2  # inside the panel
            assert min(distance_to_shaft(point, tip) for tip in (k, data["q"])) > 0.3, (k, labels)


def test_the_outlined_pair_is_the_most_asymmetric_and_its_scores_are_the_loops(running):
    steps = running["steps"]
    S = loops.scores(steps["Q"].tolist(), steps["K"].tolist())
    n = len(S)
    gaps = {(i, j): S[i][j] - S[j][i] for i in range(n) for j in range(n)}
    [(i, j)] = scores.asymmetric_pairs(running)
    assert gaps[(i, j)] == max(gaps.values()) > 0
    caption = scores.asymmetry_caption(running)
    tokens = running["tokens"]
    assert f"query “{tokens[i]}” against key “{tokens[j]}” scores {S[i][j]:.2f}" in caption
    assert f"only {S[j][i]:.2f}".replace("-", "−") in caption


def test_the_asymmetry_figure_outlines_as_many_pairs_as_its_title_and_caption_say(running):
    """Its title once promised "two mirror-image pairs" over a figure that outlines one."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    ax = Figure().subplots()
    scores.asymmetry_render(running, ax)
    outlined = [patch for patch in ax.patches if isinstance(patch, Rectangle) and patch.get_linewidth() > 0]
    (figure,) = [item for item in scores.ITEMS if item.name == "scores-asymmetry"]
    said = scores.pairs_outlined(len(outlined) // 2)
    assert outlined and len(outlined) % 2 == 0
    assert figure.title == f"The score table is not symmetric: {said} outlined."
    assert f"with {said} outlined:" in scores.asymmetry_caption(running)
    assert f"with {said} of cells outlined" in scores.asymmetry_alt(running)


# ---------------------------------------------------------------- Output: value bars, permutation


def test_value_bars_add_up_to_the_output_row_and_it_is_almost_the_top_value(running):
    data = output.blend_data()
    i, top = data["query"], data["top"]
    W = running["steps"]["weights"]
    assert i == max(range(len(W)), key=lambda r: max(W[r]))
    V = running["steps"]["V"].tolist()
    w = W[i].tolist()
    summed = [sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
    np.testing.assert_allclose(data["out"], summed, rtol=0, atol=1e-12)
    np.testing.assert_allclose(data["scaled"].sum(axis=0), summed, rtol=0, atol=1e-12)
    # "almost that value": the output is closer to v_top than to any other value row, within 1 - w_top of its size
    distances = [math.dist(summed, v) for v in V]
    assert min(range(len(V)), key=distances.__getitem__) == top
    assert distances[top] <= (1 - w[top]) * max(math.dist(v, V[top]) for v in V) + 1e-12
    assert f"{w[top]:.4f}" in output.blend_caption(data)


def test_permuted_sentence_permutes_the_output_rows(running):
    ex = output.permutation_example()
    order = ex["order"]
    assert sorted(order) == list(range(len(order))) and order != sorted(order)
    assert ex["tokens"] == [running["tokens"][k] for k in order]
    np.testing.assert_allclose(ex["outputs"]["out"], running["outputs"]["out"][order], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ex["steps"]["weights"], running["steps"]["weights"][order][:, order], rtol=0, atol=1e-14)
    # ... and independently, with PyTorch on the permuted X
    X = torch.tensor(ex["inputs"]["X"])
    Q, K, V = (X @ torch.tensor(ex["inputs"][name]) for name in ("W_Q", "W_K", "W_V"))
    torch_out = torch.nn.functional.scaled_dot_product_attention(Q, K, V)
    np.testing.assert_allclose(torch_out.numpy(), running["outputs"]["out"][order], rtol=0, atol=1e-12)
    snippet = output.permutation_snippets(output.EX_PERMUTATION.compute())
    assert "the same vectors" in snippet["verdict"]


# ---------------------------------------------------------------- Multi-head: diagram, cross-attention


def test_the_diagram_uses_the_example_shapes():
    example = multi_head.EX_MULTI_HEAD.compute()
    data = multi_head.diagram_data()
    n, d_model = np.shape(example["inputs"]["X"])
    assert (data["n"], data["d_model"], data["n_heads"]) == (n, d_model, example["n_heads"])
    assert np.shape(example["steps"]["heads"]) == (data["n_heads"], n, data["d_k"])
    assert np.shape(example["steps"]["concat"]) == (n, data["n_heads"] * data["d_k"]) == (n, d_model)
    steps = dict(multi_head.diagram_steps(data))
    assert f"{n} × {data['d_k']}" in steps["split"] and f"{n} × {d_model}" in steps["mix"]


def test_cross_attention_against_pytorch_and_loops():
    ex = multi_head.cross_attention_example()
    i = ex["inputs"]
    n_q, n_k = len(ex["tokens"]), len(ex["key_tokens"])
    assert n_q != n_k and np.shape(ex["steps"]["weights"]) == (n_q, n_k)
    Q = loops.matmul(i["X"].tolist(), i["W_Q"].tolist())
    K = loops.matmul(i["memory"].tolist(), i["W_K"].tolist())
    V = loops.matmul(i["memory"].tolist(), i["W_V"].tolist())
    out, weights = loops.attend(Q, K, V)
    np.testing.assert_allclose(ex["outputs"]["out"], out, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ex["steps"]["weights"], weights, rtol=0, atol=1e-12)
    torch_out = torch.nn.functional.scaled_dot_product_attention(*(torch.tensor(M, dtype=torch.float64) for M in (Q, K, V)))
    np.testing.assert_allclose(ex["outputs"]["out"], torch_out.numpy(), rtol=0, atol=1e-12)
    # the keys and values are the running sentence's, exactly
    running = sentences.self_attention_example(sentences.RUNNING)
    np.testing.assert_array_equal(ex["steps"]["K"], running["steps"]["K"])
    np.testing.assert_array_equal(ex["steps"]["V"], running["steps"]["V"])
    assert np.abs(i["X"]).max() <= 2 and np.array_equal(i["X"], np.round(i["X"]))


# ---------------------------------------------------------------- Cost: online softmax


def test_online_softmax_equals_attend_chunked_and_attend():
    ex = cost.EX_ONLINE.compute()
    steps, q = ex["steps"], ex["query"]
    blocks = ex["blocks"]
    assert len(blocks) == 2 and blocks[1]["block_max"] > blocks[0]["running_max"]  # the rescaling does something
    final = blocks[-1]["acc"] / blocks[-1]["denominator"]
    chunked = attention.attend_chunked(steps["Q"], steps["K"], steps["V"], block_size=ex["block_size"])
    np.testing.assert_allclose(final, chunked[q], rtol=0, atol=1e-15)
    np.testing.assert_allclose(ex["outputs"]["out"], attention.attend(steps["Q"], steps["K"], steps["V"])[0], rtol=0, atol=1e-12)
    # after block 1 the running state is attention over the first block's keys alone
    first = blocks[0]["keys"]
    alone = attention.attend_chunked(steps["Q"][q:q + 1], steps["K"][first], steps["V"][first], block_size=len(first))
    np.testing.assert_allclose(blocks[0]["acc"] / blocks[0]["denominator"], alone[0], rtol=0, atol=1e-15)
    assert blocks[1]["rescale"] == pytest.approx(math.exp(blocks[0]["running_max"] - blocks[1]["running_max"]), rel=1e-15)


def test_online_softmax_walk_checks_out_from_its_printed_numbers():
    ex = cost.EX_ONLINE.compute()
    parts = cost.online_snippets(ex)
    hand = cost.online_by_hand(ex, 4)
    first, second = hand["walk"]
    r_text, r = second["rescale"]
    assert by_hand.follows(Decimal(math.exp(float(first["m"] - second["m"]))), r_text)
    for step in hand["walk"]:
        for j, (text, value) in zip(step["keys"], step["e"]):
            assert by_hand.follows(by_hand.exp(hand["s"][j] - step["m"]), text)
    assert by_hand.follows(first["denominator"] * r, second["denominator_rescaled"][0])
    assert f"{cost.num(first['denominator'], 4)} × {r_text} = {second['denominator_rescaled'][0]}" in parts["rescale"]
    for c, (text, _) in enumerate(second["acc_rescaled"]):
        assert by_hand.follows(first["acc"][c] * r, text)
    chunked = ex["outputs"]["out"][ex["query"]]
    for c, value in enumerate(hand["out"]):
        assert cost.num(value, 4) == cost.num(chunked[c], 4)
    for line in parts["vector"].splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[-1] == cells[-2]  # the walk's output and attend_chunked's, printed side by side


# ---------------------------------------------------------------- Cost: sparse patterns, KV cache, crossover


def test_sparse_counts_are_the_loops():
    data = cost.sparse_data()
    n, w, stride = cost.SPARSE_N, cost.SPARSE_WINDOW, cost.SPARSE_STRIDE
    local = [[abs(i - j) < w or i in cost.SPARSE_GLOBAL or j in cost.SPARSE_GLOBAL for j in range(n)] for i in range(n)]
    strided = [[j <= i and (i - j < stride or (i - j) % stride == 0) for j in range(n)] for i in range(n)]
    assert data["counts"] == {"full": n * n, "local + global": sum(map(sum, local)), "causal": n * (n + 1) // 2,
                              "strided": sum(map(sum, strided))}
    np.testing.assert_array_equal(data["masks"]["local + global"], local)
    np.testing.assert_array_equal(data["masks"]["strided"], strided)
    n, w, stride = cost.SPARSE_LONG
    band = n * (2 * w - 1) - w * (w - 1)  # |i - j| < w, clipped at both ends
    global_extra = 2 * n - 1 - (2 * w - 1)  # token 1's row and column, minus what the band already has
    assert data["long"]["local + global"] == band + global_extra
    assert data["long"]["full"] == n * n and data["long"]["strided"] < n * (stride + n // stride)


def test_kv_cache_and_crossover_for_the_published_sizes():
    data = cost.models_data()
    for model, (name, layers, d_model, heads, context, _) in zip(data["models"], cost.MODELS):
        d_k = d_model // heads
        per_token = sum(2 * d_k * cost.KV_ITEMSIZE for _layer in range(layers) for _head in range(heads))
        assert model["per_token"] == per_token and model["cache"] == per_token * context
        n = model["crossover"]

        def attention_work(m):
            return 2 * m * m * d_model  # Q Kᵀ and weights · V over every head

        def projection_work(m):
            return 4 * m * d_model * d_model
        assert attention_work(n) >= projection_work(n) and attention_work(n - 1) < projection_work(n - 1)
        assert (model["attention_macs"], model["projection_macs"]) == (attention_work(n), projection_work(n))


# ---------------------------------------------------------------- Cost: every chain and ratio follows from what is printed (issue 40)


def test_online_softmax_says_which_numbers_are_rounded_and_its_chains_are_exact():
    parts = cost.online_snippets(cost.EX_ONLINE.compute())
    assert "rounded to 4 decimals (≈)" in parts["setup"] and "worked out in full from the printed numbers (=)" in parts["setup"]
    assert re.search(r"\$e\^\{[^$]*\}\$ ≈ \d", parts["rescale"]), "the rounded exponential is written with ≈"
    decimal = lambda text: Decimal(text.rstrip(".").replace("−", "-"))  # noqa: E731
    products = re.findall(r"([\d.]+) × ([\d.]+) = ([\d.]+)", parts["rescale"])
    sums = re.findall(r"((?:[\d.]+ \+ )+[\d.]+) = ([\d.]+)", parts["rescale"])
    assert products and sums
    for a, b, c in products:
        assert decimal(a) * decimal(b) == decimal(c), f"{a} × {b} = {c}"
    for terms, total in sums:
        assert sum(map(decimal, terms.split(" + "))) == decimal(total), f"{terms} = {total}"
    library = cost.EX_ONLINE.compute()["blocks"]
    assert cost.num(library[0]["denominator"] * library[1]["rescale"], 8) in parts["setup"]


def test_measured_ratios_follow_from_the_printed_sizes():
    data = cost.memory_data()
    measured = cost.memory_snippets(data)["measured"]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in measured.splitlines()[2:]]
    assert len(rows) == len(data["measured_n"])
    for _, full, chunked, ratio in rows:
        kib = [int(text.removesuffix(" KiB").replace(",", "")) for text in (full, chunked)]
        assert f"{kib[0] / kib[1]:.1f}×" == ratio, (full, chunked, ratio)
    with pytest.raises(cost.BuildError, match="cost-memory: 1000 bytes is not a whole number of KiB"):
        cost.kib(1000)


def test_sparse_patterns_are_compared_with_the_full_table_of_their_kind(monkeypatch):
    data = cost.sparse_data()
    n = cost.SPARSE_N
    causal = np.tril(np.ones((n, n), dtype=bool))
    assert not (data["masks"]["strided"] & ~causal).any(), "the strided pattern is causal"
    caption = cost.sparse_caption(data)
    assert f"n(n + 1)/2 = {n * (n + 1) // 2} scores" in caption and f"n² = {n * n} scores" in caption
    long = data["long"]
    text = cost.sparse_snippets(data)["long"]
    assert f"{long['strided']:,} ({long['strided'] / long['causal']:.1%} of those)" in text
    assert f"{long['local + global']:,} ({long['local + global'] / long['full']:.1%} of them)" in text
    shares = {row[0]: row[-1] for row in cost.sparse_table(data)["rows"]}
    assert shares["strided"].text.endswith("of causal") and shares["local + global"].text.endswith("of full")
    assert shares["strided"].value == long["strided"] / long["causal"], "the CSV gets the share itself"
    # a "strided" pattern that looks ahead is not a decoder's: the build refuses to set it beside the causal table
    monkeypatch.setattr(cost.attention, "strided_mask", lambda n, stride: np.ones((n, n), dtype=bool))
    with pytest.raises(cost.BuildError, match="cost-sparse: the strided pattern allows pairs that the causal table does not"):
        cost.sparse_data()


def test_cost_claims_fail_the_build_when_false():
    """"Four times bigger" with each doubling, the band growing as n, the block staying put, and a wider model
    getting further before its table takes over: each is checked against the numbers."""
    data = {"n": cost.LENGTHS, "full": cost.LENGTHS ** 2 * 4, "window": cost.LENGTHS * np.minimum(cost.WINDOW, cost.LENGTHS) * 4,
            "chunked": np.full(len(cost.LENGTHS), 64 * 1024)}
    cost.memory_claims(data)
    for key, broken in (("full", data["full"] * np.arange(1, len(cost.LENGTHS) + 1)), ("chunked", cost.LENGTHS * 4),
                        ("window", data["full"])):
        with pytest.raises(cost.BuildError, match="cost-memory: the page says"):
            cost.memory_claims({**data, key: broken})
    models = cost.models_data()
    cost.models_snippets(models)
    swapped = [dict(m) for m in models["models"]]
    swapped[0]["crossover"], swapped[-1]["crossover"] = swapped[-1]["crossover"], swapped[0]["crossover"]
    with pytest.raises(cost.BuildError, match="cost-models: the page says a wider model gets further"):
        cost.models_snippets({"models": swapped})


def test_sparse_sentence_gives_each_pattern_its_own_parameters():
    """At n = 4,096 the strided pattern's window is said (its last `stride` keys), not only the local band's."""
    n, window, stride = cost.SPARSE_LONG
    text = cost.sparse_snippets(cost.sparse_data())["long"]
    assert f"local + global has a band of {window - 1} neighbours on each side" in text
    assert f"strided lets each token see its last {stride} keys and every {stride}th key before them" in text


def test_the_takeover_sentence_prints_the_smallest_models_crossover():
    models = cost.models_data()
    small = min(models["models"], key=lambda m: m["d_model"])
    text = cost.models_snippets(models)["takeover"]
    assert text.startswith(f"So for {small['name']} the two are equal at {small['crossover']:,} tokens")
    page = (__import__("pathlib").Path(__file__).resolve().parents[1] / "docs" / "cost.md").read_text(encoding="utf-8")
    assert "a few thousand tokens" not in page and "cost-models-takeover.md" in page
