"""The block around attention (docs/block.md, issue 54 item 7): one token through one layer of the real model.

`models.minilm.encoder_layer_steps` against transformers' own vectors inside each layer (caught with forward hooks)
and against a layer norm written as plain loops; the page's worked example `ex-block` against transformers; and
the page's tables redone by hand from their printed numbers. Needs the model package, torch and transformers
(the `test` extra); everything runs offline.
"""
import json
import math
import os
import re

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import pytest

from by_hand import NUMBER, follows, number, significant
from figures_src.engine.text import published
from models.minilm import encode, encoder_layer_steps
from models.minilm.data import SENTENCES
from models.minilm.encoder import encoder_layer
from models.minilm.model import load_model

TOLERANCE = 1e-4  # the real-heads tests' bound for transformers against the numpy encoder
STEP_NAMES = ("concat", "attended", "residual1", "norm1", "pre_activation", "hidden", "ffn_out", "residual2", "out")


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def hf_model(model):
    import torch
    from transformers import BertModel

    torch.manual_seed(0)
    return BertModel.from_pretrained(str(model.folder), attn_implementation="eager", local_files_only=True).eval()


def hf_layer_steps(hf_model, ids):
    """transformers' vectors inside every encoder layer, caught with forward hooks in one run, and its hidden states
    -> ([{LayerSteps field: (n, width)} per layer], [hidden state (n, d_model) per layer boundary])."""
    import torch

    caught = [{} for _ in hf_model.encoder.layer]

    def output(layer, name):
        def hook(module, args, result):
            caught[layer][name] = (result[0] if isinstance(result, tuple) else result)[0].numpy()
        return hook

    def argument(layer, name):
        def hook(module, args):
            caught[layer][name] = args[0][0].numpy()
        return hook

    handles = []
    for layer, block in enumerate(hf_model.encoder.layer):
        handles += [
            block.attention.self.register_forward_hook(output(layer, "concat")),  # the heads' outputs, merged
            block.attention.output.dense.register_forward_hook(output(layer, "attended")),
            block.attention.output.LayerNorm.register_forward_pre_hook(argument(layer, "residual1")),
            block.attention.output.register_forward_hook(output(layer, "norm1")),
            block.intermediate.dense.register_forward_hook(output(layer, "pre_activation")),
            block.intermediate.register_forward_hook(output(layer, "hidden")),
            block.output.dense.register_forward_hook(output(layer, "ffn_out")),
            block.output.LayerNorm.register_forward_pre_hook(argument(layer, "residual2")),
            block.output.register_forward_hook(output(layer, "out")),
        ]
    try:
        with torch.no_grad():
            result = hf_model(input_ids=torch.as_tensor(np.atleast_2d(ids)), output_hidden_states=True)
    finally:
        for handle in handles:
            handle.remove()
    assert all(sorted(steps) == sorted(STEP_NAMES) for steps in caught), "a hook caught nothing: BertLayer changed its parts"
    return caught, [hidden[0].numpy() for hidden in result.hidden_states]


def plain_layer_norm(row, gamma, beta, eps):
    """One token's layer norm as written on paper: the mean, the (biased) variance, then each entry on its own."""
    d = len(row)
    mean = math.fsum(row) / d
    variance = math.fsum((v - mean) ** 2 for v in row) / d
    return [(v - mean) / math.sqrt(variance + eps) * g + b for v, g, b in zip(row, gamma, beta, strict=True)]


# ---------------------------------------------------------------- the function


@pytest.mark.slow
def test_the_steps_end_where_the_encoders_layer_ends_and_keep_their_shapes(model):
    config = model.config
    _, ids = model.tokenize(SENTENCES[0].text)
    hidden = encode(model.params, config, ids).hidden_states
    n = len(ids)
    for layer, params in enumerate(model.params.layers):
        steps = encoder_layer_steps(hidden[layer], params, config)
        out, weights = encoder_layer(hidden[layer], params, config)
        np.testing.assert_array_equal(steps.out, out, err_msg=f"layer {layer}: the steps must end in encoder_layer's output")
        np.testing.assert_array_equal(steps.weights, weights)
        assert steps.weights.shape == (config.n_heads, n, n)
        for name in STEP_NAMES:
            width = config.d_ff if name in ("pre_activation", "hidden") else config.d_model
            assert getattr(steps, name).shape == (n, width), f"{name}: (n, {width}), as the docstring says"
        np.testing.assert_array_equal(steps.residual1, hidden[layer] + steps.attended)
        np.testing.assert_array_equal(steps.residual2, steps.norm1 + steps.ffn_out)


@pytest.mark.slow
def test_a_padded_batch_gives_each_sentence_its_own_steps(model):
    """The padding mask reaches every head, as in encode: a sentence's real tokens get the steps they get alone."""
    config = model.config
    encoded = [model.tokenize(s.text)[1] for s in SENTENCES[:2]]
    n = max(len(ids) for ids in encoded)
    ids = np.zeros((len(encoded), n), dtype=np.int64)
    mask = np.zeros((len(encoded), n), dtype=bool)
    for b, sentence_ids in enumerate(encoded):
        ids[b, : len(sentence_ids)], mask[b, : len(sentence_ids)] = sentence_ids, True
    X = encode(model.params, config, ids, attention_mask=mask).hidden_states[2]
    batch = encoder_layer_steps(X, model.params.layers[2], config, mask[:, None, :])
    for b, sentence_ids in enumerate(encoded):
        m = len(sentence_ids)
        alone = encoder_layer_steps(encode(model.params, config, sentence_ids).hidden_states[2], model.params.layers[2], config)
        for name in STEP_NAMES:
            np.testing.assert_allclose(getattr(batch, name)[b, :m], getattr(alone, name), atol=1e-5, err_msg=name)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_vector_of_every_layer_matches_transformers(model, hf_model, dtype):
    """Every intermediate vector of every layer, against transformers' own inside BertLayer (forward hooks)."""
    params = model.params.astype(dtype)
    _, ids = model.tokenize(SENTENCES[0].text)
    hidden = encode(params, model.config, ids).hidden_states
    theirs, _ = hf_layer_steps(hf_model, ids)
    for layer in range(model.config.n_layers):
        steps = encoder_layer_steps(hidden[layer], params.layers[layer], model.config)
        for name in STEP_NAMES:
            worst = np.abs(getattr(steps, name) - theirs[layer][name]).max()
            assert worst < TOLERANCE, f"layer {layer + 1}, {name}: {worst:.2e} from transformers' (at most {TOLERANCE})"


@pytest.mark.slow
def test_both_layer_norms_match_a_plain_loop(model):
    config = model.config
    params = model.params.astype(np.float64)
    _, ids = model.tokenize(SENTENCES[0].text)
    layer = params.layers[3]
    steps = encoder_layer_steps(encode(params, config, ids).hidden_states[3], layer, config)
    for residual, normed, gamma, beta in ((steps.residual1, steps.norm1, layer.norm1_gamma, layer.norm1_beta),
                                          (steps.residual2, steps.out, layer.norm2_gamma, layer.norm2_beta)):
        for row, ours in zip(residual, normed):
            expected = plain_layer_norm(row.tolist(), gamma.tolist(), beta.tolist(), config.layer_norm_eps)
            np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12, err_msg="a layer norm is not the loop's")


# ---------------------------------------------------------------- the page


@pytest.fixture(scope="module")
def block_example(generated):
    return json.loads((generated / "public" / "examples" / "ex-block.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def snippets(generated):
    return {path.name.removeprefix("ex-block-").removesuffix(".md"): path.read_text(encoding="utf-8")
            for path in (generated / "snippets").glob("ex-block-*.md")}


def test_the_pages_token_is_the_one_transformers_computes(model, hf_model, block_example):
    """ex-block's vectors, entering, inside and leaving the layer, are transformers' for that token and layer."""
    ex = block_example
    tokens, ids = model.tokenize(ex["sentence"])
    assert tokens == ex["tokens"] and tokens[ex["position"]] == ex["token"]
    every_layer, hidden = hf_layer_steps(hf_model, ids)
    theirs = every_layer[ex["layer"]]
    i = ex["position"]
    np.testing.assert_allclose(ex["inputs"]["X"], hidden[ex["layer"]][i], atol=TOLERANCE, err_msg="the layer's input")
    np.testing.assert_allclose(ex["outputs"]["out"], hidden[ex["layer"] + 1][i], atol=TOLERANCE,
                               err_msg="the layer's output is transformers' next hidden state")
    for name in STEP_NAMES[:-1]:
        np.testing.assert_allclose(ex["steps"][name], theirs[name][i], atol=TOLERANCE, err_msg=name)
    for number_, name in ((1, "residual1"), (2, "residual2")):
        row = theirs[name][i].astype(np.float64)
        assert abs(ex["steps"][f"mean{number_}"] - row.mean()) < TOLERANCE
        assert abs(ex["steps"][f"variance{number_}"] - row.var()) < TOLERANCE
    block = hf_model.encoder.layer[ex["layer"]]
    for ours, module in (("norm1", block.attention.output.LayerNorm), ("norm2", block.output.LayerNorm)):
        # exactly the model's float32 weights, as the JSON writes every array (figures_src/engine/text.py)
        np.testing.assert_array_equal(ex["steps"][f"{ours}_gamma"], published(module.weight.detach().numpy()))
        np.testing.assert_array_equal(ex["steps"][f"{ours}_beta"], published(module.bias.detach().numpy()))


def rows_of(markdown):
    """A Markdown table's body rows as lists of cell texts."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def stats_of(sentence):
    """The printed μ, σ² and √(σ² + ε), as text, from the sentence that prints them (LaTeX, a negative number in braces)."""
    values = re.findall(r"= \{?(-?\d+\.\d+)\}?\$", sentence)
    assert len(values) == 3, sentence
    return values


def test_every_printed_step_checks_out_by_hand(snippets, block_example):
    """Each column after a table's first ones follows from the printed numbers to its left (rounded as printed,
    never a tie); a table starts from the previous table's printed column; the model's numbers are the JSON's."""
    ex, steps = block_example, block_example["steps"]
    residual, norm1, gelu_rows = rows_of(snippets["residual"]), rows_of(snippets["norm1"]), rows_of(snippets["gelu"])
    second, norm2 = rows_of(snippets["residual2"]), rows_of(snippets["norm2"])
    assert len(residual) == len(norm1) == len(gelu_rows) == len(second) == len(norm2) >= 3
    for k, (c, x, attn, y) in enumerate(residual):
        assert c == str(k + 1), "entries count from 1"
        assert follows(ex["inputs"]["X"][k], x) and follows(steps["attended"][k], attn), "x and attn are the model's"
        assert number(x) + number(attn) == number(y), f"entry {c}: x + attn = y, exactly, from the printed numbers"
    for table, stats, source, gamma, beta in ((norm1, snippets["stats1"], residual, "norm1_gamma", "norm1_beta"),
                                              (norm2, snippets["stats2"], second, "norm2_gamma", "norm2_beta")):
        mean_text, variance_text, root_text = stats_of(stats)
        mean, variance, root = number(mean_text), number(variance_text), number(root_text)
        which = 1 if table is norm1 else 2
        assert follows(steps[f"mean{which}"], mean_text) and follows(steps[f"variance{which}"], variance_text), "μ, σ²: the model's"
        assert follows((variance + number(repr(ex["layer_norm_eps"]))).sqrt(), root_text), "√(σ² + ε) from the printed σ²"
        for k, row in enumerate(table):
            c, y, standard, g, b, z = row[:6]
            assert y == source[k][-1], "a layer norm starts from the printed sum it normalises"
            assert follows(steps[gamma][k], g) and follows(steps[beta][k], b), "γ and β are the model's"
            assert follows((number(y) - mean) / root, standard), f"entry {c}: (y − μ)/√(σ² + ε) from the printed numbers"
            assert follows(number(standard) * number(g) + number(b), z), f"entry {c}: the layer norm's output by hand"
    for k, (c, u, phi, g) in enumerate(gelu_rows):
        assert follows(steps["pre_activation"][k], u), "u is the model's"
        assert follows(0.5 * (1 + math.erf(float(number(u)) / math.sqrt(2))), phi), f"entry {c}: Φ of the printed u"
        assert follows(number(u) * number(phi), g), f"entry {c}: GELU = u Φ(u) from the printed numbers"
    for k, (c, z, f, y) in enumerate(second):
        assert z == norm1[k][5] and follows(steps["ffn_out"][k], f), "the second sum adds the printed z and the model's f"
        assert number(z) + number(f) == number(y), f"entry {c}: z + f = y′, exactly"
    model_entries = re.findall(r"x'_(\d+) = \{?(-?\d+\.\d+)\}?\$", snippets["agreement"])
    assert [c for c, _ in model_entries] == [row[0] for row in norm2], "the model's x′, entry by entry"
    within = number(re.findall(rf"within ({NUMBER})", snippets["agreement"])[0])
    for k, (row, (_, model_x)) in enumerate(zip(norm2, model_entries)):
        assert follows(ex["outputs"]["out"][k], model_x), "the model's x′ is the JSON's"
        assert abs(number(row[5]) - number(repr(ex["outputs"]["out"][k]))) <= within, "the page states how close they land"


def test_no_printed_number_shows_more_than_four_significant_digits(snippets):
    """Float noise (and transformers' float32 against this float64 run) stays below every digit the page prints."""
    checked = 0
    for name, text in snippets.items():
        if name == "cite":
            continue
        for match in re.finditer(rf"(?<![\w_{{^]){NUMBER}", re.sub(r"_\{\d+\}|\^\{-?\d+\}|\d+ × [\d,]+", "", text)):
            printed = match.group(0)
            if "," in printed or "." not in printed:
                continue  # a count or a size (1,536; 384), not a measured value
            assert significant(printed) <= 4, f"ex-block-{name}: {printed} shows more than 4 significant digits"
            checked += 1
    assert checked > 60
