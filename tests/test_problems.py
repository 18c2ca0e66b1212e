"""The Problems page's data: every answer recomputed by the library and by plain loops, every solution
consistent with its answer, the published JSON's shape, the page blocks, and the downloadable kit."""
import hashlib
import json
import math
import re
import shutil
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import attention as A
import loop_reference as loops
from figures_src import build
from figures_src.engine.text import published, published_note, typeset
from figures_src.pages import problems
from figures_src.pages.problems import html as problems_render, sets as problems_sets
from figures_src.pages.problems.sets import fmt

DATA = problems.all_sets()
BY_SET = {s["set"]: s for s in DATA}
VARIANTS = [(s["set"], v) for s in DATA for v in s["variants"]]
IDS = [v["id"] for _, v in VARIANTS]
EXACT = dict(rtol=0, atol=1e-12)


def arr(m):
    """A matrix dict's values as an array (null = -inf; masks stay boolean)."""
    values = m["values"]
    if all(isinstance(x, bool) for row in values for x in row):
        return np.array(values, dtype=bool)
    return np.array([[-math.inf if x is None else x for x in row] for row in values], dtype=float)


def inputs(v):
    return {m["name"]: arr(m) for m in v["inputs"]}


def answer(v, name):
    return arr(next(p for p in v["parts"] if p["name"] == name))


def steps(v):
    return {s["key"]: arr(s["matrix"]) for s in v["solution"] if "matrix" in s}


def as_lists(x):
    return np.asarray(x).tolist()


# ---------------------------------------------------------------- the answers, recomputed twice


@pytest.mark.parametrize(("set_id", "v"), VARIANTS, ids=IDS)
def test_answers_match_library_and_loops(set_id, v):
    x = inputs(v)
    if set_id == "scale-scores":
        expected = answer(v, "scaled_scores")
        np.testing.assert_allclose(expected, A.scaled_scores(x["Q"], x["K"]), **EXACT)
        np.testing.assert_allclose(expected, loops.scaled_scores(as_lists(x["Q"]), as_lists(x["K"])), **EXACT)
    elif set_id == "soften-rows":
        weights = answer(v, "weights")
        np.testing.assert_allclose(weights, A.softmax(x["S"]), **EXACT)
        np.testing.assert_allclose(weights, loops.softmax(as_lists(x["S"])), **EXACT)
        if any(p["name"] == "entropy" for p in v["parts"]):
            H = answer(v, "entropy")[:, 0]
            np.testing.assert_allclose(H, A.row_entropy(weights), **EXACT)
            np.testing.assert_allclose(H, [loops.row_entropy(row) for row in as_lists(weights)], **EXACT)
    elif set_id == "weighted-sum":
        W, V = x["A"], x["V"]
        out = answer(v, "out")
        np.testing.assert_allclose(out, W @ V, **EXACT)
        np.testing.assert_allclose(out, loops.matmul(as_lists(W), as_lists(V)), **EXACT)
    elif set_id == "end-to-end":
        mask = x.get("mask")
        Q, K, V = (x["X"] @ x[w] for w in ("W_Q", "W_K", "W_V"))
        out, weights = A.attend(Q, K, V, mask=mask)
        np.testing.assert_allclose(answer(v, "out"), out, **EXACT)
        np.testing.assert_allclose(answer(v, "weights"), weights, **EXACT)
        L = [loops.matmul(as_lists(x["X"]), as_lists(x[w])) for w in ("W_Q", "W_K", "W_V")]
        out_l, weights_l = loops.attend(*L, None if mask is None else as_lists(mask))
        np.testing.assert_allclose(answer(v, "out"), out_l, **EXACT)
        np.testing.assert_allclose(answer(v, "weights"), weights_l, **EXACT)
    elif set_id == "masks":
        S, mask = x["S"], x["mask"]
        row = int(re.search(r"Row (\d+)", v["parts"][0]["label"]).group(1)) - 1
        np.testing.assert_allclose(answer(v, "row_unmasked")[0], A.softmax(S)[row], **EXACT)
        np.testing.assert_allclose(answer(v, "row_unmasked")[0], loops.softmax_row(as_lists(S)[row]), **EXACT)
        np.testing.assert_allclose(answer(v, "weights"), A.softmax(S, mask), **EXACT)
        np.testing.assert_allclose(answer(v, "weights"), loops.softmax(as_lists(S), as_lists(mask)), **EXACT)
        assert (answer(v, "weights")[~mask] == 0).all() and (~mask).any()
    elif set_id == "multi-head":
        check_multi_head(v)
    elif set_id == "push-gradient":
        check_push_gradient(x, v)
    elif set_id == "decode-step":
        check_decode_step(x, v)
    elif set_id == "positions":
        check_positions(x, v)
    elif set_id == "grouped-query":
        check_grouped_query(x, v)
    else:
        pytest.fail(f"no check for set {set_id}")


def check_decode_step(x, v):
    """Simulate the decoder with lists: read tokens one by one, append each token's key and value rows to every head of
    every layer, count the query-key products of the last step, with the cache and recomputing every row."""
    L, t, layers, heads, d_k, itemsize = (int(k) for k in x["given"][0])
    tokens = ["s"] * L + ["|"] + ["w"] * (t - 1)  # what the step that writes output digit t has read
    cache = [[{"K": [], "V": []} for _ in range(heads)] for _ in range(layers)]
    cached = 0
    for _ in tokens:
        cached = 0
        for layer in cache:
            for head in layer:
                head["K"].append([0.0] * d_k)
                head["V"].append([0.0] * d_k)
                cached += len(head["K"])  # the new query row against every cached key
    stored = sum(len(row) for layer in cache for head in layer for rows in head.values() for row in rows) * itemsize
    recomputed = sum(len(tokens) * len(head["K"]) for layer in cache for head in layer)
    source_positions = list(range(1, L + 1))
    assert answer(v, "key")[0, 0] == source_positions[::-1][t - 1]
    assert answer(v, "cache")[0, 0] == stored
    assert answer(v, "dots").tolist() == [[cached, recomputed]]


def check_grouped_query(x, v):
    """Which key/value head each query head reads, against transformers' LLaMA repeat_kv (each key/value head filled
    with its own number, repeated for its group); the cache by a plain loop that stores a key and a value row of d_k
    numbers per token, layer and key/value head, and again as if each query head had its own."""
    torch = pytest.importorskip("torch")
    from transformers.models.llama.modeling_llama import repeat_kv  # noqa: PLC0415

    h, h_kv, layers, d_k, n, itemsize = (int(k) for k in x["given"][0])
    labelled = torch.arange(1, h_kv + 1, dtype=torch.float64).reshape(1, h_kv, 1, 1)  # key/value head m holds m
    read = repeat_kv(labelled, h // h_kv)[0, :, 0, 0].tolist()  # (1, h, 1, 1): what each query head reads
    assert answer(v, "kv").tolist() == [read], f"{v['id']}: query head g reads key/value head ⌈g / (h / h_kv)⌉"

    def cache_numbers(tokens, heads):
        """What a cache holds, counted one entry at a time: a key and a value row of d_k numbers per token,
        layer and key/value head (counted, not allocated: a variant's cache runs to millions of numbers)."""
        count = 0
        for _ in range(tokens):
            for _ in range(layers):
                for _ in range(heads):
                    for _ in ("K", "V"):
                        count += d_k
        return count

    assert answer(v, "cache").tolist() == [[cache_numbers(1, h_kv), cache_numbers(n, h_kv) * itemsize]]
    assert answer(v, "full").tolist() == [[cache_numbers(n, h) * itemsize]]


def turn(pair, theta):
    a, b = pair
    return [a * math.cos(theta) - b * math.sin(theta), a * math.sin(theta) + b * math.cos(theta)]


def turned_by_loops(x, p, omega):
    """x turned by RoPE to position p with plain loops: pair r (entries 2r − 1, 2r) by p·omega[r − 1]."""
    return [e for r, w in enumerate(omega) for e in turn(x[2 * r:2 * r + 2], p * w)]


def frequencies_by_hand(d):
    return [10000 ** (-2 * r / d) for r in range(d // 2)]  # r counted from 0 here: pair r + 1


def check_positions(x, v):
    """The sinusoid entry, the turned pair and the RoPE score, by plain loops from the formulas on the Positions page;
    the score again with both positions moved (it depends on the offset only), and against torch's rotation of
    the pairs as complex numbers."""
    torch = pytest.importorskip("torch")
    d, p, p_key, entry, r = (int(k) for k in x["given"][0])
    q, k = as_lists(x["q"])[0], as_lists(x["k"])[0]
    omega = frequencies_by_hand(d)
    angle = p * omega[(entry + 1) // 2 - 1]
    assert answer(v, "pe")[0, 0] == pytest.approx(math.sin(angle) if entry % 2 else math.cos(angle), abs=1e-12)
    np.testing.assert_allclose(answer(v, "turned")[0], turn(q[2 * r - 2:2 * r], p * omega[r - 1]), rtol=0, atol=1e-12)
    score = math.fsum(a * b for a, b in zip(turned_by_loops(q, p, omega), turned_by_loops(k, p_key, omega)))
    assert answer(v, "score")[0, 0] == pytest.approx(score, abs=1e-12)
    moved = math.fsum(a * b for a, b in zip(turned_by_loops(q, p + 57, omega), turned_by_loops(k, p_key + 57, omega)))
    assert moved == pytest.approx(score, abs=1e-9), "the RoPE score depends on the offset p − p′ only"
    as_complex = lambda x, pos: torch.view_as_complex(torch.tensor(x, dtype=torch.float64).reshape(-1, 2)) * \
        torch.polar(torch.ones(d // 2, dtype=torch.float64), pos * torch.tensor(omega, dtype=torch.float64))
    torch_score = (torch.view_as_real(as_complex(q, p)) * torch.view_as_real(as_complex(k, p_key))).sum().item()
    assert answer(v, "score")[0, 0] == pytest.approx(torch_score, abs=1e-12)


def check_multi_head(v):
    n, d_model = (int(k) for k in re.search(r"n = (\d+) tokens of width d_model = (\d+)", v["prompt"]).groups())
    costs = v["parts"][1]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d_model)).tolist()
    Ws = [rng.normal(size=(d_model, d_model)).tolist() for _ in range(4)]
    for label, (d_k, entries, params, macs) in zip(costs["rows"], costs["values"]):
        h = int(label.removeprefix("h = "))
        loops.COUNTER["macs"] = 0
        _, weights = loops.multi_head_attention(X, *Ws, n_heads=h)
        attention_macs = loops.COUNTER["macs"]  # the loops count QKᵀ and weights·V, not the projections
        projection_macs = 4 * sum(len(row) * len(Ws[0][0]) for row in X)  # one multiply-add per X entry per column
        assert d_k == d_model / h
        assert entries == sum(len(w) * len(w[0]) for w in weights)
        assert params == sum(len(W) * len(W[0]) for W in Ws)
        assert macs == attention_macs + projection_macs
    shapes = arr(v["parts"][0])
    h = int(v["parts"][0]["label"].rsplit(" ", 1)[1])
    assert shapes.tolist() == [[h, n, d_model // h], [h, n, n], [h, n, d_model // h]]
    assert v["parts"][0]["tolerance"] == 0 and costs["tolerance"] == 0


def check_push_gradient(x, v):
    """dV and dS against torch's autograd through softmax and W·V, and against plain loops."""
    torch = pytest.importorskip("torch")
    W, V, dO = x["A"], x["V"], x["dO"]
    positive = W > 0
    S = torch.tensor(np.where(positive, np.log(np.where(positive, W, 1.0)), -np.inf), requires_grad=True)
    tV = torch.tensor(V, requires_grad=True)
    (torch.softmax(S, dim=-1) @ tV * torch.tensor(dO)).sum().backward()
    np.testing.assert_allclose(answer(v, "dV"), tV.grad.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(answer(v, "dS"), torch.nan_to_num(S.grad).numpy(), rtol=0, atol=1e-12)
    Wl, Vl, dOl = as_lists(W), as_lists(V), as_lists(dO)
    dV = [[sum(Wl[i][j] * dOl[i][c] for i in range(len(Wl))) for c in range(len(Vl[0]))] for j in range(len(Vl))]
    dW = [[sum(a * b for a, b in zip(dOl[i], Vl[j])) for j in range(len(Vl))] for i in range(len(Wl))]
    dS = [[Wl[i][j] * (dW[i][j] - sum(w * g for w, g in zip(Wl[i], dW[i]))) for j in range(len(Vl))]
          for i in range(len(Wl))]
    np.testing.assert_allclose(answer(v, "dV"), dV, **EXACT)
    np.testing.assert_allclose(answer(v, "dS"), dS, **EXACT)


# ---------------------------------------------------------------- common slips, recomputed by plain loops


def transpose(M):
    return [list(col) for col in zip(*M)]


def slip_tables(set_id, v):
    """{(part, slip): what that mistake gives}, worked out with plain loops on the variant's inputs, for every
    slip whose shapes allow a result; independent of sets.py's numpy."""
    x = {name: as_lists(a) for name, a in inputs(v).items()}
    out = {}
    if set_id == "scale-scores":
        Q, K = x["Q"], x["K"]
        d_k = len(Q[0])
        raw = loops.scores(Q, K)
        out["scaled_scores", "unscaled"] = raw
        out["scaled_scores", "over_d_k"] = [[s / d_k for s in row] for row in raw]
        if len(K) == d_k:
            out["scaled_scores", "no_transpose"] = [[s / math.sqrt(d_k) for s in row] for row in loops.matmul(Q, K)]
        out["scaled_scores", "swapped"] = loops.scaled_scores(K, Q)
    elif set_id == "soften-rows":
        out["weights", "columns"] = transpose(loops.softmax(transpose(x["S"])))
        if not any(p["name"] == "entropy" for p in v["parts"]):
            return out
        H = [loops.row_entropy(row) for row in loops.softmax(x["S"])]
        out["entropy", "bits"] = [[loops.row_entropy(row, base=2)] for row in loops.softmax(x["S"])]
        out["entropy", "sign"] = [[-h] for h in H]
    elif set_id == "weighted-sum":
        W, V = x["A"], x["V"]
        if len(W) == len(W[0]):
            out["out", "transposed_weights"] = loops.matmul(transpose(W), V)
        if len(V[0]) == len(W):
            out["out", "v_first"] = loops.matmul(V, W)
        out["out", "unweighted"] = [[math.fsum(col) / len(V) for col in transpose(V)]] * len(W)
    elif set_id == "end-to-end":
        Q, K, V = (loops.matmul(x["X"], x[w]) for w in ("W_Q", "W_K", "W_V"))
        mask = x.get("mask")
        n, d_k = len(Q), len(Q[0])
        wrong_scores = {"unscaled": (loops.scores(Q, K), mask),
                        "over_d_k": (loops.scaled_scores(Q, K, scale=1 / d_k), mask)}
        if d_k == n:
            wrong_scores["no_transpose"] = ([[s / math.sqrt(d_k) for s in row] for row in loops.matmul(Q, K)], mask)
        if mask is not None:
            wrong_scores["unmasked"] = (loops.scaled_scores(Q, K), None)
        for key, (S, m) in wrong_scores.items():
            out["weights", key] = loops.softmax(S, m)
        out["weights", "columns"] = transpose(loops.softmax(transpose(loops.scaled_scores(Q, K)),
                                                            None if mask is None else transpose(mask)))
        for key in [k for part, k in out if part == "weights"]:
            out["out", key] = loops.matmul(out["weights", key], V)
        weights = loops.attend(Q, K, V, mask)[1]
        out["out", "transposed_weights"] = loops.matmul(transpose(weights), V)
        if len(V[0]) == n:
            out["out", "v_first"] = loops.matmul(V, weights)
    elif set_id == "masks":
        S, mask = x["S"], x["mask"]
        row = int(re.search(r"Row (\d+)", v["parts"][0]["label"]).group(1)) - 1
        out["row_unmasked", "masked"] = [loops.softmax(S, mask)[row]]
        out["row_unmasked", "columns"] = [transpose(loops.softmax(transpose(S)))[row]]
        out["weights", "unmasked"] = loops.softmax(S)
        out["weights", "not_renormalised"] = [[w if ok else 0.0 for w, ok in zip(r, m)]
                                              for r, m in zip(loops.softmax(S), mask)]
        out["weights", "columns"] = transpose(loops.softmax(transpose(S), transpose(mask)))
    elif set_id == "push-gradient":
        W, V, dO = x["A"], x["V"], x["dO"]
        if len(W) == len(W[0]):
            out["dV", "not_transposed"] = loops.matmul(W, dO)
        dA = loops.matmul(dO, transpose(V))
        dS = answer(v, "dS").tolist()  # recomputed by autograd and loops in test_answers_match_library_and_loops
        out["dS", "sign"] = [[-g for g in row] for row in dS]
        out["dS", "dA"] = dA
        out["dS", "no_average"] = [[w * g for w, g in zip(rw, rg)] for rw, rg in zip(W, dA)]
    elif set_id == "positions":
        d, p, p_key, entry, r = (int(k) for k in x["given"][0])
        q, k = x["q"][0], x["k"][0]
        omega = frequencies_by_hand(d)
        next_pair = [10000 ** (-2 * (i + 1) / d) for i in range(d // 2)]  # pair r read as counted from 0
        wave, other = (math.sin, math.cos) if entry % 2 else (math.cos, math.sin)
        r_entry = (entry + 1) // 2
        out["pe", "degrees"] = [[wave(math.radians(p * omega[r_entry - 1]))]]
        out["pe", "wrong_pair"] = [[wave(p * next_pair[r_entry - 1])]]
        if entry <= d // 2:
            out["pe", "entry_as_pair"] = [[wave(p * omega[entry - 1])]]
        out["pe", "sin_cos"] = [[other(p * omega[r_entry - 1])]]
        pair = q[2 * r - 2:2 * r]
        out["turned", "degrees"] = [turn(pair, math.radians(p * omega[r - 1]))]
        out["turned", "wrong_pair"] = [turn(pair, p * next_pair[r - 1])]
        out["turned", "clockwise"] = [turn(pair, -p * omega[r - 1])]
        dot = lambda a, b: [[math.fsum(x * y for x, y in zip(a, b))]]
        out["score", "absolute"] = dot(turned_by_loops(q, p, omega), k)
        out["score", "offset_sign"] = dot(turned_by_loops(q, p_key - p, omega), k)
        out["score", "degrees"] = dot(turned_by_loops(q, math.radians(p), omega), turned_by_loops(k, math.radians(p_key), omega))
        out["score", "wrong_pair"] = dot(turned_by_loops(q, p, next_pair), turned_by_loops(k, p_key, next_pair))
    elif set_id == "grouped-query":
        h, h_kv, layers, d_k, n, itemsize = (int(k) for k in x["given"][0])
        group = h // h_kv
        out["kv", "modulo"] = [[(g - 1) % h_kv + 1 for g in range(1, h + 1)]]
        out["kv", "group_size"] = [[math.ceil(g / h_kv) for g in range(1, h + 1)]]
        out["kv", "from_zero"] = [[math.ceil(g / group) - 1 for g in range(1, h + 1)]]
        per_token = lambda heads, lays=layers, two=2: lays * heads * two * d_k  # noqa: E731
        out["cache", "query_heads"] = [[per_token(h), n * per_token(h) * itemsize]]
        out["cache", "no_two"] = [[per_token(h_kv, two=1), n * per_token(h_kv, two=1) * itemsize]]
        out["cache", "no_layers"] = [[per_token(h_kv, lays=1), n * per_token(h_kv, lays=1) * itemsize]]
        out["cache", "numbers"] = [[per_token(h_kv), n * per_token(h_kv)]]
        out["full", "kv_heads"] = [[n * per_token(h_kv) * itemsize]]
        out["full", "no_two"] = [[n * per_token(h, two=1) * itemsize]]
        out["full", "no_layers"] = [[n * per_token(h, lays=1) * itemsize]]
    return out


@pytest.mark.parametrize(("set_id", "v"), VARIANTS, ids=IDS)
def test_each_slip_is_what_its_mistake_gives_and_never_the_right_answer(set_id, v):
    expected = slip_tables(set_id, v)
    shipped = {(p["name"], s["slip"]): (p, s) for p in v["parts"] for s in p["slips"]}
    assert set(shipped) <= set(expected), set(shipped) - set(expected)
    for (part_name, key), table in expected.items():
        p = next(p for p in v["parts"] if p["name"] == part_name)
        right, tol = arr(p), p["tolerance"]
        if np.shape(table) != right.shape:  # this mistake gives no answer of the part's shape
            assert (part_name, key) not in shipped
            continue
        if (part_name, key) in shipped:
            np.testing.assert_allclose(shipped[part_name, key][1]["values"], table, rtol=0, atol=1e-9,
                                       err_msg=f"{v['id']}: slip {key} of {part_name}")
            # no typed answer can be both right and this slip
            assert np.abs(np.array(table) - right).max() > 2 * tol, f"{v['id']}: {key} equals the right answer"
        else:  # left out only where it cannot be told from the right answer or from an earlier slip
            earlier = [arr({"values": s["values"]}) for s in p["slips"]]
            assert any(np.abs(np.array(table) - other).max() <= 2 * tol for other in [right, *earlier]), \
                f"{v['id']}: slip {key} of {part_name} was left out"


def test_the_common_slips_are_offered_where_they_apply():
    offered = {(s["set"], p["name"], slip["slip"]) for s in DATA for v in s["variants"] for p in v["parts"]
               for slip in p["slips"]}
    assert {("scale-scores", "scaled_scores", "unscaled"), ("scale-scores", "scaled_scores", "no_transpose"),
            ("soften-rows", "weights", "columns"), ("weighted-sum", "out", "transposed_weights"),
            ("end-to-end", "weights", "unscaled"), ("end-to-end", "weights", "columns"),
            ("end-to-end", "out", "transposed_weights"), ("masks", "weights", "not_renormalised"),
            ("push-gradient", "dS", "sign"), ("push-gradient", "dV", "not_transposed"),
            ("positions", "pe", "degrees"), ("positions", "pe", "wrong_pair"),
            ("positions", "turned", "degrees"), ("positions", "turned", "wrong_pair"),
            ("positions", "score", "absolute"), ("positions", "score", "degrees"),
            ("positions", "score", "wrong_pair"), ("grouped-query", "kv", "modulo"),
            ("grouped-query", "kv", "group_size"), ("grouped-query", "kv", "from_zero"),
            ("grouped-query", "cache", "query_heads"), ("grouped-query", "cache", "no_two"),
            ("grouped-query", "cache", "no_layers"), ("grouped-query", "cache", "numbers"),
            ("grouped-query", "full", "kv_heads"), ("grouped-query", "full", "no_two"),
            ("grouped-query", "full", "no_layers")} <= offered
    first = BY_SET["scale-scores"]["variants"][0]["parts"][0]["slips"][0]
    assert first["message"] == "This is QKᵀ without the ÷√d_k: divide each score by √d_k = 2."


# ---------------------------------------------------------------- hand-friendly inputs


@pytest.mark.parametrize(("set_id", "v"), VARIANTS, ids=IDS)
def test_inputs_are_hand_friendly(set_id, v):
    for m in v["inputs"]:
        a = arr(m)
        if a.dtype == bool:
            continue
        if set_id == "decode-step":  # counts, not a matrix to multiply: small positive integers
            assert a.shape == (1, 6) and (a == np.round(a)).all() and (a >= 1).all() and a.max() <= 32, a
            continue
        if set_id == "grouped-query":  # counts: heads, layers, d_k, tokens and bytes per number, the heads shared evenly
            h, h_kv, layers, d_k, n, itemsize = a[0]
            assert a.shape == (1, 6) and (a == np.round(a)).all() and (a >= 1).all() and h % h_kv == 0, a
            assert h <= 16 and layers <= 32 and d_k <= 128 and n <= 1024 and itemsize in (2, 4), a
            continue
        if set_id == "positions" and m["name"] == "given":  # a width, two positions, an entry and a pair
            d, p, p_key, entry, r = a[0]
            assert (a == np.round(a)).all() and d in (4, 6) and 0 <= p_key and max(p, p_key) <= 50, a
            assert 1 <= entry <= d and 1 <= r <= d / 2 and 1 <= abs(p - p_key) <= 3, a
            continue
        if set_id == "positions":  # q and k: one row of width d
            assert a.shape in ((1, 4), (1, 6)) and (a == np.round(a)).all() and np.abs(a).max() <= 2, a
            continue
        assert np.all(np.abs(a * 10 - np.round(a * 10)) < 1e-9), f"{m['name']} is not in tenths: {a}"
        assert np.abs(a).max() <= 3, f"{m['name']} has large entries: {a}"
        assert a.shape[0] <= 4 and a.shape[1] <= 4
    if set_id == "scale-scores":
        assert inputs(v)["Q"].shape[1] <= 4
    if set_id in ("weighted-sum", "push-gradient"):
        np.testing.assert_allclose(inputs(v)["A"].sum(axis=1), 1, atol=1e-12)


def test_each_set_has_at_least_ten_distinct_variants():
    assert [s["set"] for s in DATA] == ["scale-scores", "soften-rows", "weighted-sum", "end-to-end", "masks", "multi-head",
                                        "push-gradient", "decode-step", "positions", "grouped-query"]
    for s in DATA:
        assert len(s["variants"]) >= 10
        keys = {json.dumps([v["inputs"], v["prompt"]]) for v in s["variants"]}
        assert len(keys) == len(s["variants"]), f"{s['set']} repeats a variant"


def test_some_variants_have_entropy_masks_and_several_kinds():
    assert sum(any(p["name"] == "entropy" for p in v["parts"]) for v in BY_SET["soften-rows"]["variants"]) >= 3
    masked = [v for v in BY_SET["end-to-end"]["variants"] if "mask" in inputs(v)]
    assert 3 <= len(masked) < len(BY_SET["end-to-end"]["variants"])
    kinds = ("mask is causal", "mask hides padding", "sliding window")
    assert set(kinds) == {kind for v in BY_SET["masks"]["variants"] for kind in kinds if kind in v["prompt"]}


def test_variants_are_reproducible():
    assert problems.all_sets() == DATA


# The published variants' inputs and questions (exact: small integers and tenths). Teachers reuse them by
# their id, so changing one is a deliberate act: update this fingerprint in the same commit.
# A set added later gets a fingerprint of its own, so adding one leaves the others' untouched.
# Variants added to a set later (end-to-end-13 on, with other sizes than d_k = 4) are frozen by a digest of
# their own, so adding them left the first twelve's untouched. The labels' symbols changed once (issue 40: S̃ and A),
# and the weights' input name once (W -> A, as the page and the kit's parameters call them); the inputs' numbers did not.
# decode-step's digit count was relabelled L -> N (issue 54: L is the loss); its numbers did not change.
PUBLISHED_INPUTS_SHA256 = "ddc83df9a11ddce7e86c6f73894ffed29db0dfe3c7e3e0dd0a22eea1387d5919"
ADDED_SETS_SHA256 = {"push-gradient": "293159c653956079fc57cf1b337d89c8e2e7401cd9df96400f48cbd3a8bc3bb1",
                     "decode-step": "2f2cb6f158209bc377e9440b7ba256f009e12a3b7a8b9b85ba5190204cdd5a1b",
                     "positions": "394be3a83854378c04395220f8a96e9ec95dbb93b7f2b5a85ba08cd402ef9cd6",
                     "grouped-query": "2d44cb56dda072617bf24115215353ee4911ee9863cf98e312fa32a0b7e72cb8"}
FIRST_PUBLISHED = 12
ADDED_VARIANTS_SHA256 = {"end-to-end": "7e874a57061ab447cd01ed7ebafef5d218e8dc1597913f69ef42470e8f3d8fee"}


def fingerprint(sets, variants=slice(FIRST_PUBLISHED)):
    frozen = [[v["id"], v["inputs"], [p["label"] for p in v["parts"]]] for s in sets for v in s["variants"][variants]]
    return hashlib.sha256(json.dumps(frozen, sort_keys=True).encode()).hexdigest()


# The conceptual questions (problems/concepts.json): their ids, prompts, choices and answers, frozen the same way.
# Question 8's vector lost its name b (issue 54: b is a learned bias); its numbers and answer did not change.
CONCEPTS_SHA256 = "9951cbb9526f7e3cff375e3e77bb78e939124cf7fe37bb2c2d527a4a8b53100c"


def test_published_concept_questions_are_frozen():
    frozen = [[q["id"], q["prompt"], q["choices"], q["answer"]] for q in problems_sets.concepts_set()["questions"]]
    assert hashlib.sha256(json.dumps(frozen, sort_keys=True).encode()).hexdigest() == CONCEPTS_SHA256


def test_published_inputs_are_frozen():
    assert fingerprint([s for s in DATA if s["set"] not in ADDED_SETS_SHA256]) == PUBLISHED_INPUTS_SHA256
    for set_id, digest in ADDED_SETS_SHA256.items():
        assert fingerprint([BY_SET[set_id]]) == digest, set_id
    for set_id, digest in ADDED_VARIANTS_SHA256.items():
        assert fingerprint([BY_SET[set_id]], slice(FIRST_PUBLISHED, None)) == digest, set_id
    assert all(len(s["variants"]) == FIRST_PUBLISHED for s in DATA if s["set"] not in ADDED_VARIANTS_SHA256)


# ---------------------------------------------------------------- solutions lead to the answers


@pytest.mark.parametrize(("set_id", "v"), VARIANTS, ids=IDS)
def test_solution_steps_are_consistent(set_id, v):
    x, st = inputs(v), steps(v)
    for p in v["parts"]:  # every answer appears, with the same numbers, as a step of the solution
        np.testing.assert_allclose(st[p["name"]], arr(p), **EXACT, err_msg=f"{v['id']}: solution step {p['name']}")
    if {"shifted", "exp", "sums", "weights", "row_max"} <= set(st):
        S = st["masked"] if "masked" in st else (st["scaled_scores"] if "scaled_scores" in st else x["S"])
        finite = np.isfinite(S)
        np.testing.assert_allclose(st["row_max"][:, 0], np.where(finite, S, -np.inf).max(axis=1), **EXACT)
        np.testing.assert_allclose(st["shifted"][finite], (S - st["row_max"])[finite], **EXACT)
        assert (st["shifted"][~finite] == -np.inf).all()
        np.testing.assert_allclose(st["exp"], np.exp(st["shifted"]), **EXACT)
        np.testing.assert_allclose(st["sums"][:, 0], st["exp"].sum(axis=1), **EXACT)
        np.testing.assert_allclose(st["weights"], st["exp"] / st["sums"], **EXACT)
    if set_id == "scale-scores":
        np.testing.assert_allclose(st["scores"], x["Q"] @ x["K"].T, **EXACT)
        np.testing.assert_allclose(st["scaled_scores"], st["scores"] / math.sqrt(x["Q"].shape[1]), **EXACT)
    if set_id == "end-to-end":
        for name, w in (("Q", "W_Q"), ("K", "W_K"), ("V", "W_V")):
            np.testing.assert_allclose(st[name], x["X"] @ x[w], **EXACT)
        np.testing.assert_allclose(st["scores"], st["Q"] @ st["K"].T, **EXACT)
        np.testing.assert_allclose(st["scaled_scores"], st["scores"] / math.sqrt(st["Q"].shape[1]), **EXACT)
        np.testing.assert_allclose(st["out"], st["weights"] @ st["V"], **EXACT)
    if set_id == "soften-rows" and "entropy" in st:
        np.testing.assert_allclose(st["entropy"][:, 0], st["entropy_terms"].sum(axis=1), **EXACT)
    if set_id == "masks":
        np.testing.assert_array_equal(np.isinf(st["masked"]), ~x["mask"])
    if set_id == "push-gradient":
        np.testing.assert_allclose(st["dA"], x["dO"] @ x["V"].T, **EXACT)
        np.testing.assert_allclose(st["pull"][:, 0], (st["dA"] * x["A"]).sum(axis=1), **EXACT)
        np.testing.assert_allclose(st["dS"], x["A"] * (st["dA"] - st["pull"]), **EXACT)
        np.testing.assert_allclose(st["dS"].sum(axis=1), 0, atol=1e-12)
        np.testing.assert_allclose(st["dV"], x["A"].T @ x["dO"], **EXACT)
    if set_id == "positions":
        d, p, p_key, entry, r = (int(k) for k in x["given"][0])
        np.testing.assert_allclose(st["omega"][0], [10000 ** (-2 * i / d) for i in range(d // 2)], rtol=1e-15)
        np.testing.assert_allclose(st["turned"], st["q_hat"][:, 2 * r - 2:2 * r], **EXACT)
        np.testing.assert_allclose(st["score"], st["q_hat"] @ A.rope(x["k"], [p_key]).T, **EXACT)
        np.testing.assert_allclose(st["score"], st["q_offset"] @ x["k"].T, **EXACT)
        np.testing.assert_allclose(st["k_hat"], A.rope(x["k"], [p_key]), **EXACT)
    if set_id == "weighted-sum":  # one sentence per row, ending in that row of the output
        for i, row in enumerate(answer(v, "out")):
            text = next(s["text"] for s in v["solution"] if s["key"] == f"row_{i + 1}")
            assert text.endswith(f"= {problems_sets.fmt_vec(row)}.")


@pytest.mark.parametrize(("set_id", "v"), VARIANTS, ids=IDS)
def test_hints_quote_the_answers_numbers(set_id, v):
    """Hints come one step at a time and quote the answer's own numbers for row 1 (or entry (1, 1))."""
    assert 3 <= len(v["hints"]) <= 6 and all(h.strip() for h in v["hints"])
    text = " ".join(v["hints"])
    if set_id in ("soften-rows", "end-to-end"):
        assert problems_sets.fmt_vec(answer(v, "weights")[0]) in text
    if set_id in ("weighted-sum", "end-to-end"):
        assert problems_sets.fmt_vec(answer(v, "out")[0]) in text
    if set_id == "scale-scores":
        assert f"= {fmt(answer(v, 'scaled_scores')[0, 0])}." in text
    if set_id == "masks":
        assert problems_sets.fmt_vec(answer(v, "row_unmasked")[0]) in text
    if set_id == "multi-head":
        assert f"= {fmt(answer(v, 'costs')[0, 2])}, whatever h is" in text
    if set_id == "decode-step":
        assert f"holds all {int(inputs(v)['given'][0, 0] + inputs(v)['given'][0, 1])}." in text
    if set_id == "positions":
        d, p, p_key = (int(k) for k in inputs(v)["given"][0, :3])
        assert f"the offset p − p′ = {fmt(p - p_key)} only" in text
        assert problems_sets.fmt_vec(steps(v)["q_offset"][0]) in text
    if set_id == "grouped-query":
        read = v["hints"][1]  # names the last query head's key/value head, and the rule
        assert f"key/value head {int(answer(v, 'kv')[0, -1])}" in read and "reads key/value head ⌈g / " in read
        assert f"= {int(answer(v, 'cache')[0, 0]):,} numbers." in text
    if set_id == "push-gradient":
        assert f"= {fmt(answer(v, 'dV')[0, 0])}." in text
        assert problems_sets.fmt_vec(answer(v, "dS")[0]) in text


# ---------------------------------------------------------------- the published shape


MATRIX_KEYS = {"name", "label", "values", "rows", "cols"}


def check_matrix(m, extra=()):
    assert set(m) == MATRIX_KEYS | set(extra), sorted(m)
    assert len(m["values"]) == len(m["rows"]) and all(len(r) == len(m["cols"]) for r in m["values"])
    for row in m["values"]:
        for x in row:
            assert x is None or isinstance(x, (bool, float, int)), x


def test_json_shape_is_stable():
    for s in DATA:
        text = problems.set_json(s)
        loaded = json.loads(text)
        assert loaded.pop("precision") == published_note(), "a set's JSON says how its numbers are rounded"
        assert loaded == published(s), "a set's JSON is the set, each array rounded as text.published rounds it"
        assert list(s) == ["set", "title", "page", "library_version", "variants"]
        assert s["page"] == "problems/" and s["library_version"] == A.__version__
        for k, v in enumerate(s["variants"]):
            assert list(v) == ["id", "seed", "prompt", "inputs", "parts", "hints", "solution"]
            assert v["id"] == f"{s['set']}-{k + 1:02d}"
            assert isinstance(v["seed"], int) and v["prompt"].endswith(".")
            for m in v["inputs"]:
                check_matrix(m)
            assert v["parts"]
            for p in v["parts"]:
                check_matrix(p, ["tolerance", "slips"])
                for slip in p["slips"]:
                    assert list(slip) == ["slip", "message", "values"] and slip["message"].endswith(".")
                    assert np.shape(slip["values"]) == np.shape(p["values"])
                assert all(isinstance(x, float) for row in p["values"] for x in row)
                assert p["tolerance"] in (0, 0.01)
            for st in v["solution"]:
                assert set(st) in ({"key", "text"}, {"key", "text", "matrix"}) and st["text"]
                if "matrix" in st:
                    check_matrix(st["matrix"])
        assert "NaN" not in text and "Infinity" not in text


def test_build_publishes_sets_kit_and_snippets(tmp_path):
    build.build(only=["problems"], out=tmp_path, log=lambda *_: None)
    for s in DATA:
        assert (tmp_path / "public" / "problems" / f"{s['set']}.json").read_text(encoding="utf-8") == problems.set_json(s)
        snippet = (tmp_path / "snippets" / f"problems-{s['set']}.md").read_text(encoding="utf-8")
        assert f'data-src="problems/{s["set"]}.json"' in snippet
    assert (tmp_path / "public" / "problems" / "problems.py").read_text(encoding="utf-8") == problems.kit(DATA)


# ---------------------------------------------------------------- number format and page blocks


@pytest.mark.parametrize(("value", "text"), [
    (0.5, "0.5"), (-1.25, "−1.25"), (2.0, "2"), (0.03125, "0.0312"), (-0.03125, "−0.0312"), (0.09375, "0.0938"),
    (0.123449, "0.1234"), (-0.00001, "0"), (163840, "163,840"), (-1234.5, "−1,234.5"), (999, "999"), (None, "−∞"), (True, "1"), (False, "0"),
])
def test_number_format(value, text):
    assert fmt(value) == text


class Blocks(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inputs, self.labels = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input":
            self.inputs.append(a)
            self.labels.append(a["aria-label"])


@pytest.mark.parametrize("problem_set", DATA, ids=[s["set"] for s in DATA])
def test_page_block_has_one_labelled_input_per_answer_entry(problem_set):
    html = problems_render.problem_html(problem_set, problems.json_path(problem_set))
    assert "\n\n" not in html  # a blank line would end the raw HTML block in Markdown
    parser = Blocks()
    parser.feed(html)
    v = problem_set["variants"][0]
    cells = [(k, i, j) for k, p in enumerate(v["parts"]) for i in range(len(p["rows"])) for j in range(len(p["cols"]))]
    assert [(int(a["data-part"]), int(a["data-row"]), int(a["data-col"])) for a in parser.inputs] == cells
    assert len(set(parser.labels)) == len(cells)
    assert all(re.search(r"row \d+ \(.+\), column \d+ \(.+\)$", label) for label in parser.labels)
    for st in v["solution"]:  # the no-JS solution carries every step and its numbers
        assert typeset(st["text"]) in html  # its symbols' subscripts set as <sub>
        for row in st.get("matrix", {}).get("values", []):
            assert "".join(f"<td>{fmt(x)}</td>" for x in row) in html


@pytest.mark.parametrize("problem_set", DATA, ids=[s["set"] for s in DATA])
def test_search_indexes_a_problems_words_not_its_numbers(problem_set):
    """The theme's own search parser, run on the block: the prompt and the hints are found; this variant's
    matrices, answer grid, buttons and solution are not (run together into strings like "k1k2k3k4q1−4−523",
    they matched searches for their numbers and made the index every page fetches at load 2 KB bigger,
    gzipped)."""
    from material.plugins.search.plugin import Parser

    parser = Parser()
    parser.feed(problems_render.problem_html(problem_set, problems.json_path(problem_set)))
    parser.close()
    text = "".join("".join(section.text) for section in parser.data)
    v = problem_set["variants"][0]

    def words(source):  # as the parser hands them on: &#x27; is '
        return unescape(typeset(source))

    assert words(v["prompt"]) in text
    assert all(words(hint) in text for hint in v["hints"])
    # as the parser runs a table's cells together: the column labels, then a row label and its numbers
    tables = [unescape("".join(typeset(c) for c in m["cols"]) + typeset(m["rows"][0]))
              for m in [*v["inputs"], *v["parts"], *(step["matrix"] for step in v["solution"] if "matrix" in step)]]
    tables += [m["rows"][0] + "".join(fmt(x) for x in m["values"][0]) for m in v["inputs"]]
    for excluded in ("CheckHint", "New variant", "Solution", *tables):
        assert excluded not in text, f"{excluded!r} is in the search index"


@pytest.mark.parametrize("problem_set", DATA, ids=[s["set"] for s in DATA])
def test_the_solution_waits_outside_the_dom_until_opened(problem_set):
    """finish/details.py finds the block's solution by its markup: if the two drift apart, every solution's
    steps are elements at load (about 730 on the page, against its DOM budget)."""
    from finish.details import lazy

    html = lazy(problems_render.problem_html(problem_set, problems.json_path(problem_set)))
    steps = html.split('<div class="aih-problem__steps">', 1)[1]
    assert steps.startswith('<noscript class="aih-lazy">') and "</noscript></div></details>" in steps


# ---------------------------------------------------------------- the kit


@pytest.fixture(scope="module")
def kit_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("kit") / "problems.py"
    path.write_text(problems.kit(DATA), encoding="utf-8")
    return path


def run_kit(kit_file, solution=None):
    """Run the kit as a reader would; `solution` is code that replaces its stubs before main() runs."""
    if solution is None:
        cmd = [sys.executable, str(kit_file)]
    else:
        runner = kit_file.parent / "run_solution.py"
        runner.write_text(
            "import sys\nsys.path.insert(0, sys.argv[1])\nimport numpy as np\nimport attention as A\n"
            "import problems as kit\n" + solution + "\nsys.exit(kit.main())\n", encoding="utf-8")
        cmd = [sys.executable, str(runner), str(kit_file.parent)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=kit_file.parent)


LIBRARY_SOLUTION = """
kit.scale_scores = lambda Q, K: A.scaled_scores(Q, K)
kit.soften_rows = lambda S, mask=None: A.softmax(S, mask)
kit.weighted_sum = lambda A, V: A @ V
kit.attention_end_to_end = lambda X, W_Q, W_K, W_V, mask=None: A.attend(X @ W_Q, X @ W_K, X @ W_V, mask)[0]
kit.value_gradient = lambda A, V, dO: A.T @ dO
kit.score_gradient = lambda A, V, dO: A * (dO @ V.T - (A * (dO @ V.T)).sum(axis=1, keepdims=True))
kit.source_digit = lambda given: [[given[0, 0] - given[0, 1] + 1]]
kit.kv_cache_bytes = lambda given: [[(given[0, 0] + given[0, 1]) * given[0, 2] * given[0, 3] * 2 * given[0, 4] * given[0, 5]]]
kit.step_dot_products = lambda given: [[given[0, 2] * given[0, 3] * (given[0, 0] + given[0, 1]),
                                        given[0, 2] * given[0, 3] * (given[0, 0] + given[0, 1]) ** 2]]
kit.sinusoid_entry = lambda given: [[A.sinusoidal_positions(int(given[0, 1]) + 1, int(given[0, 0]))[int(given[0, 1]), int(given[0, 3]) - 1]]]
kit.rope_pair = lambda given, q: A.rope(q, [given[0, 1]])[:, 2 * int(given[0, 4]) - 2:2 * int(given[0, 4])]
kit.rope_score = lambda given, q, k: A.rope(q, [given[0, 1]]) @ A.rope(k, [given[0, 2]]).T
kit.kv_heads_read = lambda given: [[A.kv_head_of(g, int(given[0, 0]), int(given[0, 1])) + 1 for g in range(int(given[0, 0]))]]
kit.grouped_kv_cache = lambda given: [[given[0, 2] * given[0, 1] * 2 * given[0, 3],
                                       given[0, 4] * given[0, 2] * given[0, 1] * 2 * given[0, 3] * given[0, 5]]]
"""


def test_kit_untouched_stubs_fail(kit_file):
    result = run_kit(kit_file)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("not implemented yet") == 15
    assert "0 of 15 steps pass" in result.stdout


def test_kit_passes_a_correct_solution(kit_file):
    result = run_kit(kit_file, LIBRARY_SOLUTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASS") == 15 and "15 of 15 steps pass" in result.stdout


def test_kit_names_the_failing_step_and_entry(kit_file):
    unscaled = LIBRARY_SOLUTION + "kit.scale_scores = lambda Q, K: A.scores(Q, K)\n"
    result = run_kit(kit_file, unscaled)
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert [line[:4] for line in lines] == ["FAIL"] + ["PASS"] * 14
    assert re.search(r"scale-scores-\d\d: entry \(\d, \d\) is -?[\d.]+, expected", lines[0])


def test_kit_fails_a_fixed_divisor_of_2_in_every_step_that_scales(kit_file):
    """Dividing by 2 is right only for d_k = 4: every step that divides by √d_k has a variant with another d_k."""
    by_two = LIBRARY_SOLUTION + (
        "kit.scale_scores = lambda Q, K: Q @ K.T / 2\n"
        "kit.attention_end_to_end = lambda X, W_Q, W_K, W_V, mask=None: "
        "A.softmax((X @ W_Q) @ (X @ W_K).T / 2, mask) @ (X @ W_V)\n")
    result = run_kit(kit_file, by_two)
    assert result.returncode == 1, result.stdout
    for name in ("scale_scores(Q, K)", "attention_end_to_end(X, W_Q, W_K, W_V, mask)"):
        (line,) = [line for line in result.stdout.splitlines() if name in line]
        assert line.startswith("FAIL") and "variants pass; first failure" in line, line
    assert "13 of 15 steps pass" in result.stdout
    sizes = {(len(v["inputs"][0]["values"]), len(v["inputs"][0]["values"][0]), len(v["inputs"][1]["values"][0]))
             for v in BY_SET["end-to-end"]["variants"]}  # (n, d_model, d_k)
    assert len({n for n, _, _ in sizes}) > 1 and len({d for _, d, _ in sizes}) > 1 and len({d for _, _, d in sizes}) > 2


@pytest.mark.parametrize("returned, message", [
    ("np.broadcast_to(np.int8(0), (200000, 200000))", r"returned shape \(200000, 200000\), expected \(\d, \d\)"),
    ("Bad()", r"checking what it returned raised RuntimeError: no array here"),
])
def test_kit_survives_a_huge_view_and_an_answer_that_raises_when_read(kit_file, returned, message):
    """The shape is checked before anything is copied (the view would need 298 GiB as floats), and an
    exception while reading the answer fails that step, named, and the kit goes on to the others."""
    solution = LIBRARY_SOLUTION + (
        "class Bad:\n    def __array__(self, *args, **kwargs):\n        raise RuntimeError('no array here')\n"
        f"kit.weighted_sum = lambda A, V: {returned}\n")
    result = run_kit(kit_file, solution)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "14 of 15 steps pass" in result.stdout and "Traceback" not in result.stderr
    (line,) = [line for line in result.stdout.splitlines() if "weighted_sum" in line]
    assert line.startswith("FAIL") and re.search(message, line), line


def test_kit_reports_a_crash_and_a_wrong_shape(kit_file):
    broken = LIBRARY_SOLUTION + (
        "kit.weighted_sum = lambda A, V: 1 / 0\n"
        "kit.soften_rows = lambda S, mask=None: A.softmax(S, mask).T\n")
    result = run_kit(kit_file, broken)
    assert result.returncode == 1
    assert "raised ZeroDivisionError" in result.stdout
    assert re.search(r"returned shape \(\d, \d\), expected \(\d, \d\)", result.stdout)


# ---------------------------------------------------------------- the page's script prints the same numbers


def test_javascript_formats_and_judges_as_the_build_does(tmp_path):
    """docs/widgets/problems/problems.js, run in Node: every number of every variant prints as fmt() prints it."""
    node = shutil.which("node")
    assert node, "Node.js is needed (make test installs it with the npm tooling)"
    values = [x for s in DATA for v in s["variants"]
              for m in v["inputs"] + v["parts"] + [st["matrix"] for st in v["solution"] if "matrix" in st]
              for row in m["values"] for x in row]
    values += [0.03125, -0.03125, 0.09375, -1e-7, 1e-4, 0.00005, 2.5e-5, 123456.0, None, True, False]
    judged = [["0.82", 0.8214, 0.01], ["−1.5", -1.5, 0.01], [" 0.5 ", 0.49, 0.01], ["0.5", 0.52, 0.01],
              ["", 1, 0.01], ["abc", 1, 0.01], ["1/2", 0.5, 0.01], ["4160", 4160, 0], ["4161", 4160, 0], [".25", 0.25, 0]]
    (tmp_path / "values.json").write_text(json.dumps({"values": values, "judged": judged}))
    root = Path(__file__).resolve().parents[1]
    script = root / "docs" / "widgets" / "problems" / "problems.js"
    code = (f"import {{ fmt, judge }} from {json.dumps(script.as_uri())};\n"
            "import { readFileSync } from 'node:fs';\n"
            f"const d = JSON.parse(readFileSync({json.dumps(str(tmp_path / 'values.json'))}, 'utf8'));\n"
            "console.log(JSON.stringify({fmt: d.values.map(fmt), judge: d.judged.map(a => judge(...a))}));\n")
    # problems.js imports the build's contract-problems.js, which the loader generates (tests/js/contract-loader.mjs)
    result = subprocess.run([node, "--import", "./tests/js/contract-loader.mjs", "--input-type=module", "-e", code],
                            cwd=root, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    mismatches = [(x, js, fmt(x)) for x, js in zip(values, out["fmt"]) if js != fmt(x)]
    assert not mismatches, mismatches[:10]
    assert out["judge"] == ["right", "right", "right", "wrong", "empty", "bad", "bad", "right", "wrong", "right"]


def test_javascript_names_each_grouped_query_slip_and_accepts_the_right_answers(tmp_path):
    """problems.js in Node on every variant of the grouped-query set: each part's right answer, typed as integers,
    is judged right and matches no slip; each slip's table, typed, is named as that slip (the first that fits)."""
    node = shutil.which("node")
    assert node, "Node.js is needed (make test installs it with the npm tooling)"
    cases = []
    for v in BY_SET["grouped-query"]["variants"]:
        for p in v["parts"]:
            text = lambda table: [[f"{int(x)}" for x in row] for row in table]  # noqa: E731: as a reader types counts
            cases.append({"id": v["id"], "part": p["name"], "typed": text(p["values"]), "right": p["values"],
                          "slips": p["slips"], "tolerance": p["tolerance"], "expected": None})
            cases += [{**cases[-1], "typed": text(slip["values"]), "expected": slip["slip"]} for slip in p["slips"]]
    assert sum(case["expected"] is not None for case in cases) >= 60
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    root = Path(__file__).resolve().parents[1]
    script = root / "docs" / "widgets" / "problems" / "problems.js"
    code = (f"import {{ judge, matchSlip }} from {json.dumps(script.as_uri())};\n"
            "import { readFileSync } from 'node:fs';\n"
            f"const cases = JSON.parse(readFileSync({json.dumps(str(tmp_path / 'cases.json'))}, 'utf8'));\n"
            "console.log(JSON.stringify(cases.map((c) => {\n"
            "  const entries = c.typed.flatMap((row, i) => row.map((text, j) =>\n"
            "    ({ row: i, col: j, text, verdict: judge(text, c.right[i][j], c.tolerance) })));\n"
            "  const slip = matchSlip(entries, c.slips, c.tolerance);\n"
            "  return [entries.every((e) => e.verdict === 'right'), slip ? slip.slip : null];\n"
            "})));\n")
    result = subprocess.run([node, "--import", "./tests/js/contract-loader.mjs", "--input-type=module", "-e", code],
                            cwd=root, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for case, (all_right, slip) in zip(cases, json.loads(result.stdout)):
        where = f"{case['id']} {case['part']}"
        if case["expected"] is None:
            assert all_right and slip is None, f"{where}: the right answer must be judged right and name no slip"
        else:
            assert not all_right and slip == case["expected"], \
                f"{where}: typing what slip {case['expected']} gives must name it, got {slip}"


def test_kit_fails_grouped_heads_shared_by_the_remainder_and_a_cache_counted_per_query_head(kit_file):
    """The two slips the page names most, written as code: sharing by g mod h_kv, and counting every query head."""
    wrong = LIBRARY_SOLUTION + (
        "kit.kv_heads_read = lambda given: [[g % int(given[0, 1]) + 1 for g in range(int(given[0, 0]))]]\n"
        "kit.grouped_kv_cache = lambda given: [[given[0, 2] * given[0, 0] * 2 * given[0, 3],\n"
        "                                       given[0, 4] * given[0, 2] * given[0, 0] * 2 * given[0, 3] * given[0, 5]]]\n")
    result = run_kit(kit_file, wrong)
    assert result.returncode == 1, result.stdout
    for name in ("kv_heads_read(given)", "grouped_kv_cache(given)"):
        (line,) = [line for line in result.stdout.splitlines() if name in line]
        assert line.startswith("FAIL") and "first failure: grouped-query-" in line, line
    assert "13 of 15 steps pass" in result.stdout


@pytest.mark.parametrize("returned, message", [
    ("A @ V + 5j", r"returned an array of complex128 \(complex128\), expected real numbers"),
    ("(A @ V).astype(str)", r"returned an array of <U\d+ \(str_\), expected real numbers"),
    ("np.array([[object()] * V.shape[1]] * A.shape[0])", r"returned an array of object \(object\)"),
    ("None", r"returned None \(forgot to return\?\)"),
    ("(A @ V) > 0.5", r"returned an array of bool"),
    ("sys.exit(0)", r"raised SystemExit: 0"),
])
def test_kit_fails_what_is_not_an_array_of_real_numbers_and_survives_sys_exit(kit_file, returned, message):
    result = run_kit(kit_file, LIBRARY_SOLUTION + f"kit.weighted_sum = lambda A, V: {returned}\n")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{len(problems.KIT_STEPS) - 1} of {len(problems.KIT_STEPS)} steps pass" in result.stdout
    (line,) = [line for line in result.stdout.splitlines() if "weighted_sum" in line]
    assert line.startswith("FAIL") and re.search(message, line), line


def test_the_intro_counts_the_declared_sets_and_their_variants():
    """The counts are written from the declared sets, not by hand: today nine sets, eight of them numeric."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "problems.md").read_text(encoding="utf-8")
    prose = page.split("\n## ", 1)[0]
    assert '--8<-- "generated/snippets/problems-intro.md"' in prose
    assert '--8<-- "generated/snippets/problems-variants.md"' in prose
    assert not re.search(r"\b(four|seven|eight|twelve|eighteen)\b", prose, re.I), "a count written by hand"
    blocks = problems.problem_blocks(DATA)
    words = problems_render.number_words()
    intro = blocks["intro"]
    assert f"this page has {words[len(DATA) + 1]} sets" in intro and f"The first {words[len(DATA)]} ask" in intro
    assert re.findall(r"\(#([a-z-]+)\)", intro) == [s["set"] for s in DATA] + ["concepts"]
    assert [f"## {k}. {s['title']}" for k, s in enumerate(DATA, 1)] + [f"## {len(DATA) + 1}. {problems_sets.concepts_title()}"] \
        == re.findall(r"^## \d+\. [^{]+?(?= \{)", page, re.M)
    counts = {s["title"]: len(s["variants"]) for s in DATA}
    usual = max(set(counts.values()), key=list(counts.values()).count)
    text = blocks["variants"]
    assert text.startswith(f"The first {words[len(DATA)]} sets have {words[usual]} variants each")
    for title, count in counts.items():
        assert (f"{title}, which has {words[count]}" in text) == (count != usual)


def test_the_page_says_exactly_which_sets_the_kit_carries():
    kit_section = (Path(__file__).resolve().parents[1] / "docs" / "problems.md").read_text(encoding="utf-8").split("{ #kit }")[1].split("\n## ")[0]
    carried = {set_id for _, set_id, _ in problems.KIT_STEPS}
    left_out = {s["set"] for s in DATA} - carried
    sentence = re.search(r"It carries the variants of\s+sets\s+([^;]*);", kit_section)
    assert sentence, "the kit section must say which sets' variants the kit carries"
    assert set(re.findall(r"#([a-z-]+)\)", sentence.group(1))) == carried
    for set_id in left_out:
        assert re.search(rf"\(#{set_id}\)[^.]* not in the kit", kit_section), f"say that {set_id} is not in the kit"


@pytest.mark.parametrize(("set_id", "v"), [(s, v) for s, v in VARIANTS if s in ("masks", "soften-rows")], ids=
                         [v["id"] for s, v in VARIANTS if s in ("masks", "soften-rows")])
def test_the_row_maxima_are_introduced_in_one_sentence_and_the_first_hint_names_the_row_max(set_id, v):
    text = next(s["text"] for s in v["solution"] if s["key"] == "row_max")
    assert text.endswith("The row maxima, over the allowed keys only:" if set_id == "masks" else "The row maxima:")
    if set_id == "soften-rows":  # "row 1 minus 1 is …" read as arithmetic with the number 1
        m = fmt(steps(v)["row_max"][0, 0])
        assert f"row 1 minus its largest score ({m}) is {problems_sets.fmt_vec(steps(v)['shifted'][0])}." in v["hints"][0]


def test_the_weights_are_called_A_in_the_json_the_kit_and_its_step_titles():
    """The page shows the weights as A (W is kept for the projections); the kit calls each function with the
    published inputs by name, so the JSON's names and the kit's parameters must be the same."""
    import ast

    functions = {node.name: [a.arg for a in node.args.args]
                 for node in ast.parse(problems.KIT_TEMPLATE.read_text(encoding="utf-8")).body if isinstance(node, ast.FunctionDef)}
    for title, set_id, _ in problems.KIT_STEPS:
        name = title.split("(")[0]
        shown = title[len(name) + 1:-1].split(", ")
        assert shown == functions[name][:len(shown)], title  # soften_rows(S) leaves its optional mask out
        for v in BY_SET[set_id]["variants"]:  # the kit passes a step the inputs its title names
            assert {m["name"] for m in v["inputs"]} & set(shown) <= set(functions[name]), (title, v["id"])
    for s in DATA:  # and every input of a set in the kit reaches some step
        named = {p for title, set_id, _ in problems.KIT_STEPS if set_id == s["set"] for p in problems.parameters(title)}
        if named:
            assert {m["name"] for v in s["variants"] for m in v["inputs"]} <= named, s["set"]
    for set_id in ("weighted-sum", "push-gradient"):
        for v in BY_SET[set_id]["variants"]:
            assert v["inputs"][0]["name"] == "A" and v["inputs"][0]["label"].startswith("A (")
            assert "W" not in {m["name"] for m in v["inputs"]} | {s["key"] for s in v["solution"]}
            assert "dW" not in {s["key"] for s in v["solution"]}
    assert functions["weighted_sum"] == ["A", "V"] and functions["score_gradient"] == ["A", "V", "dO"]


# ---------------------------------------------------------------- the proofreader's notation (issue 54, items 13 and 14)

def test_the_positions_set_names_its_width_d_and_labels_the_offset_query_apart_from_q():
    for variant in BY_SET["positions"]["variants"]:
        assert "√d_k" not in variant["prompt"] and "(not divided by √d)" in variant["prompt"], \
            f"{variant['id']}: the positions set calls the width d, so its prompt says the score is not divided by √d"
        offset = next(s["matrix"] for s in variant["solution"] if s["key"] == "q_offset")
        assert offset["rows"] == ["q turned by p − p′"], \
            f"{variant['id']}: the query turned by the offset is labelled as such, not q, which is the query as given"
    kit = (Path(__file__).resolve().parents[1] / "figures_src" / "pages" / "problems" / "kit_template.py").read_text(encoding="utf-8")
    assert "√d_k" not in kit[kit.index("def rope_score"):], "the kit's rope_score stub takes vectors of width d: √d"


def test_problems_typesets_as_the_other_pages():
    page = (Path(__file__).resolve().parents[1] / "docs" / "problems.md").read_text(encoding="utf-8")
    assert r"\mathsf" not in page, r"a transpose is typeset K^{\text{T}} (or ᵀ) on every page, never \mathsf{T}"
    questions = problems_sets.concepts_set()["questions"]
    assert not re.search(r"\+ c\)|e\^c\b", questions[0]["explanation"]), \
        "concept question 1 does not call the added constant c: c counts a vector's entries (Home's notation)"
    assert str(fmt(problems_sets.SHIFT)) in questions[0]["explanation"]
    assert typeset("so out_i moves") == "so out<sub>i</sub> moves", \
        "an output row out_i is typeset with its subscript, as Home's notation table writes it"
    assert not [q["explanation"] for q in questions if "out_i" in q["explanation"]
                and "out<sub>i</sub>" not in typeset(q["explanation"])], "every concept answer typesets out_i"


# ---------------------------------------------------------------- words in Markdown (issue 57)

PROBLEMS_MODULES = ("__init__.py", "sets.py", "html.py")
SENTENCE = re.compile(r"[A-Za-z][a-z]+(?: [A-Za-z][a-z]*){2,}")  # three words in a row: a phrase a reader reads


def reader_strings(path):
    """(line, text) of each string literal of a module, f-strings' literal parts included, leaving out what a reader
    never sees: docstrings, messages of raise/assert/BuildError, a notebook's code cell (engine/notebooks.py's code():
    Python a reader runs, as the kit is), and the tags and attributes of HTML markup."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    developer = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Raise, ast.Assert)) or (
                isinstance(node, ast.Call) and getattr(node.func, "id", None) in {"BuildError", "ValueError", "code"}):
            developer |= {id(inner) for inner in ast.walk(node)}
    return [(node.lineno, re.sub(r"<[^<>]*>?", " ", node.value)) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and id(node) not in developer]


def test_the_problems_modules_hold_data_and_markup_and_their_words_are_in_markdown():
    """Issue 57: a sentence a reader sees (a prompt, hint, slip, solution step, concept question, button, the
    intro, a number word) is written in words/problems*.md, filled with numbers by the page modules; the modules
    keep the numbers, the markup and the section names."""
    folder = Path(problems.__file__).parent
    found = [f"{name}:{line}: {text.strip()!r}" for name in PROBLEMS_MODULES
             for line, text in reader_strings(folder / name) if SENTENCE.search(text)]
    assert not found, ("the problems page's words live in words/problems*.md, not in Python strings "
                       "(move each into a section and fill it):\n" + "\n".join(found))
    between_tags = " ".join(text for _, text in reader_strings(folder / "html.py"))
    for word in ("Check", "Hint", "Hints", "Solution", "New variant", "Answer", "Variant"):
        assert not re.search(rf"\b{word}\b", between_tags), \
            f"html.py writes markup only; the word {word!r} between its tags belongs in words/problems.md"


GROUPED = [v for set_id, v in VARIANTS if set_id == "grouped-query"]


@pytest.mark.parametrize("v", GROUPED, ids=[v["id"] for v in GROUPED])
def test_share_keys_and_values_reads_right_for_every_head_count(v):
    """Set 10's words agree with its numbers: one key/value head is multi-query attention, in the singular, with no
    next head; two neighbours are "1 and 2", not "1 to 2"; the cache's factors are named; large numbers are grouped."""
    h, h_kv, layers, d_k, n, _ = (int(x) for x in v["inputs"][0]["values"][0])
    text = " ".join([v["prompt"], *v["hints"], *(s["text"] for s in v["solution"])])
    assert not re.search(r"\b1 (key/value heads|groups)\b", text), "one key/value head, one group: singular"
    if h_kv == 1:
        assert "(multi-query attention)" in v["prompt"] and "the next" not in v["hints"][1], \
            "h_kv = 1 is multi-query attention, and there is no next key/value head"
    else:
        assert "(grouped-query attention)" in v["prompt"]
    if h_kv <= 2:
        assert "and so on" not in v["hints"][1], "with two key/value heads there is nothing more to go on to"
    for first, last in re.findall(r"\b(\d+) to (\d+)\b", text):
        assert int(last) > int(first) + 1, f"two neighbours read '{first} and {last}', not '{first} to {last}'"
    kv = "1 key/value head" if h_kv == 1 else f"{h_kv} key/value heads"
    assert f"{layers} layers · {kv} · 2 (key and value) · {d_k} =" in v["hints"][2], "the cache's factors are named"
    assert f"after {n:,} tokens" in v["prompt"], "the site writes 1,024: a prompt's token count is grouped too"
    (cache_part,) = [p for p in v["parts"] if p["name"] == "cache"]
    assert cache_part["rows"] == ["the model"] and cache_part["cols"][1] == f"bytes after {n:,} tokens", \
        "the row is the model; the column says which bytes (after n tokens), beside 'numbers per token'"
    (numbers,) = [s for s in cache_part["slips"] if s["slip"] == "numbers"]
    assert numbers["message"].startswith("This is the count of numbers, not bytes:")
