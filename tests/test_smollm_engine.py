"""SmolLM2-135M as the browser runs it: the shipped files (models/smollm/shipped.py), the model in JS and
WebAssembly (docs/widgets/smollm/llama.js with the kernels of docs/widgets/your-sentence/kernels.wat), the sampler
(sample.js) and the worker (smollm-worker.js), run by Node on files written here from the pinned GGUF.

The outside reference is transformers, loaded from the same GGUF in float32 (it dequantizes every tensor as gguf
does, then runs its own Llama). The JS model computes in float32 on the quantized weights as they are, in another
order (a block's scale applied after its codes' dot product, float64 for RMSNorm and RoPE's angles): its logits
differ from transformers' by float32's rounding grown over 30 layers, measured at about 5e-5 (|logits| up to about
25); LOGIT_TOLERANCE allows 20 times that (1e-3, still a thousandth of the gap between the top two logits on the
prompts here). The greedy tokens must be the same: on every prompt the page offers, and on at least 95% of
HELD_OUT over 32 steps (a near-tie between the two largest logits may flip one).
"""
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from models.smollm.model import gguf_path, reader
from models.smollm.shipped import ALIGN, SHARD_BYTES, TOTAL_BYTES, read_tensor, ship

ROOT = Path(__file__).resolve().parents[1]
LOGIT_TOLERANCE = 1e-3
STEPS = 32
LIMITS = {"max_prompt_tokens": 128, "max_new": 64, "max_characters": 2000}  # figures_src/pages/smollm.py's
SITE_PROMPTS = ["The capital of France is", "Once upon a time, a small robot", "The three primary colours are"]
HELD_OUT = [
    "The best way to learn a new language is",
    "In 1969, the first people to walk on the Moon",
    "def fibonacci(n):",
    "My favourite recipe for a rainy day is",
    "The mitochondria is the part of the cell that",
    "Water boils at a temperature of",
    "Here are three tips for writing clear emails:",
    "The train left the station at noon, and",
    "Photosynthesis turns sunlight into",
    "A good night's sleep helps you",
    "The largest planet in our solar system is",
    "Once there was a cat who lived in a library.",
    "To make a paper airplane, first",
    "The history of the printing press begins",
    "Why is the sky blue? The reason is",
    "import numpy as np\nx = np.arange(10)\n",
    "Dear team, thank you all for",
    "The Eiffel Tower was built in",
    "Machine learning models learn from",
    "She opened the old wooden box and found",
    "The three states of matter are",
    "If you want to grow tomatoes, you should",
    "The quick brown fox",
    "Mount Everest is the highest mountain",
]


def node(*arguments):
    executable = shutil.which("node")
    assert executable, "Node.js is needed (make test installs it)"
    result = subprocess.run([executable, "--import", "./tests/node/bpe-stub.mjs", *arguments], cwd=ROOT,
                            capture_output=True, timeout=900)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-3000:]


@pytest.fixture(scope="module")
def shipped():
    return ship()


@pytest.fixture(scope="module")
def folder(shipped, tmp_path_factory):
    """The shipped files as the site publishes them (models/<stem>.bin, a manifest as figures_src/pages/smollm.py
    writes it), and as tests/node/llama.mjs reads them (one file per stem, layout.json, kernels.wasm)."""
    root = tmp_path_factory.mktemp("smollm")
    (root / "models").mkdir()
    names = {stem: f"models/{stem}.bin" for stem in shipped.files}
    for stem, content in shipped.files.items():
        (root / names[stem]).write_bytes(content)
        (root / stem).symlink_to(root / names[stem])
    (root / "layout.json").write_text(json.dumps(shipped.layout), encoding="utf-8")
    (root / "kernels.wasm").symlink_to(root / names["smollm-kernels"])
    manifest = {"files": names, "limits": LIMITS, "layout": shipped.layout,
                "integrity": {stem: {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}
                              for stem, content in shipped.files.items()}}
    (root / "models" / "smollm.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


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


def test_the_shipped_files_read_back_as_gguf_dequantizes_the_gguf_bit_for_bit(shipped):
    """The embedding (Q8_0), the first layer's tensors (Q4_1 and F32) and the last norm; every tensor: below."""
    tensors = reader().tensors
    assert len(tensors) == len(shipped.layout["tensors"]) == 272
    read_back_as_gguf_dequantizes(shipped, [t for t in tensors if t.name.startswith(("token_embd", "blk.0.", "output_norm"))])


@pytest.mark.slow  # 134.5 million values, twice: about 10 s
def test_every_shipped_tensor_reads_back_as_gguf_dequantizes_it_bit_for_bit(shipped):
    read_back_as_gguf_dequantizes(shipped, reader().tensors)


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


# ---------------------------------------------------------------- the model in JS


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


@pytest.mark.slow  # 24 prompts × 32 tokens in transformers and in Node: about a minute
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


# ---------------------------------------------------------------- the worker


def run_worker(folder, steps, stub_ids=None):
    script = {"folder": str(folder), "stubIds": stub_ids or {}, "steps": steps}
    (folder / "script.json").write_text(json.dumps(script), encoding="utf-8")
    node("tests/node/smollm-worker.mjs", str(folder / "script.json"), str(folder / "messages.json"))
    return json.loads((folder / "messages.json").read_text(encoding="utf-8"))


LOAD = {"send": {"type": "load", "manifest": "http://site.test/models/smollm.json"}}


def test_the_worker_loads_writes_and_stops(folder):
    prompt, ids = "The capital of France is", [504, 3575, 282, 4649, 314]
    write = {"type": "write", "prompt": prompt, "maxNew": 6, "temperature": 0, "topK": 40, "seed": 1}
    messages = run_worker(folder, [LOAD, {"send": {**write, "id": 1}}, {"send": {**write, "id": 2, "temperature": 0.7}, "stopAfter": 2}],
                          {prompt: ids})
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


@pytest.mark.parametrize("damage, error", [  # one fast, the others with make test (a load each: about a second)
    ("flip", r"the download of smollm-weights-1\.bin is corrupted: its SHA-256 is not the one the site published"),
    pytest.param("short", r"the download of smollm-weights-1\.bin is corrupted: \d+ bytes, not \d+", marks=pytest.mark.slow),
    pytest.param("long", r"the download of smollm-weights-1\.bin is corrupted: more than \d+ bytes", marks=pytest.mark.slow),
    pytest.param("missing", r"smollm-weights-1\.bin: HTTP 404", marks=pytest.mark.slow),
])
def test_a_damaged_file_stops_the_load_with_an_error_naming_it(folder, tmp_path, damage, error):
    import re  # noqa: PLC0415

    site = tmp_path / "site"
    shutil.copytree(folder / "models", site / "models")
    shard = site / "models" / "smollm-weights-1.bin"
    content = bytearray(shard.read_bytes())
    if damage == "flip":
        content[len(content) // 2] ^= 1
    shard.write_bytes(bytes(content[:-16]) if damage == "short" else bytes(content) + b"!" if damage == "long" else bytes(content))
    if damage == "missing":
        shard.unlink()
    messages = run_worker(site, [LOAD])
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
    messages = run_worker(folder, [LOAD, {"send": {**write, "id": 1, "prompt": long}}, {"send": {**write, "id": 2, "prompt": ""}}],
                          {long: ids, "": []})
    prompts = {m["id"]: m for m in messages if m["type"] == "prompt"}
    assert prompts[1]["cut"] is True and prompts[1]["ids"] == ids[-LIMITS["max_prompt_tokens"]:], (
        "a prompt over max_prompt_tokens keeps its last ones, and says it was cut")
    assert len(prompts[1]["weights"]) == 30 * 9 * LIMITS["max_prompt_tokens"] ** 2
    bos = reader().fields["tokenizer.ggml.bos_token_id"].contents()
    assert prompts[2]["ids"] == [bos] and prompts[2]["cut"] is False, "an empty prompt is the BOS token alone"
    assert [m["reason"] for m in messages if m["type"] == "done"] == ["length", "length"]
