"""SmolLM2-135M as the browser runs it: the shipped files (models/smollm/shipped.py), the model in JS and
WebAssembly (docs/widgets/smollm/llama.js with the kernels of docs/widgets/your-sentence/kernels.wat), the sampler
(sample.js) and the worker (smollm-worker.js), run by Node on files written here from the pinned GGUF.

The outside reference is transformers, loaded from the same GGUF in float32 (it dequantizes every tensor as gguf
does, then runs its own Llama). The JS model computes in float32 on the quantized weights as they are, in another
order (a block's scale applied after its codes' dot product, float64 for RMSNorm and RoPE's angles): its logits
differ from transformers' by float32's rounding grown over 30 layers, measured at about 5e-5 (|logits| up to about
25); LOGIT_TOLERANCE allows 20 times that (1e-3, still a thousandth of the gap between the top two logits on the
prompts here). The greedy tokens must be the same: on every prompt the page offers, and on at least 95% of the
held-out prompts (tests/smollm_strings.py's PROMPTS) over 32 steps (a near-tie between the two largest logits may
flip one). Those tests read the 97 MB model: they are slow (make test).

make check runs the worker end to end on a tiny random model instead: a GGUF of SmolLM2's shape and types, 2 layers
and 264 tokens, written here and shipped by the same ship(), against models/smollm/reference.py and
models/smollm/tokenizer.py on that file; the worker's protocol, its errors and the sampler are checked there.
"""
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from figures_src.pages.smollm import MAX_CHARACTERS, MAX_NEW, MAX_PROMPT_TOKENS, PRESETS, WORDS
from models.smollm.model import gguf_path, reader
from models.smollm.shipped import ALIGN, KERNELS_STEM, SHARD_BYTES, TOTAL_BYTES, read_tensor, ship
from tests.smollm_strings import PROMPTS as HELD_OUT

ROOT = Path(__file__).resolve().parents[1]
LOGIT_TOLERANCE = 1e-3
STEPS = 32
LIMITS = {"max_prompt_tokens": MAX_PROMPT_TOKENS, "max_new": MAX_NEW, "max_characters": MAX_CHARACTERS}  # the page's
SITE_PROMPTS = [WORDS.line(preset) for preset in PRESETS]  # the prompts the page offers


def node(*arguments, timeout=900):
    executable = shutil.which("node")
    assert executable, "Node.js is needed (make test installs it)"
    try:
        result = subprocess.run([executable, *arguments], cwd=ROOT, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"node {' '.join(arguments)} did not end within {timeout} s: a message never came") from error
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-3000:]


@pytest.fixture(scope="module")
def shipped():
    return ship()


def site_folder(shipped, root):
    """The shipped files as the site publishes them (models/<stem>.bin, a manifest as figures_src/pages/smollm.py
    writes it), and as tests/node/llama.mjs reads them (one file per stem, layout.json, kernels.wasm)."""
    (root / "models").mkdir(parents=True)
    names = {stem: f"models/{stem}.bin" for stem in shipped.files}
    for stem, content in shipped.files.items():
        (root / names[stem]).write_bytes(content)
        (root / stem).symlink_to(root / names[stem])
    (root / "layout.json").write_text(json.dumps(shipped.layout), encoding="utf-8")
    (root / "kernels.wasm").symlink_to(root / names[KERNELS_STEM])
    manifest = {"files": names, "limits": LIMITS, "layout": shipped.layout,
                "integrity": {stem: {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}
                              for stem, content in shipped.files.items()}}
    (root / "models" / "smollm.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def folder(shipped, tmp_path_factory):
    return site_folder(shipped, tmp_path_factory.mktemp("smollm"))


# ---------------------------------------------------------------- a tiny model in the shipped format

TINY = {"n_layers": 2, "d_model": 128, "n_heads": 2, "n_kv_heads": 1, "d_ff": 256}
TINY_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]  # ids 0, 1, 2: unknown, BOS, EOS as SmolLM2's
TINY_MERGES = ["Ġ t", "h e", "Ġt he", "i n", "Ġ a"]  # 264 tokens in all: a multiple of 8, as the real 49,152


def write_tiny_gguf(path, seed=0, nan=None):
    """A random SmolLM2-shaped model (2 layers, 2 query heads sharing 1 key/value head, d_k 64), its tensors in the
    real file's types (Q8_0 embedding, Q4_1 matrices, F32 norms) and a byte-level BPE vocabulary of 264 tokens,
    written as a GGUF file so that ship() writes it in the shipped format as it writes SmolLM2. `nan`: a tensor
    whose first value is made NaN (it still ships: the worker must catch what comes out)."""
    from gguf import GGMLQuantizationType, GGUFWriter, quants  # noqa: PLC0415

    from models.smollm.tokenizer import BYTE_CHARACTERS  # noqa: PLC0415

    tokens = TINY_SPECIAL + BYTE_CHARACTERS + [merge.replace(" ", "") for merge in TINY_MERGES]
    d, d_ff, vocab = TINY["d_model"], TINY["d_ff"], len(tokens)
    kv = d // TINY["n_heads"] * TINY["n_kv_heads"]
    writer = GGUFWriter(str(path), "llama")
    for key, value in {"block_count": TINY["n_layers"], "embedding_length": d, "attention.head_count": TINY["n_heads"],
                       "attention.head_count_kv": TINY["n_kv_heads"], "feed_forward_length": d_ff,
                       "vocab_size": vocab, "context_length": 2048}.items():
        writer.add_uint32(f"llama.{key}", value)
    writer.add_float32("llama.rope.freq_base", 100000.0)
    writer.add_float32("llama.attention.layer_norm_rms_epsilon", 1e-5)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types([3] * len(TINY_SPECIAL) + [1] * (vocab - len(TINY_SPECIAL)))
    writer.add_token_merges(TINY_MERGES)
    for name, value in {"bos_token_id": 1, "eos_token_id": 2, "unknown_token_id": 0, "padding_token_id": 2}.items():
        writer.add_uint32(f"tokenizer.ggml.{name}", value)
    writer.add_bool("tokenizer.ggml.add_bos_token", False)
    random = np.random.default_rng(seed)

    def add(name, shape, kind, scale=1.0):
        values = (random.standard_normal(shape) * scale).astype(np.float32)
        if kind == "F32":
            values = 1 + values
        if name == nan:
            values.flat[0] = np.nan
        if kind == "F32":
            writer.add_tensor(name, values)
        else:
            qtype = GGMLQuantizationType[kind]
            writer.add_tensor(name, quants.quantize(values, qtype), raw_dtype=qtype)

    add("token_embd.weight", (vocab, d), "Q8_0")
    for layer in range(TINY["n_layers"]):
        p = f"blk.{layer}."
        add(p + "attn_norm.weight", (d,), "F32", 0.1)
        for name, shape in (("attn_q", (d, d)), ("attn_k", (kv, d)), ("attn_v", (kv, d)), ("attn_output", (d, d))):
            add(p + name + ".weight", shape, "Q4_1", 0.15)
        add(p + "ffn_norm.weight", (d,), "F32", 0.1)
        for name, shape in (("ffn_gate", (d_ff, d)), ("ffn_up", (d_ff, d)), ("ffn_down", (d, d_ff))):
            add(p + name + ".weight", shape, "Q4_1", 0.1)
    add("output_norm.weight", (d,), "F32", 0.1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny model's GGUF path and its site folder (the shipped files, a manifest)."""
    root = tmp_path_factory.mktemp("tiny")
    path = write_tiny_gguf(root / "tiny.gguf")
    return path, site_folder(ship(path), root / "site")


def run_llama(folder, jobs):
    (folder / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    node("tests/node/llama.mjs", str(folder), str(folder / "jobs.json"), str(folder / "out.json"))
    return json.loads((folder / "out.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the shipped files


def read_back_as_gguf_dequantizes(shipped, tensors):
    from gguf import quants  # noqa: PLC0415

    for tensor in tensors:
        expected = quants.dequantize(tensor.data, tensor.tensor_type)
        got = read_tensor(shipped.files, shipped.layout, tensor.name)
        assert got.shape == expected.shape and got.dtype == np.float32, tensor.name
        assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), (
            f"{tensor.name}: the shipped values must be the GGUF's, bit for bit")


@pytest.mark.slow  # reads the 97 MB GGUF and ships it
def test_the_shipped_files_read_back_as_gguf_dequantizes_the_gguf_bit_for_bit(shipped):
    """The embedding (Q8_0), the first layer's tensors (Q4_1 and F32) and the last norm; every tensor: below."""
    tensors = reader().tensors
    assert len(tensors) == len(shipped.layout["tensors"]) == 272
    read_back_as_gguf_dequantizes(shipped, [t for t in tensors if t.name.startswith(("token_embd", "blk.0.", "output_norm"))])


@pytest.mark.slow  # 134.5 million values, twice: about 10 s
def test_every_shipped_tensor_reads_back_as_gguf_dequantizes_it_bit_for_bit(shipped):
    read_back_as_gguf_dequantizes(shipped, reader().tensors)


@pytest.mark.slow  # ships the 97 MB GGUF twice
def test_the_shipped_files_are_planar_aligned_within_their_limits_and_the_same_every_time(shipped):
    layout, files = shipped.layout, shipped.files
    assert all(len(files[stem]) <= SHARD_BYTES and len(files[stem]) % ALIGN == 0 for stem in layout["shards"]), (
        "each shard holds at most 50,000,000 bytes, a whole number of 16-byte lines")
    assert sum(map(len, files.values())) <= TOTAL_BYTES, "the download is at most 100 MB"
    for index, stem in enumerate(layout["shards"]):
        spans = sorted(span for entry in layout["tensors"] if entry["shard"] == index for span in entry["parts"].values())
        assert all(offset % ALIGN == 0 for offset, _ in spans), f"{stem}: every part starts on a 16-byte boundary"
        assert all(a + n <= b for (a, n), (b, _) in zip(spans, spans[1:])) and spans[-1][0] + spans[-1][1] <= len(files[stem])
    by_type = {entry["type"] for entry in layout["tensors"]}
    assert by_type == {"Q4_1", "Q8_0", "F32"}, "every tensor keeps the GGUF's own type"
    again = ship.__wrapped__()
    assert {stem: hashlib.sha256(c).hexdigest() for stem, c in again.files.items()} == {
        stem: hashlib.sha256(c).hexdigest() for stem, c in files.items()} and again.layout == layout, (
        "shipping twice writes the same bytes")


def test_the_kernels_are_the_one_file_the_your_sentence_page_publishes(tiny):
    """The compiled kernels.wat is published once: both pages' manifests name the same content-hashed file."""
    from figures_src.pages import smollm, your_sentence  # noqa: PLC0415

    kernels = ship(tiny[0]).files[KERNELS_STEM]
    assert kernels == your_sentence.compile_wat(your_sentence.KERNELS)
    assert smollm.content_name(KERNELS_STEM, kernels) == your_sentence.content_name(your_sentence.KERNELS_STEM, "wasm", kernels), (
        "the smollm page must publish the kernels under your-sentence's name, so that the site holds one copy")


# ---------------------------------------------------------------- the model in JS


@pytest.mark.slow  # the 97 MB model in Node
def test_the_cached_decode_equals_the_whole_prompt_at_once(folder):
    """Token by token through the KV cache, the last logits and the last token's attention row are those of one
    forward pass over the whole prompt (the same float32 operations in the same order: equal, not just close)."""
    ids = [504, 3575, 282, 4649, 314, 7042, 30, 198]  # "The capital of France is Paris.\n"
    whole, stepwise = run_llama(folder, [{"ids": ids}, {"ids": ids, "mode": "stepwise"}])
    assert np.array_equal(whole["logits"], stepwise["logits"]), "the cache's decode must give the full pass's logits"
    n, rows = len(ids), np.array(whole["weights"]).reshape(30, 9, len(ids), len(ids))
    assert np.array_equal(rows[:, :, -1, :], np.array(stepwise["weights"]).reshape(30, 9, n)), (
        "the cache's last attention row must be the full pass's last row")
    assert np.allclose(rows.sum(axis=-1), 1, atol=1e-5) and not np.triu(rows, 1).any(), (
        "each attention row sums to 1 and sees no later token")


@pytest.fixture(scope="module")
def transformers_model():
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch  # noqa: PLC0415
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415

    path = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32).eval()

    def run(prompts, steps):
        """Per prompt: (ids, the last prompt token's logits, greedy tokens up to `steps`, stopping after eos)."""
        runs = []
        for prompt in prompts:
            ids = tokenizer(prompt)["input_ids"]
            with torch.no_grad():
                logits = model(torch.tensor([ids])).logits[0, -1].numpy()
                written = model.generate(torch.tensor([ids]), max_new_tokens=steps, do_sample=False, top_k=None,
                                         top_p=None, temperature=None, eos_token_id=tokenizer.eos_token_id,
                                         pad_token_id=tokenizer.eos_token_id)[0, len(ids):].tolist()
            runs.append((ids, logits, written))
        return runs

    return run


@pytest.mark.slow  # transformers loads the GGUF (about 30 s)
def test_the_js_model_writes_what_transformers_writes(folder, transformers_model):
    eos = reader().fields["tokenizer.ggml.eos_token_id"].contents()
    reference = transformers_model(SITE_PROMPTS, STEPS)
    js = run_llama(folder, [{"ids": ids, "steps": STEPS, "eos": eos} for ids, _, _ in reference])
    worst = max(float(np.abs(np.array(out["promptLogits"]) - logits).max()) for out, (_, logits, _) in zip(js, reference))
    print(f"\nJS vs transformers (float32), last prompt token's logits on the site's prompts: max |Δ| {worst:.2e}")
    assert worst <= LOGIT_TOLERANCE, f"the JS logits must be transformers' within {LOGIT_TOLERANCE}, got {worst:.2e}"
    for prompt, out, (_, _, written) in zip(SITE_PROMPTS, js, reference):
        assert out["tokens"] == written, f"{prompt!r}: on a prompt the page offers, the greedy tokens must be transformers'"


@pytest.mark.slow  # 24 prompts × 32 tokens in transformers and in Node: 5 min on a busy 2-core machine
def test_the_js_model_writes_what_transformers_writes_on_held_out_prompts(folder, transformers_model):
    eos = reader().fields["tokenizer.ggml.eos_token_id"].contents()
    reference = transformers_model(HELD_OUT, STEPS)
    js = run_llama(folder, [{"ids": ids, "steps": STEPS, "eos": eos} for ids, _, _ in reference])
    same = [out["tokens"] == written for out, (_, _, written) in zip(js, reference)]
    worst = max(float(np.abs(np.array(out["promptLogits"]) - logits).max()) for out, (_, logits, _) in zip(js, reference))
    print(f"\nheld out: {sum(same)}/{len(same)} prompts write the same {STEPS} greedy tokens; "
          f"last prompt token's logits max |Δ| {worst:.2e}")
    assert len(HELD_OUT) >= 20 and sum(same) >= 0.95 * len(same), (
        f"the greedy tokens must be transformers' over {STEPS} steps on at least 95% of held-out prompts: "
        f"{[prompt for prompt, ok in zip(HELD_OUT, same) if not ok]} differ")
    assert worst <= LOGIT_TOLERANCE, f"the JS logits must be transformers' within {LOGIT_TOLERANCE}, got {worst:.2e}"


# ---------------------------------------------------------------- the sampler


def mulberry32(seed, count):
    """The generator sample.js documents, as a plain loop: Tommy Ettinger's mulberry32."""
    state, out = seed & 0xFFFFFFFF, []
    for _ in range(count):
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = ((state ^ (state >> 15)) * (state | 1)) & 0xFFFFFFFF
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF
        out.append(((t ^ (t >> 14)) & 0xFFFFFFFF) / 2**32)
    return out


def test_the_sampler_repeats_with_the_same_seed_and_keeps_to_the_top_k(tmp_path):
    code = """
    import { writeFileSync } from "node:fs";
    import { mostProbable, sample, seededRandom } from "./docs/widgets/smollm/sample.js";
    const logits = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i * 12.9898) * 3);
    const draw = (seed, temperature, topK) => {
      const random = seededRandom(seed);
      return Array.from({ length: 400 }, () => sample(logits, { temperature, topK, random }));
    };
    const random = seededRandom(7);
    writeFileSync(process.argv[1], JSON.stringify({ logits: Array.from(logits), numbers: Array.from({ length: 5 }, random),
      same: [draw(42, 0.8, 40), draw(42, 0.8, 40)], other: draw(43, 0.8, 40), top3: draw(1, 5, 3), all: draw(1, 1, 0), fraction: draw(1, 5, 2.5),
      greedy: draw(1, 0, 40), top: mostProbable(logits, 5) }));
    """
    executable = shutil.which("node")
    subprocess.run([executable, "--input-type=module", "-e", code, str(tmp_path / "out.json")], cwd=ROOT, check=True, timeout=60)
    out = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert out["numbers"] == mulberry32(7, 5), "the seeded generator is mulberry32, as sample.js says"
    assert out["same"][0] == out["same"][1], "the same seed and settings must give the same tokens"
    assert out["other"] != out["same"][0], "another seed gives other tokens"
    logits = np.array(out["logits"], dtype=np.float32)
    order = np.argsort(-logits, kind="stable")
    assert set(out["top3"]) == set(order[:3].tolist()), "top-k draws only among the k largest logits (here all three, at T = 5)"
    assert set(out["fraction"]) == set(order[:2].tolist()), "a top-k of 2.5 (from a hand-edited link) keeps 2"
    assert set(out["same"][0]) <= set(order[:40].tolist()) and len(set(out["all"])) > 40
    assert set(out["greedy"]) == {int(order[0])}, "temperature 0 is greedy"
    p = np.exp(logits.astype(np.float64) - logits.max())
    p /= p.sum()
    assert [entry["id"] for entry in out["top"]] == order[:5].tolist()
    assert np.allclose([entry["p"] for entry in out["top"]], p[order[:5]], rtol=1e-6), "the top five's probabilities at T = 1"


def sample_loop(logits, temperature, top_k, numbers):
    """sample.js's draw at temperature > 0 as a plain loop: the top k ids (k = 0: all, in id order), largest first
    (the lower id first among equals), their softmax(logit / T) in float64, and the first id at which u, less each
    probability in turn, falls below 0."""
    logits = [float(x) for x in logits]
    k = math.floor(top_k)
    ids = sorted(range(len(logits)), key=lambda i: (-logits[i], i))[:k] if 0 < k < len(logits) else list(range(len(logits)))
    largest = max(logits[i] for i in ids)
    weights = [math.exp((logits[i] - largest) / temperature) for i in ids]
    total = 0.0
    for weight in weights:
        total += weight
    chosen = []
    for u in numbers:
        for index, i in enumerate(ids):
            u -= weights[index] / total
            if u < 0:
                chosen.append(i)
                break
        else:
            chosen.append(ids[-1])
    return chosen


def test_the_sampler_draws_as_a_plain_loop_does(tmp_path):
    settings = [(0.7, 40, 42), (1.0, 0, 7), (1.5, 3, 1), (0.3, 2.5, 9), (2.0, 50_000, 3)]
    code = """
    import { writeFileSync } from "node:fs";
    import { sample, seededRandom } from "./docs/widgets/smollm/sample.js";
    const logits = Float32Array.from({ length: 2000 }, (_, i) => Math.cos(i * 7.77) * 4 + (i % 17 === 0 ? 3 : 0));
    const settings = JSON.parse(process.argv[2]);
    writeFileSync(process.argv[1], JSON.stringify({ logits: Array.from(logits), draws: settings.map(([temperature, topK, seed]) => {
      const random = seededRandom(seed);
      return Array.from({ length: 300 }, () => sample(logits, { temperature, topK, random }));
    }) }));
    """
    subprocess.run([shutil.which("node"), "--input-type=module", "-e", code, str(tmp_path / "out.json"), json.dumps(settings)],
                   cwd=ROOT, check=True, timeout=60)
    out = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    for (temperature, top_k, seed), draws in zip(settings, out["draws"]):
        expected = sample_loop(out["logits"], temperature, top_k, mulberry32(seed, 300))
        assert draws == expected, (f"T = {temperature}, top-k {top_k}, seed {seed}: sample.js must draw what the plain loop "
                                   "draws from the same mulberry32 numbers")
        assert len(set(draws)) > 1


# ---------------------------------------------------------------- the worker


def run_worker(folder, steps, timeout=900):
    script = {"folder": str(folder), "steps": steps}
    (folder / "script.json").write_text(json.dumps(script), encoding="utf-8")
    node("tests/node/smollm-worker.mjs", str(folder / "script.json"), str(folder / "messages.json"), timeout=timeout)
    return json.loads((folder / "messages.json").read_text(encoding="utf-8"))


LOAD = {"send": {"type": "load", "manifest": "http://site.test/models/smollm.json"}}


@pytest.mark.slow  # the 97 MB model in Node
def test_the_worker_loads_writes_and_stops(folder):
    prompt, ids = SITE_PROMPTS[0], [504, 3575, 282, 4649, 314]  # transformers' ids of "The capital of France is"
    write = {"type": "write", "prompt": prompt, "maxNew": 6, "temperature": 0, "topK": 40, "seed": 1}
    messages = run_worker(folder, [LOAD, {"send": {**write, "id": 1}}, {"send": {**write, "id": 2, "temperature": 0.7}, "stopAfter": 2}])
    progress = [m for m in messages if m["type"] == "progress"]
    total = sum(len(p.read_bytes()) for p in (folder / "models").glob("*.bin"))
    assert progress[-1] == {"type": "progress", "loaded": total, "total": total}, "progress counts every file's bytes"
    assert all(a["loaded"] < b["loaded"] for a, b in zip(progress, progress[1:]))
    rest = [m for m in messages if m["type"] != "progress"]
    assert rest[0]["type"] == "ready" and rest[0]["config"]["n_kv_heads"] == 3 and rest[0]["cached"] is False
    first = [m for m in rest if m.get("id") == 1]
    assert [m["type"] for m in first] == ["prompt"] + ["token"] * 6 + ["done"] and first[-1]["reason"] == "length"
    assert first[0]["ids"] == ids and "".join(first[0]["pieces"]) == prompt and first[0]["cut"] is False
    assert len(first[0]["weights"]) == 30 * 9 * 5 * 5
    tokens = first[1:-1]
    assert "".join(m["piece"] for m in tokens).startswith(" Paris."), "greedy: ' Paris.' as transformers writes"
    assert [len(m["row"]) for m in tokens] == [30 * 9 * (5 + step + 1) for step in range(6)], (
        "each token's row covers every token so far, itself included")
    assert all(len(m["top"]) == 5 and m["top"][0]["piece"] == m["piece"] for m in tokens), "greedy writes the most probable"
    second = [m for m in rest if m.get("id") == 2]
    assert [m["type"] for m in second] == ["prompt", "token", "token", "done"] and second[-1]["reason"] == "stopped"


@pytest.mark.parametrize("damage, error", [
    ("flip", r"the download of smollm-weights-0\.bin is corrupted: its SHA-256 is not the one the site published"),
    ("short", r"the download of smollm-weights-0\.bin is corrupted: \d+ bytes, not \d+"),
    ("long", r"the download of smollm-weights-0\.bin is corrupted: more than \d+ bytes"),
    ("missing", r"smollm-weights-0\.bin: HTTP 404"),
])
def test_a_damaged_file_stops_the_load_with_an_error_naming_it(tiny, tmp_path, damage, error):
    site = tmp_path / "site"
    shutil.copytree(tiny[1] / "models", site / "models")
    shard = site / "models" / "smollm-weights-0.bin"
    content = bytearray(shard.read_bytes())
    if damage == "flip":
        content[len(content) // 2] ^= 1
    shard.write_bytes(bytes(content[:-16]) if damage == "short" else bytes(content) + b"!" if damage == "long" else bytes(content))
    if damage == "missing":
        shard.unlink()
    messages = run_worker(site, [LOAD], timeout=60)
    errors = [m for m in messages if m["type"] == "error"]
    assert len(errors) == 1 and errors[0]["during"] == "load" and re.fullmatch(error, errors[0]["message"]), (
        f"a {damage} file must stop the load with a named error, got {errors}")
    assert not any(m["type"] == "ready" for m in messages)


@pytest.mark.slow  # a 128-token prompt's forward pass
def test_the_worker_cuts_a_long_prompt_to_its_last_tokens_and_starts_an_empty_one_from_bos(folder):
    from transformers import AutoTokenizer  # noqa: PLC0415

    path = gguf_path()
    long = "One, two, three, four; " * 30
    ids = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)(long)["input_ids"]
    assert len(ids) > LIMITS["max_prompt_tokens"]
    write = {"type": "write", "maxNew": 1, "temperature": 0, "topK": 40, "seed": 1}
    messages = run_worker(folder, [LOAD, {"send": {**write, "id": 1, "prompt": long}}, {"send": {**write, "id": 2, "prompt": ""}}])
    prompts = {m["id"]: m for m in messages if m["type"] == "prompt"}
    assert prompts[1]["cut"] is True and prompts[1]["ids"] == ids[-LIMITS["max_prompt_tokens"]:], (
        "a prompt over max_prompt_tokens keeps its last ones, and says it was cut")
    assert len(prompts[1]["weights"]) == 30 * 9 * LIMITS["max_prompt_tokens"] ** 2
    bos = reader().fields["tokenizer.ggml.bos_token_id"].contents()
    assert prompts[2]["ids"] == [bos] and prompts[2]["cut"] is False, "an empty prompt is the BOS token alone"
    assert [m["reason"] for m in messages if m["type"] == "done"] == ["length", "length"]


# ---------------------------------------------------------------- the worker on the tiny model (make check)

TINY_PROMPT = "The heat in a café: ✓ 😀"  # byte-level tokens; é, ✓ and 😀 span two, three and four tokens


def test_the_worker_runs_a_tiny_model_as_the_numpy_reference_does(tiny):
    """The one end-to-end run of make check: a random 2-layer model written by ship() in the shipped format, loaded
    and run by the worker (real bpe.js, llama.js, the compiled kernels, sample.js), against
    models/smollm/reference.py (float64) and models/smollm/tokenizer.py on the same GGUF."""
    from models.smollm import reference  # noqa: PLC0415
    from models.smollm.tokenizer import load_tokenizer  # noqa: PLC0415

    path, site = tiny
    write = {"type": "write", "prompt": TINY_PROMPT, "maxNew": 8, "temperature": 0, "topK": 40, "seed": 1}
    messages = run_worker(site, [LOAD, {"send": {**write, "id": 1}}, {"send": {**write, "id": 2, "temperature": 0.8}, "stopAfter": 2}],
                          timeout=60)
    ready = next(m for m in messages if m["type"] == "ready")
    assert ready["config"]["n_layers"] == 2 and ready["config"]["n_kv_heads"] == 1
    first = [m for m in messages if m.get("id") == 1]
    prompt, tokens, done = first[0], first[1:-1], first[-1]
    ids = load_tokenizer(path).encode(TINY_PROMPT)
    assert prompt["type"] == "prompt" and prompt["ids"] == ids, "the worker's bpe.js must give models/smollm/tokenizer.py's ids"
    assert "".join(prompt["pieces"]) == TINY_PROMPT, "the prompt's pieces join to the prompt (split characters whole once)"
    weights = reference.load_weights(np.float64, path)
    logits, attention = reference.forward(weights, ids)
    n = len(ids)
    got = np.array(prompt["weights"]).reshape(2, 2, n, n)
    assert np.abs(got - attention).max() < 1e-5, "the worker's prompt attention must be the reference's (float32 vs float64)"
    expected = reference.greedy(weights, ids, 8)
    reason = "eos" if expected[-1] == weights.eos else "length"
    expected = expected[:-1] if reason == "eos" else expected
    assert [m["tokenId"] for m in tokens] == expected and done == {"type": "done", "id": 1, "reason": reason}, (
        "greedy: the worker writes the reference's tokens")
    p = np.exp(logits[-1] - logits[-1].max())
    p /= p.sum()
    top = np.argsort(-p, kind="stable")[:5]
    assert [e["piece"] for e in tokens[0]["top"]] == [load_tokenizer(path).decode([int(i)]) for i in top]
    assert np.allclose([e["p"] for e in tokens[0]["top"]], p[top], atol=1e-5), "the top five's probabilities are the reference's"
    cache = reference.Cache(weights.config)
    reference.forward(weights, ids, cache)
    _, row = reference.decode_step(weights, cache, tokens[0]["tokenId"])
    assert np.abs(np.array(tokens[0]["row"]) - row.ravel()).max() < 1e-5, "a new token's row is the reference's"
    second = [m["type"] for m in messages if m.get("id") == 2]
    assert second == ["prompt", "token", "token", "done"] and messages[-1]["reason"] == "stopped", "stop ends a write"


def test_a_second_write_at_once_ends_the_first_and_each_gets_its_done(tiny):
    """The worker's header: a new write ends the one under way ("done", "stopped"); each write gets its "done"."""
    write = {"type": "write", "prompt": "The heat", "maxNew": 6, "temperature": 0, "topK": 40, "seed": 1}
    messages = run_worker(tiny[1], [LOAD, {"send": [{**write, "id": 1}, {**write, "id": 2, "maxNew": 3}]}], timeout=30)
    done = {m["id"]: m["reason"] for m in messages if m["type"] == "done"}
    assert done == {1: "stopped", 2: "length"}, f"a write replaced while it waits must still end with done stopped, got {done}"
    assert not any(m["type"] == "error" for m in messages)


@pytest.mark.parametrize("tensor, what", [
    ("blk.0.ffn_norm.weight", "attention weights over the prompt"),  # NaN from layer 2's attention on
    ("output_norm.weight", "logits for the prompt's last token"),
])
def test_the_worker_names_numbers_that_are_not_finite(tmp_path, tensor, what):
    """A NaN in the weights (here the shipped file is as published: its SHA-256 matches) must stop the write with
    an error naming what is not finite, never reach the sampler or the heatmap."""
    path = write_tiny_gguf(tmp_path / "nan.gguf", nan=tensor)
    site = site_folder(ship(path), tmp_path / "site")
    write = {"type": "write", "id": 1, "prompt": "The heat", "maxNew": 3, "temperature": 0.7, "topK": 5, "seed": 1}
    messages = run_worker(site, [LOAD, {"send": write}], timeout=30)
    assert [m["type"] for m in messages if m["type"] != "progress"] == ["ready", "error"], (
        "non-finite numbers must stop the write before anything is posted")
    assert messages[-1] == {"type": "error", "during": "write", "id": 1,
                            "message": f"the model's {what} are not all finite numbers"}
