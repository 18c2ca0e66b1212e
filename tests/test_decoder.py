"""The tiny decoder of the watch-it-write page (models/decoder.py), its published weights and its JavaScript twin.

- Its gradients equal torch's autograd on the same model. That training is deterministic and gives the published
  bytes is checked by test_site.py::test_figures_are_byte_identical_across_builds (the session's forced build).
- The published model reverses ≥ 99% of the 1,000 held-out strings, the job head's share is ≥ 95%, the model
  without positions fails, and the page prints those numbers.
- Decoding with the KV cache equals recomputing everything: within 1e-12 in numpy, 1e-9 in JS; the JS logits equal
  numpy's within 1e-6 on 300 inputs (Node runs docs/widgets/watch-it-write/decoder.js).
- ex-decode-step redone with plain loops from its printed numbers.

The tests that read the published model take the shared build's `generated`; all need Node and torch (the test extra).
"""
import inspect
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_limits

from figures_src.pages import watch_it_write as page
from models import decoder

ROOT = Path(__file__).resolve().parents[1]
CONFIG = page.CONFIG
N_JS_INPUTS = 300


@pytest.fixture(scope="module")
def published(generated):
    path = next((generated / "public" / "models").glob("reverse-digits.*.json"))
    model = json.loads(path.read_text())
    return {"path": path, "params": {name: np.array(value) for name, value in model["params"].items()},
            "job_head": tuple(model["job_head"]), "model": model}


@pytest.fixture(scope="module")
def snippet(generated):
    """A generated snippet's Markdown, by name."""
    return lambda name: (generated / "snippets" / f"{name}.md").read_text(encoding="utf-8")


def percent(value):
    return f"{page.num(100 * value, 1, trim=True)}%"


# ---------------------------------------------------------------- the model and its training

def torch_loss(params, config, sequences):
    """The same model in torch, written from its definition (not from models/decoder.py's code)."""
    tp = {name: torch.tensor(value, requires_grad=True) for name, value in params.items()}
    inputs = torch.tensor(sequences[:, :-1])
    n, d_k = inputs.shape[1], config.d_k
    x = tp["E"][inputs] + (tp["P"][:n] if config.positions else 0)
    allowed = torch.tril(torch.ones(n, n, dtype=torch.bool))
    for layer in range(config.n_layers):
        def heads(W):
            return (x @ W).reshape(len(inputs), n, config.n_heads, d_k).transpose(1, 2)  # (b, h, n, d_k)
        Q, K, V = (heads(tp[f"{layer}.{part}"]) for part in ("W_Q", "W_K", "W_V"))
        S = (Q @ K.transpose(-1, -2) / math.sqrt(d_k)).masked_fill(~allowed, -math.inf)
        out = (torch.softmax(S, dim=-1) @ V).transpose(1, 2).reshape(len(inputs), n, config.d_model)
        x = x + out @ tp[f"{layer}.W_O"]
    logits = (x @ tp["W_U"])[:, config.length:]
    answers = torch.tensor(sequences[:, config.length + 1:])
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, config.vocab), answers.reshape(-1))
    loss.backward()
    return loss.item(), {name: value.grad.numpy() for name, value in tp.items()}


@pytest.mark.parametrize("positions", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_gradients_equal_torch(seed, positions):
    config = decoder.Config(length=4, d_model=8, n_heads=2, n_layers=2, positions=positions)
    rng = np.random.default_rng(seed)
    params = decoder.initial_parameters(config, rng)
    sequences = decoder.reversal_sequences(rng.integers(0, 10, size=(5, config.length)))
    loss, grads = decoder.loss_and_gradients(params, config, sequences)
    expected_loss, expected = torch_loss(params, config, sequences)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    assert set(grads) == set(expected)
    for name in grads:
        np.testing.assert_allclose(grads[name], expected[name], rtol=1e-9, atol=1e-12, err_msg=name)


def test_the_published_model_and_the_one_without_positions_score_what_the_page_prints(published, snippet):
    """The page's two percentages, measured here: the published model's exact match on the held-out strings, and
    that of the model without positions, trained again from the build's seed (about 10 s of CPU). That training
    gives the published bytes again is test_site's test_figures_are_byte_identical_across_builds: the session's
    forced build retrains the published model from scratch, in a process of its own."""
    held_out = decoder.held_out_sources(CONFIG, page.HELD_OUT)
    accuracy = decoder.exact_match(published["params"], CONFIG, held_out)
    blind_config = decoder.without_positions(CONFIG)
    with threadpool_limits(limits=1, user_api="blas"):  # as the build trains it
        blind, _ = decoder.train(blind_config, page.TRAINING, held_out)
    blind_accuracy = decoder.exact_match(blind, blind_config, held_out)
    assert accuracy >= 0.99 and blind_accuracy < 0.5
    results = snippet("watch-it-write-results")
    assert f"writes {percent(accuracy)} of 1,000 held-out" in results
    assert f"without position embeddings writes only {percent(blind_accuracy)}" in results
    assert "output.md#word-order-attention-alone-cannot-see-it" in results and "permutation-equivariant" in results


def test_the_held_out_strings_are_reversed_and_never_trained_on(published):
    held_out = decoder.held_out_sources(CONFIG, 1000)
    assert len(np.unique(decoder.as_numbers(held_out))) == 1000
    right = 0
    for source in held_out:  # one at a time with the KV cache, as the page writes
        written = decoder.generate(published["params"], CONFIG, source)["tokens"][CONFIG.length + 1:]
        right += list(written) == list(source[::-1])
    assert right / 1000 >= 0.99
    assert right / 1000 == decoder.exact_match(published["params"], CONFIG, held_out)
    # training skips them: the batches of the run, drawn again from its seed, never hold one
    rng = np.random.default_rng(page.TRAINING.seed)
    decoder.initial_parameters(CONFIG, rng)
    excluded = set(decoder.as_numbers(held_out).tolist())
    for _ in range(50):
        drawn = rng.integers(0, 10, size=(page.TRAINING.batch, CONFIG.length))
        kept = drawn[~np.isin(decoder.as_numbers(drawn), list(excluded))]
        assert not excluded & set(decoder.as_numbers(kept).tolist())


def test_the_job_head_looks_at_the_source_digit(published, snippet):
    held_out = decoder.held_out_sources(CONFIG, 1000)
    layer, head = published["job_head"]
    L = CONFIG.length
    hits = total = 0
    for source in held_out[:200]:  # plain loops over the weights each step computed
        weights = decoder.generate(published["params"], CONFIG, source)["weights"]
        for t in range(L):
            row = weights[layer, L + t, head, :L + t + 1]
            hits += int(np.argmax(row)) == L - 1 - t
            total += 1
    shares = decoder.source_share(published["params"], CONFIG, held_out)
    assert shares[layer, head] == shares.max() >= 0.95
    assert hits / total >= 0.95
    assert f"layer {layer + 1}, head {head + 1} | {page.num(100 * shares[layer, head], 1)}%" in snippet("watch-it-write-shares")


def test_without_positions_the_model_sees_its_sources_as_a_set():
    """The reason the page gives: with no position embedding, the first layer's keys at the source positions depend
    on their token and on the set of tokens before them only, so two sources that are the same multiset give the
    last source position the same vector."""
    config = decoder.without_positions(CONFIG)
    params = decoder.initial_parameters(config, np.random.default_rng(3))
    a = decoder.forward(params, config, np.array([1, 2, 3, 4, 5, 6]))["states"][1]
    b = decoder.forward(params, config, np.array([5, 3, 1, 2, 4, 6]))["states"][1]
    np.testing.assert_allclose(a[-1], b[-1], rtol=1e-12, atol=1e-12)
    with_positions = decoder.initial_parameters(CONFIG, np.random.default_rng(3))
    a = decoder.forward(with_positions, CONFIG, np.array([1, 2, 3, 4, 5, 6]))["states"][1]
    b = decoder.forward(with_positions, CONFIG, np.array([5, 3, 1, 2, 4, 6]))["states"][1]
    assert np.abs(a[-1] - b[-1]).max() > 1e-3


# ---------------------------------------------------------------- the KV cache

def test_cached_decoding_equals_full_recomputation(published):
    rng = np.random.default_rng(7)
    for source in rng.integers(0, 10, size=(200, CONFIG.length)):
        cached = decoder.generate(published["params"], CONFIG, source)
        full = decoder.generate(published["params"], CONFIG, source, use_cache=False)
        assert list(cached["tokens"]) == list(full["tokens"])
        np.testing.assert_allclose(cached["logits"], full["logits"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(cached["weights"], full["weights"], rtol=0, atol=1e-12)


def test_the_cache_grows_by_one_key_and_value_row_per_layer_and_head(published):
    cache = decoder.empty_cache(CONFIG)
    for n, token in enumerate([3, 1, 4, 1, 5, 9, decoder.SEPARATOR], start=1):
        _, cache, weights = decoder.decode_step(published["params"], CONFIG, cache, token)
        assert decoder.cache_length(cache) == n
        assert sum(part.nbytes for layer in cache for part in layer.values()) == page.cache_bytes(n) == 512 * n
        assert [w.shape for w in weights] == [(CONFIG.n_heads, n)] * CONFIG.n_layers  # n dot products per head
    assert page.dot_products(7, cached=True) == 4 * 7 and page.dot_products(7, cached=False) == 4 * 49


def test_decode_steps_trace_is_each_layers_step_as_the_full_recomputation_computes_it(published):
    """decode_step(trace=True) also returns, per layer, what that layer computed for the new token: the row x
    entering it, q, the cache K and V with the new rows last, each head's output and weights. Checked against
    `forward`, which computes every position at once, with plain reshapes for the heads."""
    params, h, d_k = published["params"], CONFIG.n_heads, CONFIG.d_k
    tokens = [3, 1, 4, 1, 5, 9, decoder.SEPARATOR, 9, 5]
    full = decoder.forward(params, CONFIG, np.array(tokens))
    cache = decoder.empty_cache(CONFIG)
    for position, token in enumerate(tokens):
        n = position + 1
        plain = decoder.decode_step(params, CONFIG, cache, token)
        logits, new_cache, weights, layers = decoder.decode_step(params, CONFIG, cache, token, trace=True)
        assert len(plain) == 3 and np.array_equal(plain[0], logits), "without trace, decode_step returns what it did"
        assert len(layers) == CONFIG.n_layers, "the trace has one entry per layer"
        for layer, step in enumerate(layers):
            state = full["states"][layer][:n]  # (n, d_model): the rows entering this layer, the new one last
            W_Q, W_K, W_V, _ = decoder.layer_weights(params, layer)
            heads = lambda rows: rows.reshape(len(rows), h, d_k).transpose(1, 0, 2)  # noqa: E731  (n, d) -> (h, n, d_k)
            row_weights = full["weights"][layer][:, position, :n]  # (h, n)
            expected = {"x": state[-1:], "q": heads(state[-1:] @ W_Q), "K": heads(state @ W_K),
                        "V": heads(state @ W_V), "weights": row_weights[:, None, :],
                        "out": np.einsum("hn,hnd->hd", row_weights, heads(state @ W_V))[:, None, :]}
            for name, value in expected.items():
                assert step[name].shape == value.shape, f"trace[{layer}][{name!r}] is {value.shape}, not {step[name].shape}"
                np.testing.assert_allclose(step[name], value, rtol=0, atol=1e-12,
                                           err_msg=f"trace[{layer}][{name!r}] at position {position}")
            assert step["K"] is new_cache[layer]["K"] and step["V"] is new_cache[layer]["V"], "the trace is the new cache"
            assert np.array_equal(step["weights"][:, 0], weights[layer])
        cache = new_cache


def test_the_page_reads_the_decoders_step_and_never_runs_its_layers_again():
    """watch_it_write.job_head_step takes the job head's rows from decode_step's trace: a page calls the model code
    and never re-derives it (issue 57), so it embeds, splits and attends nothing itself."""
    source = inspect.getsource(page.job_head_step)
    assert "trace=True" in source, "job_head_step reads decode_step's trace"
    for name in ("embed", "split_heads", "merge_heads", "attend"):
        assert f"{name}(" not in source, f"job_head_step calls {name}(): the layer loop belongs to models/decoder.py"


def test_bad_tokens_and_too_many_positions_are_named(published):
    cache = decoder.empty_cache(CONFIG)
    with pytest.raises(ValueError, match="tokens must be integers in 0 … 10"):
        decoder.decode_step(published["params"], CONFIG, cache, 11)
    with pytest.raises(ValueError, match="source must be 6 digits"):
        decoder.generate(published["params"], CONFIG, np.array([1, 2, 3]))
    for token in range(CONFIG.n_positions):
        _, cache, _ = decoder.decode_step(published["params"], CONFIG, cache, token % 10)
    with pytest.raises(ValueError, match="the model has 12 positions"):
        decoder.decode_step(published["params"], CONFIG, cache, 1)


# ---------------------------------------------------------------- JavaScript against numpy

def test_javascript_equals_numpy(published, tmp_path):
    executable = shutil.which("node")
    assert executable, "Node.js is needed (make test installs it)"
    rng = np.random.default_rng(11)
    sources = [list(map(int, s)) for s in rng.integers(0, 10, size=(N_JS_INPUTS, CONFIG.length))]
    (tmp_path / "sources.json").write_text(json.dumps(sources))
    # decoder.js reads attention-math.js, which imports the build's contract.js: the loader generates it
    result = subprocess.run([executable, "--import", "./tests/js/contract-loader.mjs", "tests/node/decode.mjs",
                             str(published["path"]), str(tmp_path / "sources.json"), str(tmp_path / "out.json")],
                            cwd=ROOT, capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    runs = json.loads((tmp_path / "out.json").read_text())
    layer, head = published["job_head"]
    worst_numpy = worst_cache = 0.0
    for source, run in zip(sources, runs):
        expected = decoder.generate(published["params"], CONFIG, np.array(source))
        assert run["tokens"] == run["recomputedTokens"] == expected["tokens"].tolist()
        worst_numpy = max(worst_numpy, np.abs(np.array(run["cached"]) - expected["logits"]).max())
        worst_cache = max(worst_cache, np.abs(np.array(run["cached"]) - np.array(run["recomputed"])).max())
        js_rows = [step[layer][head] for step in run["weights"]]
        for i, row in enumerate(js_rows):
            np.testing.assert_allclose(row, expected["weights"][layer, i, head, :i + 1], rtol=0, atol=1e-9)
        assert run["dotProducts"][0] == [page.dot_products(n, True) for n in range(1, CONFIG.n_positions + 1)]
        assert run["dotProducts"][1] == [page.dot_products(n, False) for n in range(1, CONFIG.n_positions + 1)]
        assert run["cacheBytes"] == [page.cache_bytes(n) for n in range(1, CONFIG.n_positions + 1)]
    assert worst_numpy <= 1e-6, worst_numpy
    assert worst_cache <= 1e-9, worst_cache


# ---------------------------------------------------------------- ex-decode-step by hand

def printed_numbers(line):
    return [float(cell.replace("−", "-")) for cell in re.findall(r"−?\d+\.\d+", line)]


def close_as_printed(value, printed_text_value, decimals):
    """`value`, computed from printed numbers, matches a number printed with `decimals` to within one unit of its
    last place (the printed operands were themselves rounded)."""
    return abs(value - printed_text_value) <= 10 ** -decimals


def test_decode_step_redone_with_plain_loops(generated, snippet, published):
    example = json.loads((generated / "public" / "examples" / "ex-decode-step.json").read_text())
    inputs = example["inputs"]
    q, K, V, W_OU, rest = inputs["Q"][0], inputs["K"], inputs["V"], inputs["W_OU"], inputs["logits_rest"]
    # the inputs are the printed numbers: two decimals exactly
    query_line = snippet("ex-decode-step-query")
    assert printed_numbers(query_line) == q
    for row in K + V + W_OU + [rest]:
        assert all(round(value, 2) == value for value in row)
    rows = {line.split("|")[1].strip(): printed_numbers(line.split("|", 2)[2])
            for line in snippet("ex-decode-step-scores").splitlines() if line.startswith("| **")}
    score_row, scaled_row, weight_row = (f"**{label}**" for label in page.score_rows(example["position"] + 1))
    assert list(rows) == [score_row, scaled_row, weight_row]
    n, d_k = len(K), len(q)
    scores = []
    for j in range(n):
        total = 0.0
        for c in range(d_k):
            total += q[c] * K[j][c]
        scores.append(total)
    assert all(close_as_printed(s, p, 4) for s, p in zip(scores, rows[score_row]))
    scaled = [p / math.sqrt(d_k) for p in rows[score_row]]  # from the printed scores
    assert all(close_as_printed(s, p, 4) for s, p in zip(scaled, rows[scaled_row]))
    largest = max(rows[scaled_row])
    exponentials = [math.exp(s - largest) for s in rows[scaled_row]]
    weights = [e / sum(exponentials) for e in exponentials]
    assert all(close_as_printed(w, p, 4) for w, p in zip(weights, rows[weight_row]))
    out = [sum(rows[weight_row][j] * V[j][c] for j in range(n)) for c in range(d_k)]
    printed_out = printed_numbers(snippet("ex-decode-step-out"))
    assert all(abs(o - p) <= 0.01 for o, p in zip(out, printed_out))  # four-decimal weights times values up to ~10
    logits = [rest[v] + sum(printed_out[c] * W_OU[c][v] for c in range(d_k)) for v in range(len(rest))]
    printed_logits = [printed_numbers(line.split("|", 2)[2])[1] for line in snippet("ex-decode-step-logits").splitlines()
                      if line.startswith("| **")]
    assert all(close_as_printed(value, p, 2) for value, p in zip(logits, printed_logits))
    chosen = max(range(len(logits)), key=lambda v: printed_logits[v])
    assert chosen == example["chosen"] == int(np.argmax(example["outputs"]["logits"][0]))
    assert f"the step writes {decoder.SYMBOLS[chosen]}" in snippet("ex-decode-step-token")
    # the step of the page's run: the model, unrounded, writes the same digit there
    run = decoder.generate(published["params"], CONFIG, np.array(page.SHOWN))  # the training's own float64 values
    assert run["tokens"][example["position"] + 1] == chosen


# ---------------------------------------------------------------- what the page says about them (issue 54)

def own_decode_step(published, position):
    """The job head's weights and the logits at the step reading token `position` of the page's run, as the
    decoder's own decode_step computes them from the published weights, unrounded."""
    params, (layer, head) = published["params"], published["job_head"]
    tokens = decoder.generate(params, CONFIG, np.array(page.SHOWN))["tokens"]
    cache = decoder.empty_cache(CONFIG)
    for token in tokens[:position]:
        _, cache, _ = decoder.decode_step(params, CONFIG, cache, int(token))
    logits, _, weights = decoder.decode_step(params, CONFIG, cache, int(tokens[position]))
    return {"weights": weights[layer][head], "logits": logits}


def test_decode_steps_rounding_sentence_states_how_far_the_models_own_numbers_are(generated, snippet, published):
    """ex-decode-step computes from inputs rounded to two decimals; the sentence that says how far the model's own
    numbers are from the printed ones gives bounds that hold, for the scores, the weights and the logits."""
    example = json.loads((generated / "public" / "examples" / "ex-decode-step.json").read_text())
    intro = snippet("ex-decode-step-intro")
    assert "third decimal" not in intro, "the scores and logits differ from the model's own in the second decimal"
    stated = re.search(r"differ from these by less than ([\d.]+) in a score, ([\d.]+) in a weight and ([\d.]+) in a "
                       r"logit, and write the same digit", intro)
    assert stated, f"the intro states how far the model's own numbers are: {intro}"
    bound = dict(zip(("scores", "weights", "logits"), (float(x) for x in stated.groups())))
    own = page.job_head_step({"params": published["params"], "job_head": published["job_head"],
                              "run": decoder.generate(published["params"], CONFIG, np.array(page.SHOWN))},
                             example["position"])
    # the page module's unrounded step is the decoder's: same weights and logits as decode_step gives
    check = own_decode_step(published, example["position"])
    np.testing.assert_allclose(own["weights"][0], check["weights"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(own["logits"], check["logits"], rtol=0, atol=1e-12)
    for name, shown in (("scores", example["steps"]["scores"]), ("weights", example["steps"]["weights"]),
                        ("logits", example["outputs"]["logits"])):
        largest = np.abs(np.asarray(own[name]).ravel() - np.asarray(shown).ravel()).max()
        assert largest < bound[name], f"the model's own {name} differ from the printed ones by {largest}, not less than {bound[name]}"
        assert largest > bound[name] / 10, f"the bound on the {name}, {bound[name]}, is the largest difference's size"
    assert int(np.argmax(own["logits"])) == example["chosen"], "the model's own logits write the same digit"


def test_the_training_pass_and_the_cached_decode_agree_as_the_page_says(snippet, published):
    """The page puts the training-style pass (the whole string at once, under the causal mask) beside the cached
    decode for its run: each row's largest logit, printed, is the same, and the difference is below 10⁻¹²; the page
    prints the smallest power of ten above 3× the largest difference (not the difference's noisy digits)."""
    page_text = (ROOT / "docs" / "watch-it-write.md").read_text(encoding="utf-8")
    assert "write-agree-table.md" in page_text and "write-agree-largest.md" in page_text
    params = published["params"]
    run = decoder.generate(params, CONFIG, np.array(page.SHOWN))
    full = decoder.forward(params, CONFIG, run["tokens"][:-1])
    largest = max(np.abs(full["logits"] - run["logits"]).max(),
                  np.abs(np.stack(full["weights"]).transpose(0, 2, 1, 3) - run["weights"]).max())
    assert largest < 1e-12
    cells_of = lambda line: re.split(r"(?<!\\)\|", line)[1:-1]  # noqa: E731  "\|" is the separator, escaped
    rows = [cells_of(line) for line in snippet("write-agree-table").splitlines()
            if line.startswith("| ") and cells_of(line)[0].strip().isdigit()]
    assert len(rows) == CONFIG.n_positions, "one row per position of the run"
    for position, row in enumerate(rows):
        cells = [cell.strip() for cell in row]
        assert cells[2] == cells[3] == page.num(run["logits"][position].max(), 4) == page.num(full["logits"][position].max(), 4)
        assert cells[4] == page.markdown_symbol(decoder.SYMBOLS[int(np.argmax(full["logits"][position]))])
    stated = re.search(r"is below \$10\^\{(-\d+)\}\$\. That is the rounding of 64-bit floating-point numbers",
                       snippet("write-agree-largest"))
    assert stated, "the page says the largest difference is below a power of ten, and that it is float64 rounding"
    exponent = int(stated.group(1))
    assert 10.0**(exponent - 1) < 3 * max(largest, np.finfo(float).eps) <= 10.0**exponent <= 1e-12, \
        f"the printed bound 10^{exponent} is the smallest power of ten above 3 × the largest difference, {largest:.2g}"


def test_the_agreement_bound_is_the_smallest_power_of_ten_above_three_times_the_difference():
    assert [page.agreement_bound(x) for x in (1.1e-14, 4.4e-16, 3.3e-14, 3.4e-14, 0.0)] == [-13, -14, -13, -12, -15], \
        "the page prints the smallest power of ten above 3 × the largest difference (float64's epsilon for 0)"


def test_an_agreement_that_stops_holding_fails_the_build():
    data = {"tokens": np.array([3, 1]), "decode": np.zeros((2, 11)), "training": np.zeros((2, 11)), "largest": 1e-9}
    with pytest.raises(page.BuildError, match="the training-style pass and the cached decode differ by less than 1e-12"):
        page.agreement_snippets(data)


def test_the_page_says_the_toy_decoder_has_no_layer_norm_and_no_mlp_and_a_real_block_has():
    text = (ROOT / "docs" / "watch-it-write.md").read_text(encoding="utf-8")
    model = text[text.index("## The model"):text.index("## Generate")]
    assert "no layer norm and no feed-forward" in model and "A real transformer block has both" in model
