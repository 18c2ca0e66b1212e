"""Grouped-query attention as the pages teach it (issue 58, item 6), read from the shared build (tests/conftest.py):

- ex-gqa (multi-head/#grouped-query-attention): its JSON recomputed head by head with plain loops and by PyTorch's
  scaled_dot_product_attention with enable_gqa; every printed step (Q, raw scores, weights, each head's output, the
  worked score, the cache's products) redone from the numbers the page prints;
- cost/'s real model: the cache per token and at each printed length, against transformers' own reading of the
  GGUF's config and a plain count;
- the links on to the real model's page and the grouped-query section.
"""
import json
import math
import re
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from by_hand import follows, number
from test_by_hand import read

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def example(built_site):
    return json.loads((built_site / "examples" / "ex-gqa.json").read_text())


@pytest.fixture(scope="module")
def page(built_site):
    return read(built_site, Path("multi-head/index.html"))


def loops_attention(Q, K, V):
    """Raw scores, weights and output of one head, written as on paper."""
    d_k = len(K[0])
    S = [[math.fsum(q[c] * k[c] for c in range(d_k)) for k in K] for q in Q]
    weights = []
    for row in S:
        top = max(row)
        e = [math.exp((s - top) / math.sqrt(d_k)) for s in row]
        weights.append([x / math.fsum(e) for x in e])
    out = [[math.fsum(w * V[j][c] for j, w in enumerate(row)) for c in range(len(V[0]))] for row in weights]
    return S, weights, out


def test_ex_gqa_is_four_query_heads_reading_two_key_value_heads_by_loops(example):
    X, W_Q, W_K, W_V = (example["inputs"][name] for name in ("X", "W_Q", "W_K", "W_V"))
    h, h_kv, d_k = example["n_heads"], example["n_kv_heads"], example["d_k"]
    assert (h, h_kv) == (4, 2), "ex-gqa: 4 query heads sharing 2 key/value heads"
    assert len(W_Q[0]) == h * d_k and len(W_K[0]) == len(W_V[0]) == h_kv * d_k, \
        "W_Q has a block of d_k columns per query head, W_K and W_V one per key/value head"
    project = lambda W, block: [[math.fsum(x[r] * W[r][block * d_k + c] for r in range(len(x))) for c in range(d_k)]
                                for x in X]  # noqa: E731
    group = h // h_kv
    assert example["kv_head_of"] == [g // group for g in range(h)], "query head g (from 0) reads key/value head g // group"
    for g in range(h):
        kv = g // group
        Q, K, V = project(W_Q, g), project(W_K, kv), project(W_V, kv)
        np.testing.assert_allclose(example["steps"]["Q"][g], Q, rtol=0, atol=1e-9, err_msg=f"Q of query head {g + 1}")
        np.testing.assert_allclose(example["steps"]["K"][kv], K, rtol=0, atol=1e-9, err_msg=f"K of key/value head {kv + 1}")
        np.testing.assert_allclose(example["steps"]["V"][kv], V, rtol=0, atol=1e-9, err_msg=f"V of key/value head {kv + 1}")
        S, weights, out = loops_attention(Q, K, V)
        for name, loop in (("scores", S), ("weights", weights), ("heads", out)):
            np.testing.assert_allclose(example["steps"][name][g], loop, rtol=0, atol=1e-9,
                                       err_msg=f"query head {g + 1}'s {name} against its group's K and V by loops")


def test_ex_gqa_is_pytorch_sdpa_with_enable_gqa(example):
    Q, K, V = (torch.tensor(example["steps"][name], dtype=torch.float64)[None] for name in ("Q", "K", "V"))
    expected = torch.nn.functional.scaled_dot_product_attention(Q, K, V, enable_gqa=True)[0].numpy()
    np.testing.assert_allclose(example["outputs"]["heads"], expected, rtol=0, atol=1e-9,
                               err_msg="ex-gqa's heads are SDPA's with enable_gqa on its Q (4 heads) and K, V (2 heads)")


def tables(page, corner, columns):
    """The page's tables whose header row is [corner, *columns], as lists of printed rows (labels dropped)."""
    return [[row[1:] for row in rows[1:]] for rows in page.tables if rows and rows[0] == [corner, *columns]]


def exact(rows):
    return [[number(cell) for cell in row] for row in rows]


def test_every_printed_step_of_ex_gqa_follows_by_hand(page, example):
    """From the printed K, V and each head's printed Q: the raw scores exactly, the weights (softmax of score × 1/2)
    to their printed digits, and each head's output from its printed weights and its group's printed V."""
    tokens, d_k = example["tokens"], example["d_k"]
    entries = [str(c + 1) for c in range(d_k)]
    keys, per_query = tables(page, "key", entries), tables(page, "query", entries)
    per_token = tables(page, "query", tokens)
    assert len(keys) == 4, "the page prints K and V of the two key/value heads"
    assert len(per_query) >= 8 and len(per_token) >= 8, "each query head: its Q, raw scores, weights and output"
    per_query, per_token = per_query[:8], per_token[:8]  # the section's own, before cross-attention's
    K, V = [exact(t) for t in keys[:2]], [exact(t) for t in keys[2:]]
    scale = Decimal(1) / Decimal(d_k).sqrt()
    for g in range(example["n_heads"]):
        kv = example["kv_head_of"][g]
        Q, out = exact(per_query[2 * g]), per_query[2 * g + 1]
        scores, weights = per_token[2 * g], per_token[2 * g + 1]
        for i, q in enumerate(Q):
            raw = [sum(a * b for a, b in zip(q, k)) for k in K[kv]]
            assert [number(s) for s in scores[i]] == raw, f"query head {g + 1}, row {i + 1}: raw scores are Q · K, exactly"
            e = [math.exp(float(s * scale)) for s in raw]
            for j, text in enumerate(weights[i]):
                assert follows(e[j] / sum(e), text), f"query head {g + 1}'s weight ({i + 1}, {j + 1}) printed {text}"
            for c, text in enumerate(out[i]):
                blend = sum(number(w) * V[kv][j][c] for j, w in enumerate(weights[i]))
                assert follows(blend, text), f"query head {g + 1}'s output ({i + 1}, {c + 1}) printed {text}: " \
                                             "its printed weights times the printed V of its key/value head"


DOT_CHAIN = re.compile(r"((?:−?[\d,]+ · )+−?[\d,]+) = ([\d,]+)")
PAIR_SUM = re.compile(r"((?:\((−?[\d.]+)\)\((−?[\d.]+)\) \+ )+\((−?[\d.]+)\)\((−?[\d.]+)\)) = (−?[\d.]+)")


def products(text):
    """Every 'a · b · c = d' chain of whole numbers in a text: [(chain, exact product, printed result)]."""
    found = []
    for m in DOT_CHAIN.finditer(text):
        factors = [int(f.replace(",", "").replace("−", "-")) for f in m.group(1).split(" · ")]
        found.append((m.group(0), math.prod(factors), int(m.group(2).replace(",", ""))))
    return found


def test_the_worked_score_and_the_cache_products_check_out(page):
    text = re.sub(r"\s+", " ", page.text)
    sums = list(PAIR_SUM.finditer(text))
    assert sums, "multi-head/ works one score of a query head sharing its keys as (q)(k) + … = s"
    for m in sums:
        pairs = re.findall(r"\((−?[\d.]+)\)\((−?[\d.]+)\)", m.group(1))
        assert sum(number(a) * number(b) for a, b in pairs) == number(m.group(6)), m.group(0)
    chains = products(text)
    assert len(chains) >= 4, "the example's cache: per token and after the sentence, shared and one per query head"
    for chain, product, printed in chains:
        assert product == printed, chain


def test_cost_prints_the_real_models_own_cache(built_site):
    """30 · 3 · 2 · 64 numbers per token against 30 · 9 · 2 · 64, from transformers' own reading of the GGUF's config;
    each printed length's numbers and bytes (float32) counted again."""
    from transformers import AutoConfig  # noqa: PLC0415

    from models.smollm import model  # noqa: PLC0415

    path = model.gguf_path()
    config = AutoConfig.from_pretrained(str(path.parent), gguf_file=path.name)
    layers, heads, kv_heads = config.num_hidden_layers, config.num_attention_heads, config.num_key_value_heads
    d_k = config.hidden_size // heads
    page = read(built_site, Path("cost/index.html"))
    text = re.sub(r"\s+", " ", page.text)
    per_token, per_token_full = layers * kv_heads * 2 * d_k, layers * heads * 2 * d_k
    chains = {chain: (product, printed) for chain, product, printed in products(text)}
    for chain, expected in ((f"{layers} · {kv_heads} · 2 · {d_k}", per_token),
                            (f"{layers} · {heads} · 2 · {d_k}", per_token_full),
                            (f"{per_token:,} · 4", per_token * 4), (f"{per_token_full:,} · 4", per_token_full * 4)):
        assert f"{chain} = {expected:,}" in chains, f"cost/ prints {chain} = {expected:,}, the model's own config"
    for chain, (product, printed) in chains.items():
        assert product == printed, chain
    (table,) = [rows for rows in page.tables if rows and rows[0][0] == "tokens n"]
    lengths = [int(row[0].replace(",", "")) for row in table[1:]]
    assert lengths[-1] == config.max_position_embeddings, "the table ends at the model's whole context"
    for row, n in zip(table[1:], lengths):
        cache = [[[0.0] * d_k for _ in range(2)] for _ in range(layers * kv_heads)]  # one token: K and V rows
        numbers = n * sum(len(r) for block in cache for r in block)
        printed = [int(cell.split(" ")[0].replace(",", "")) for cell in row[1:]]
        assert printed == [numbers, numbers * 4, numbers * 4 * heads // kv_heads], \
            f"n = {n:,}: numbers, float32 bytes, and bytes with one key/value head per query head"


@pytest.mark.parametrize("source", ["cost/index.html", "watch-it-write/index.html", "multi-head/index.html"])
def test_the_pages_lead_on_to_the_real_model(built_site, source):
    html = (built_site / source).read_text()
    assert re.search(r'href="(\.\./)+smollm/(#[\w-]+)?"', html), f"{source} links to A real model writes"
    if source != "multi-head/index.html":
        assert 'multi-head/#grouped-query-attention"' in html, f"{source} links to the grouped-query section"
    else:
        assert 'id="grouped-query-attention"' in html and 'id="ex-gqa"' in html


def test_each_query_heads_tab_says_which_key_value_head_it_reads(page, example):
    """The line that opens each query head's tab is a paragraph of its own (it ran into the Q table's caption) and
    names the key/value head kv_head_of gives, counted from 1."""
    found = re.findall(r"Query head (\d) reads key/value head (\d)\.[ \t]*\n", page.text)
    assert [(int(g), int(kv)) for g, kv in found] == [(g + 1, kv + 1) for g, kv in enumerate(example["kv_head_of"])]


@pytest.mark.parametrize("k, words", [(2, "half as many"), (3, "a third as many"), (4, "a quarter as many"),
                                      (5, "1/5 as many")])
def test_a_count_cut_by_a_group_is_worded_as_a_fraction(k, words):
    from figures_src.engine.text import as_many  # noqa: PLC0415

    assert as_many(k) == words, "a count divided by k reads 'half as many', 'a third as many', never 'k times fewer'"


@pytest.mark.parametrize("source, group", [("multi-head/index.html", "half as many"),
                                           ("cost/index.html", "a third as many")])
def test_the_saving_of_sharing_reads_as_a_fraction(built_site, source, group):
    text = re.sub(r"\s+", " ", read(built_site, Path(source)).text)
    assert not re.search(r"\d times (fewer|less)", text), f"{source}: 'k times fewer/less' reads '{group}'"
    assert group in text, f"{source} says what the sharing saves as '{group}'"


def test_multi_head_s_grouped_section_reads_plainly(page):
    text = re.sub(r"\s+", " ", page.text)
    section = text[text.index("Grouped-query attention: query heads share"):]
    first = section.index("KV cache")
    assert "(counted on Cost" in section[first:first + 40], \
        "the section's first 'KV cache' says it is counted on Cost, a later page"
    assert "query heads in its group" in text and "which it shares with query heads" not in text, \
        "the sharing table's column lists the query heads of a group (the head itself included)"
    assert "multiplied by the shared V, they give each head's output" in text, "the rounding note reads as a sentence"
    assert "for SmolLM2-135M-Instruct, the model you can run on A real model writes" in text, \
        "the link on to the real model names it and the page that runs it"


def test_cost_compares_the_cache_with_the_models_gguf_file(built_site):
    from models.smollm import model  # noqa: PLC0415

    size = model.gguf_path().stat().st_size
    text = re.sub(r"\s+", " ", read(built_site, Path("cost/index.html")).text)
    assert f"the model's GGUF file, {size / 2**20:.1f} MiB ({size / 1e6:.1f} MB)" in text, \
        "cost/ gives the GGUF file's size in MiB and MB, from the file"
    assert "of quantized weights" not in text and "the model you can run on A real model writes" in text
    assert re.search(r"The table above counted 16-bit numbers, 2 bytes each; .* 32-bit floats, 4 bytes each", text), \
        "cost/ says plainly that the real model's bytes are 32-bit, where the table above counted 16-bit numbers"
