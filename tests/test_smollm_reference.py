"""models/smollm/reference.py, the numpy SmolLM2-135M, against transformers loaded from the same GGUF file.

transformers runs in float64 (loaded with dtype=torch.float64; eager attention, which returns the weights). Its
warning that GGUF kernels compute in float32 does not apply here: with no GGUF kernel installed, transformers
dequantizes the file into ordinary float64 Linear layers. Its RMSNorm
and its RoPE angles still compute in float32 inside a float64 model, which is why the logits agree to about 1e-5
and not to 1e-12; the bound is the issue's 1e-4.

- On 20 held-out prompts of tests/smollm_strings.py, each followed by its 32-step greedy continuation
  (tests/golden/smollm_greedy.json): the logits at every position equal transformers' within 1e-4, and at every
  position of the continuation both models' argmax is the continuation's next token. Greedy decoding picks the
  argmax given the tokens so far, so both write the same 32 tokens (the smallest lead of the best logit over the
  second is printed: far above the models' difference, so no rounding can swap them).
- The attention weights, every layer and head, equal transformers' on three prompts.
- The cached decode (decode_step, 16 tokens one by one after the prompt) equals the full recomputation (forward)
  within 1e-9 in float64, logits and attention rows, and greedy() writes the continuation.
- dequantize is gguf's own dequantization (the embedding, a whole layer, the output norm); a tiny random model
  checks the cache, the sharing of key/value heads, greedy's stop at the end-of-reply token and the errors, with
  no file.

The transformers model is loaded once for the module, its outputs kept and the model freed before the reference's
weights (1.1 GB in float64) are loaded.
"""
import gc
import json
import os
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from models.smollm.model import Config, gguf_path, reader
from models.smollm.reference import Cache, Layer, Weights, decode_step, dequantize, forward, greedy, load_weights
from models.smollm.tokenizer import encode
from smollm_strings import PROMPTS

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "smollm_greedy.json"
LOGIT_TOLERANCE = 1e-4  # the bound, against transformers in float64
ATTENTION_TOLERANCE = 1e-5  # transformers' RoPE angles are float32
CACHE_TOLERANCE = 1e-9  # cached decode against the full recomputation, both ours, float64
GREEDY_STEPS = 32
EOS = 2  # <|im_end|>
DECODE_STEPS = 16  # of the continuation, token by token through the cache
CHECKED = PROMPTS[:20]  # the 20 (scripts/smollm_formats.py uses all 24): each costs two float64 passes
ATTENTION_PROMPTS = CHECKED[:3]
UPDATE = "rerun .venv/bin/python tests/golden/smollm_greedy.py if a model or a prompt changed"


@cache
def continuations():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))["continuations"]


def sequence(prompt):
    """The prompt's ids and its golden continuation's: -> (all ids, the prompt's length)."""
    assert prompt in continuations(), f"tests/golden/smollm_greedy.json has no continuation of {prompt!r}: {UPDATE}"
    ids = encode(prompt)
    return ids + continuations()[prompt], len(ids)


@pytest.fixture(scope="module")
def transformers_outputs():
    """{prompt: (logits (n, vocab), attention (layers, heads, n, n) or None)} from transformers in float64 on the
    prompt and its continuation; the model is freed before this returns."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch  # noqa: PLC0415: seconds to import, for the slow tests only
    from transformers import AutoModelForCausalLM  # noqa: PLC0415

    path = gguf_path()
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, attn_implementation="eager",
                                                 dtype=torch.float64).eval()
    outputs = {}
    with torch.no_grad():
        for prompt in CHECKED:
            ids, _ = sequence(prompt)
            attentions = prompt in ATTENTION_PROMPTS
            result = model(torch.tensor([ids]), output_attentions=attentions, use_cache=False)
            outputs[prompt] = (result.logits[0].numpy().copy(),
                               np.stack([layer[0].numpy() for layer in result.attentions]) if attentions else None)
    del model, result
    gc.collect()
    return outputs


@pytest.fixture(scope="module")
def reference():
    return load_weights(np.float64)


@pytest.fixture(scope="module")
def compared(transformers_outputs, reference):
    """Per prompt, the reference against transformers: {"logits": max |Δ|, "ours"/"theirs": each one's argmax at
    every step of the continuation, "written": the continuation, "gap": the smallest lead of the reference's best
    logit over its second there, "attention": max |Δ weight| (ATTENTION_PROMPTS only)}."""
    found = {}
    for prompt in CHECKED:
        ids, start = sequence(prompt)
        ours, attention = forward(reference, ids)
        theirs, their_attention = transformers_outputs[prompt]
        top_two = np.sort(ours[start - 1:-1], axis=-1)[:, -2:]
        found[prompt] = {"logits": float(np.abs(ours - theirs).max()), "written": ids[start:],
                         "ours": np.argmax(ours[start - 1:-1], axis=-1).tolist(),
                         "theirs": np.argmax(theirs[start - 1:-1], axis=-1).tolist(),
                         "gap": float((top_two[:, 1] - top_two[:, 0]).min()),
                         "attention": None if their_attention is None else (
                             attention.shape == their_attention.shape and float(np.abs(attention - their_attention).max()))}
    return found


@pytest.mark.slow
def test_logits_match_transformers_on_20_prompts(compared):
    assert len(compared) >= 20, "the reference is checked on at least 20 prompts"
    for prompt, found in compared.items():
        assert found["logits"] <= LOGIT_TOLERANCE, (f"{prompt!r}: the logits equal transformers' within {LOGIT_TOLERANCE} "
                                                    f"at every position, off by {found['logits']:.2e}")
    print(f"\n{len(compared)} prompts: logits within {max(found['logits'] for found in compared.values()):.2e} of transformers")


@pytest.mark.slow
def test_greedy_tokens_match_transformers_for_32_steps(compared):
    for prompt, found in compared.items():
        assert len(found["written"]) == GREEDY_STEPS or found["written"][-1] == EOS, \
            f"{prompt!r}: the continuation is {GREEDY_STEPS} tokens, or ends on <|im_end|>: {UPDATE}"
        for name in ("ours", "theirs"):
            assert found[name] == found["written"], (f"{prompt!r}: greedy decoding by {name} writes the continuation "
                                                     f"(argmax at each step {found[name]} against {found['written']}): {UPDATE}")
    gap = min(found["gap"] for found in compared.values())
    assert gap > 10 * LOGIT_TOLERANCE, \
        f"the best logit leads the second by far more than the models' difference at every step: {gap:.2e}"
    print(f"\nsmallest lead of the best logit over the second, over every step: {gap:.4f}")


@pytest.mark.slow
def test_attention_weights_match_transformers(compared):
    for prompt in ATTENTION_PROMPTS:
        difference = compared[prompt]["attention"]
        assert difference is not False, "one n × n table per layer and query head, as transformers'"
        assert difference <= ATTENTION_TOLERANCE, (f"{prompt!r}: the attention weights equal transformers' (eager, every "
                                                   f"layer and head) within {ATTENTION_TOLERANCE}, off by {difference:.2e}")
    print(f"\nattention weights within {max(compared[prompt]['attention'] for prompt in ATTENTION_PROMPTS):.2e}")


@pytest.mark.slow
def test_cached_decode_equals_the_full_recomputation_and_greedy_writes_it(reference):
    prompt = PROMPTS[3]
    ids, start = sequence(prompt)
    logits, attention = forward(reference, ids)
    cache = Cache(reference.config)
    prefill_logits, prefill_attention = forward(reference, ids[:start], cache)
    assert np.abs(prefill_logits - logits[:start]).max() <= CACHE_TOLERANCE
    assert np.abs(prefill_attention - attention[:, :, :start, :start]).max() <= CACHE_TOLERANCE
    for position in range(start, start + DECODE_STEPS):
        step_logits, rows = decode_step(reference, cache, ids[position])
        assert rows.shape == (30, 9, position + 1), "one attention row per layer and query head, over every key so far"
        assert np.abs(step_logits - logits[position]).max() <= CACHE_TOLERANCE, \
            f"the cached decode's logits at position {position} equal the full recomputation's within {CACHE_TOLERANCE}"
        assert np.abs(rows - attention[:, :, position, :position + 1]).max() <= CACHE_TOLERANCE, \
            f"the cached decode's attention rows at position {position} equal the full recomputation's"
    assert len(cache) == start + DECODE_STEPS and cache.numbers == reference.config.cache_numbers(len(cache)), \
        "the cache holds a key and a value row per layer and key/value head (3, not 9) for every token"
    assert greedy(reference, ids[:start], 8) == ids[start:start + 8], "greedy() writes the continuation's first 8 tokens"


@pytest.mark.slow
def test_dequantize_is_ggufs_own():
    from gguf.quants import dequantize as gguf_dequantize  # noqa: PLC0415

    for tensor in (tensor for tensor in reader().tensors if tensor.name.startswith(("token_embd", "blk.0.", "output"))):
        ours = dequantize(tensor, np.float32)
        theirs = gguf_dequantize(tensor.data, tensor.tensor_type)
        assert ours.shape == theirs.shape and np.array_equal(ours, theirs), \
            f"{tensor.name} ({tensor.tensor_type.name}): dequantize gives gguf's own values"
        exact = dequantize(tensor, np.float64)
        assert np.abs(exact - theirs).max() <= np.abs(theirs).max() * 2.0 ** -23, \
            f"{tensor.name}: float64 dequantization is gguf's float32 one within a float32 rounding"


# ---------------------------------------------------------------- a tiny random model: no file needed


def tiny_model(seed=0):
    config = Config(n_layers=2, d_model=8, n_heads=4, n_kv_heads=2, d_ff=12, vocab=11, rope_base=100.0,
                    norm_epsilon=1e-5, context=64)
    rng = np.random.default_rng(seed)
    d, kv = config.d_model, config.n_kv_heads * config.d_k

    def layer():
        return Layer(attn_norm=1 + 0.1 * rng.normal(size=d), W_Q=rng.normal(size=(d, d)), W_K=rng.normal(size=(d, kv)),
                     W_V=rng.normal(size=(d, kv)), W_O=rng.normal(size=(d, d)) / 3, ffn_norm=1 + 0.1 * rng.normal(size=d),
                     W_gate=rng.normal(size=(d, config.d_ff)), W_up=rng.normal(size=(d, config.d_ff)),
                     W_down=rng.normal(size=(config.d_ff, d)) / 3)

    return Weights(config=config, embedding=rng.normal(size=(config.vocab, d)), layers=(layer(), layer()),
                   output_norm=np.ones(d), eos=2)


def test_tiny_model_decodes_as_it_recomputes():
    weights = tiny_model()
    ids = [3, 1, 4, 1, 5, 9, 2, 6]
    logits, attention = forward(weights, ids)
    assert attention.shape == (2, 4, 8, 8) and np.allclose(attention.sum(-1), 1), "every weight row sums to 1"
    assert np.all(np.triu(attention, 1) == 0), "no query attends to a later key (the causal mask)"
    cache = Cache(weights.config)
    forward(weights, ids[:3], cache)
    for position in range(3, len(ids)):
        step_logits, rows = decode_step(weights, cache, ids[position])
        assert np.abs(step_logits - logits[position]).max() <= 1e-12, "the cached decode equals the full recomputation"
        assert np.abs(rows - attention[:, :, position, :position + 1]).max() <= 1e-12
    assert cache.numbers == len(ids) * weights.config.cache_numbers(1), "2 key/value heads cached, not 4"


def test_tiny_model_shares_key_value_heads_by_groups():
    weights = tiny_model()
    layer = weights.layers[0]
    # key/value head 1 (columns 2 … 3) changed: query heads 2 and 3 read it, heads 0 and 1 do not
    changed = replace(weights, layers=(replace(layer, W_K=layer.W_K + np.r_[[0, 0, 1, 1]] * 0.5), weights.layers[1]))
    before, after = forward(weights, [3, 1, 4, 1])[1][0], forward(changed, [3, 1, 4, 1])[1][0]
    assert np.array_equal(before[:2], after[:2]) and not np.allclose(before[2:], after[2:]), \
        "query head g reads key/value head g // 2: changing key head 1 moves query heads 2 and 3 only"


def test_greedy_stops_after_the_end_of_reply_token():
    weights = tiny_model()
    written = greedy(weights, [3, 1, 4], 50)
    full = greedy(weights, [3, 1, 4], 50, stop=False)
    assert len(full) == 50, "without stop, greedy writes every step"
    if weights.eos in full:
        assert written == full[:full.index(weights.eos) + 1], "greedy stops right after writing the end-of-reply token"
    eos_first = replace(weights, eos=full[0])
    assert greedy(eos_first, [3, 1, 4], 50) == [full[0]], "a first token that ends the reply ends the run"
    assert greedy(weights, [3, 1, 4], 0) == [], "0 steps write nothing"


@pytest.mark.parametrize("ids, culprit", [([], "ids is empty"), ([3, 11], r"ids\[1\] = 11 is not a token id"),
                                          ([-1], r"ids\[0\] = -1 is not a token id"), ([1.5], "must be integers"),
                                          ([[1, 2]], "1-D")])
def test_bad_ids_are_named(ids, culprit):
    with pytest.raises(ValueError, match=culprit):
        forward(tiny_model(), ids)


@pytest.mark.parametrize("token_id", [11, -1, 2.0, True])
def test_a_bad_token_id_in_decode_step_is_named(token_id):
    weights = tiny_model()
    cache = Cache(weights.config)
    forward(weights, [3, 1], cache)
    with pytest.raises(ValueError, match=f"token_id = {token_id!r} is not a token id"):
        decode_step(weights, cache, token_id)
    assert len(cache) == 2, "a refused token leaves the cache as it was"
