"""A real model writes (docs/smollm.md): SmolLM2-135M, run in the reader's browser on the reader's prompt.

At build time this module reads the model's shape from the GGUF file's metadata (models/smollm/model.py), and
publishes the files models/smollm/shipped.py writes from it (`ship()`: the weights in their own quantization, in
shards, the tokenizer, the kernels) under content-hashed names in the site's models/ folder, with a manifest:

    {"model", "source",
     "files": {stem: path from the site root}, "integrity": {stem: {"bytes", "sha256"}},
     "limits": {max_prompt_tokens, max_new, max_characters},
     "layout": ship()'s layout: "config" (models.smollm.model.Config's fields), "tokenizer", "shards", "tensors"
               (models/smollm/shipped.py's docstring)}

The worker (docs/widgets/smollm/smollm-worker.js) checks every file against its byte count and SHA-256 before it
uses any. The page's numbers (the model's shape, the cache's bytes per token, the download's size) are computed
here; the widget's live numbers (the cache after n tokens, the probabilities) by the browser from the same config.

The page's words are words/smollm.md; the widget's markup, with its own words, is docs/widgets/smollm/template.html
(and preset.html, one preset's button). This module fills both with data.
"""
import hashlib
import json
import math
from dataclasses import asdict

import numpy as np

import attention
from models.smollm.model import DISTRIBUTION, MODEL_NAME, load_config, package_version, reader

from ..engine import Snippets, Template, Words
from ..engine.errors import BuildError
from ..engine.text import num
from ..engine.words import Filled, listed

FOLDER = "models"  # under the site root
MAX_PROMPT_TOKENS = 128  # the worker reads the prompt's last 128 tokens, and says when it cut
MAX_NEW = 64  # at most this many tokens written in one run
DEFAULT_NEW = 32  # the box's "Tokens to write" before the reader changes it
TOP_K = 40  # the top-k box's value before the reader changes it (used only above temperature 0)
MAX_CHARACTERS = 2000  # the box's maxlength; a prompt from a link (#p=) is cut there too
BYTES_PER_NUMBER = 4  # the cache in float32, as the worker keeps it
EXAMPLE_TOKENS = MAX_PROMPT_TOKENS + MAX_NEW  # the longest run: the page prints the cache's size there
PRESETS = ["preset/capital", "preset/robot", "preset/colours"]  # sections of WORDS: the prompts offered, the first in the box
MAX_FILE_BYTES = 50_000_000  # GitHub Pages warns over 50 MB and refuses 100 MB
MAX_DOWNLOAD_BYTES = 100_000_000
WORDS = Words("words/smollm.md")
WIDGET = Template("docs/widgets/smollm/template.html")  # the widget's markup and words; Python fills in data
PRESET = Template("docs/widgets/smollm/preset.html")  # one preset prompt's button
SUFFIX = {"kernels": "wasm", "tokenizer": "json"}  # by the stem's last word; every other file is published as .bin


def content_name(stem, content):
    """"models/<stem>.<first 12 hex digits of sha256>.<suffix>": a new file name whenever the content changes."""
    suffix = SUFFIX.get(stem.rsplit("-", 1)[-1], "bin")
    return f"{FOLDER}/{stem}.{hashlib.sha256(content).hexdigest()[:12]}.{suffix}"


def integrity(content):
    """What the worker checks a downloaded file against before using it: its byte count and its full SHA-256."""
    return {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}


def check_files(files):
    """BuildError unless the shipped files fit GitHub Pages and the page's promise: each at most MAX_FILE_BYTES,
    all together at most MAX_DOWNLOAD_BYTES."""
    large = {stem: len(content) for stem, content in files.items() if len(content) > MAX_FILE_BYTES}
    if large:
        raise BuildError(f"smollm: {large} over {MAX_FILE_BYTES} bytes a file (GitHub Pages' limit)")
    total = sum(map(len, files.values()))
    if total > MAX_DOWNLOAD_BYTES:
        raise BuildError(f"smollm: the download is {total} bytes, over the page's {MAX_DOWNLOAD_BYTES}")


def model_data():
    from models.smollm.shipped import ship  # noqa: PLC0415: the shipped format is written only when this page builds

    config = load_config()
    shipped = ship()
    check_files(shipped.files)
    names = {stem: content_name(stem, content) for stem, content in shipped.files.items()}
    manifest = {
        "model": MODEL_NAME,
        "source": f"{DISTRIBUTION} {package_version()}",
        "files": names,
        "integrity": {stem: integrity(content) for stem, content in shipped.files.items()},
        "limits": {"max_prompt_tokens": MAX_PROMPT_TOKENS, "max_new": MAX_NEW, "max_characters": MAX_CHARACTERS},
    }
    manifest["layout"] = shipped.layout
    if shipped.layout.get("config", asdict(config)) != asdict(config):
        raise BuildError("smollm: the shipped layout's config is not the GGUF's (models.smollm.model.load_config)")
    manifest_bytes = (json.dumps(manifest, indent=1) + "\n").encode()
    return {
        "files": {names[stem]: content for stem, content in shipped.files.items()},
        "names": names,
        "manifest": manifest_bytes,
        "manifest_name": f"{FOLDER}/smollm.{hashlib.sha256(manifest_bytes).hexdigest()[:12]}.json",
        "download_bytes": sum(map(len, shipped.files.values())),  # as the page's progress bar counts
        "config": config,
        "tensors": len(reader().tensors),
    }


def megabytes(n_bytes):
    return WORDS.line("megabytes", megabytes=num(n_bytes / 1e6, 1))


def grouped(n):
    """A whole number as the page prints it: 46,080."""
    return f"{n:,}"


def presets():
    return Filled("".join(PRESET.html(prompt=WORDS.line(preset)).strip() for preset in PRESETS))


def cache_numbers(config):
    """The KV cache a token adds, in numbers and bytes, with the model's key/value heads and as if each query head
    had its own; and after EXAMPLE_TOKENS tokens. Each product checked against Config.cache_numbers."""
    per_token = {"grouped": config.n_layers * config.n_kv_heads * 2 * config.d_k,
                 "full": config.n_layers * config.n_heads * 2 * config.d_k}
    if (per_token["grouped"], per_token["full"]) != (config.cache_numbers(1), config.cache_numbers(1, config.n_heads)):
        raise BuildError("smollm: the page's cache arithmetic disagrees with models.smollm.model.Config.cache_numbers")
    if per_token["full"] != config.group * per_token["grouped"]:
        raise BuildError(f"smollm: the page says the full cache is {config.group} times the grouped one")
    return per_token


def groups(config):
    """Which query heads read which key/value head (attention.kv_head_of), as the page says it, counted from 1.
    BuildError if a key/value head's query heads are not one run of consecutive heads (the words say "a to b")."""
    readers = {}
    for head in range(config.n_heads):
        readers.setdefault(attention.kv_head_of(head, config.n_heads, config.n_kv_heads), []).append(head)
    phrases = []
    for kv_head, heads in sorted(readers.items()):
        if heads != list(range(heads[0], heads[-1] + 1)):
            raise BuildError(f"smollm: key/value head {kv_head} is read by query heads {heads}, not a run")
        phrases.append(WORDS.line("smollm-groups/group", first=heads[0] + 1, last=heads[-1] + 1, kv_head=kv_head + 1))
    return listed(phrases, "and")


def power_of_ten(value):
    """RMSNorm's ε as the page prints it, $10^{-5}$; BuildError if it is not a power of ten (the GGUF stores it as
    a float32: 10⁻⁵ is 9.99999975e-06 there)."""
    exponent = round(math.log10(value))
    if np.float32(10.0 ** exponent) != np.float32(value):
        raise BuildError(f"smollm: the page prints ε = 10^{exponent}, but it is {value!r}")
    return f"$10^{{{exponent}}}$"


def quantizations():
    """The bits per stored weight of the GGUF's two quantizations and their block length, as the page says them:
    BuildError unless the file holds exactly Q4_1 (most matrices), Q8_0 (the embedding) and F32 (the norms)."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType  # noqa: PLC0415: only this page reads the GGUF's types

    kinds = {GGMLQuantizationType(tensor.tensor_type).name for tensor in reader().tensors}
    if kinds != {"Q4_1", "Q8_0", "F32"}:
        raise BuildError(f"smollm: the page describes Q4_1, Q8_0 and F32 tensors, the GGUF holds {sorted(kinds)}")
    blocks = {GGML_QUANT_SIZES[GGMLQuantizationType[kind]][0] for kind in ("Q4_1", "Q8_0")}
    if len(blocks) != 1:
        raise BuildError(f"smollm: the page says one block length, the quantizations have {sorted(blocks)}")
    bits = lambda kind: int(kind[1:].split("_")[0])  # noqa: E731: a format's name says its bits (Q4_1: 4)
    return {"q4": bits("Q4_1"), "q8": bits("Q8_0"), "block": blocks.pop()}


def page_snippets(data):
    config = data["config"]
    size = megabytes(data["download_bytes"])
    widget = WIDGET.html(
        model=data["manifest_name"], size=size, layers=config.n_layers, heads=config.n_heads, kv_heads=config.n_kv_heads,
        d_k=config.d_k, bytes_per_number=BYTES_PER_NUMBER, max_new=MAX_NEW, max_prompt_tokens=MAX_PROMPT_TOKENS,
        max_characters=MAX_CHARACTERS, prompt=WORDS.line(PRESETS[0]), presets=presets(), vocab=config.vocab, top_k=TOP_K,
        default_new=DEFAULT_NEW)
    model = WORDS.fill(
        "smollm-model", layers=config.n_layers, d_model=config.d_model, heads=config.n_heads, kv_heads=config.n_kv_heads,
        group=config.group, d_k=config.d_k, rope_base=grouped(round(config.rope_base)), epsilon=power_of_ten(config.norm_epsilon),
        d_ff=grouped(config.d_ff), vocab=grouped(config.vocab), context=grouped(config.context))
    if config.rope_base != round(config.rope_base):
        raise BuildError(f"smollm: RoPE's base {config.rope_base} would print rounded")
    per_token = cache_numbers(config)
    cache = WORDS.fill(
        "smollm-cache", layers=config.n_layers, d_k=config.d_k, kv_heads=config.n_kv_heads, heads=config.n_heads,
        group=config.group, bytes_per_number=BYTES_PER_NUMBER,
        grouped_numbers=grouped(per_token["grouped"]), grouped_bytes=grouped(per_token["grouped"] * BYTES_PER_NUMBER),
        full_numbers=grouped(per_token["full"]), full_bytes=grouped(per_token["full"] * BYTES_PER_NUMBER),
        example_tokens=EXAMPLE_TOKENS,
        example_grouped=grouped(EXAMPLE_TOKENS * per_token["grouped"] * BYTES_PER_NUMBER),
        example_full=grouped(EXAMPLE_TOKENS * per_token["full"] * BYTES_PER_NUMBER))
    shards = [name for stem, name in data["names"].items() if "weights" in stem]
    shard_words = WORDS.line("shards/one") if len(shards) == 1 else WORDS.line("shards/more", count=len(shards))
    links = {**data["names"], "manifest": data["manifest_name"]}
    files = listed([f"[{name.split('/')[-1].split('.')[0]}]({name})" for name in links.values()], "and")
    honesty = WORDS.fill(
        "smollm-honesty", size=size, tensors=data["tensors"], shards=shard_words, files=files, **quantizations(),
        max_prompt_tokens=MAX_PROMPT_TOKENS, max_new=MAX_NEW, max_characters=grouped(MAX_CHARACTERS))
    facts = {"heads": config.n_heads, "kv_heads": config.n_kv_heads, "group": config.group}
    return {"": widget, "model": model, "cache": cache, "honesty": honesty,
            "groups": WORDS.fill("smollm-groups", heads=config.n_heads, kv_heads=config.n_kv_heads, groups=groups(config)),
            "recap": WORDS.fill("smollm-recap", **facts, layers=config.n_layers)}


def public_files(data):
    return {**data["files"], data["manifest_name"]: data["manifest"]}


ITEMS = [Snippets("smollm", data=model_data, snippets=page_snippets, public=public_files)]
