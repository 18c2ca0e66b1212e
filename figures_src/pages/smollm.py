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
For print and for readers without JavaScript, the widget's markup holds one run computed here: the first preset's
greedy continuation by the numpy reference (models/smollm/reference.py, float32), checked to begin with the token
the page names (" Paris", one token by the GGUF's own tokenizer).

The page's words are words/smollm.md; the widget's markup, with its own words, is docs/widgets/smollm/template.html
(and preset.html, one preset's button). This module fills both with data.
"""
import hashlib
import html
import json
import math
from dataclasses import asdict

import numpy as np

import attention
from models.smollm.model import CACHE_ITEMSIZE, DISTRIBUTION, MODEL_NAME, load_config, package_version, reader
from models.smollm.shipped import KERNELS_STEM, SHARD_BYTES, TOKENIZER_STEM, TOTAL_BYTES

from ..engine import Snippets, Template, Words
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.errors import BuildError
from ..engine.text import as_many, num
from ..engine.words import Filled, listed

FOLDER = "models"  # under the site root
MAX_PROMPT_TOKENS = 128  # the worker reads the prompt's last 128 tokens, and says when it cut
MAX_NEW = 64  # at most this many tokens written in one run
DEFAULT_NEW = 32  # the box's "Tokens to write" before the reader changes it
TOP_K = 40  # the top-k box's value before the reader changes it (used only above temperature 0)
MAX_CHARACTERS = 2000  # the box's maxlength; a prompt from a link (#p=) is cut there too
EXAMPLE_TOKENS = MAX_PROMPT_TOKENS + MAX_NEW  # the longest run: the page prints the cache's size there
PRESETS = ["preset/capital", "preset/robot", "preset/colours"]  # sections of WORDS: the prompts offered, the first in the box
WORDS = Words("words/smollm.md")
WIDGET = Template("docs/widgets/smollm/template.html", Words("words/widgets/smollm.md"))  # its markup, its words; Python fills in data
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
    """BuildError unless the shipped files fit GitHub Pages and the page's promise: each at most SHARD_BYTES,
    all together at most TOTAL_BYTES."""
    large = {stem: len(content) for stem, content in files.items() if len(content) > SHARD_BYTES}
    if large:
        raise BuildError(f"smollm: {large} over {SHARD_BYTES} bytes a file (GitHub Pages' limit)")
    total = sum(map(len, files.values()))
    if total > TOTAL_BYTES:
        raise BuildError(f"smollm: the download is {total} bytes, over the page's {TOTAL_BYTES}")


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
    if shipped.layout.get("config") != asdict(config):
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
        "sample": greedy_sample(),
    }


def greedy_sample():
    """The print edition's and no-JS reader's run: the first preset's greedy continuation (DEFAULT_NEW tokens at
    most, stopping at the end-of-text token, which is not shown), by the numpy reference on the GGUF's weights
    dequantized to float32 (about 20 s on a loaded 2-core machine: this item is rebuilt only when its inputs
    change). -> {"prompt": ids, "written": ids}"""
    from models.smollm.reference import greedy, load_weights  # noqa: PLC0415: only this page runs the reference
    from models.smollm.tokenizer import encode  # noqa: PLC0415

    weights = load_weights(np.float32)
    prompt = encode(WORDS.line(PRESETS[0]))
    written = greedy(weights, prompt, DEFAULT_NEW)
    if written and written[-1] == weights.eos:
        written = written[:-1]  # the worker does not send it either (smollm-worker.js: "eos", not sent)
    return {"prompt": prompt, "written": written}


def sample_values(data):
    """The sample run's values for the widget's template (the prompt, what the model wrote, its KV-cache line). BuildError unless its first written token is the one the page names (words' smollm-paris)."""
    from models.smollm.tokenizer import decode, encode  # noqa: PLC0415

    sample, config = data["sample"], data["config"]
    if sample["written"][:1] != encode(" Paris"):
        raise BuildError(f"smollm: the page says the model finishes {WORDS.line(PRESETS[0])!r} with ' Paris', "
                         f"its greedy sample writes {decode(sample['written'])!r}")
    n = len(sample["prompt"]) + len(sample["written"])
    # a line break as a character reference: a blank line would end the snippet's HTML block in Markdown
    text = lambda ids: Filled(html.escape(decode(ids)).replace("\n", "&#10;"))  # noqa: E731
    return {"sample_prompt": text(sample["prompt"]), "sample_written": text(sample["written"]),
            "sample_count": len(sample["written"]), "sample_tokens": n,
            "sample_bytes": grouped(n * config.cache_numbers(1) * CACHE_ITEMSIZE),
            "sample_full_bytes": grouped(n * config.cache_numbers(1, config.n_heads) * CACHE_ITEMSIZE)}


def paris():
    """The page's example of a token with its space: BuildError unless " Paris" is one token and "Paris" another
    (models.smollm.tokenizer, the GGUF's own BPE)."""
    from models.smollm.tokenizer import encode, piece  # noqa: PLC0415

    spaced, bare = encode(" Paris"), encode("Paris")
    if len(spaced) != 1 or len(bare) != 1 or spaced == bare:
        raise BuildError(f"smollm: the page says ' Paris' is one token and 'Paris' another: {spaced}, {bare}")
    return WORDS.fill("smollm-paris", paris=piece(spaced[0]).replace(" ", "␣"), word=piece(bare[0]))


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
        d_k=config.d_k, bytes_per_number=CACHE_ITEMSIZE, max_new=MAX_NEW, max_prompt_tokens=MAX_PROMPT_TOKENS,
        max_characters=MAX_CHARACTERS, prompt=WORDS.line(PRESETS[0]), presets=presets(), vocab=config.vocab, top_k=TOP_K,
        default_new=DEFAULT_NEW, kv_head_of=" ".join(str(attention.kv_head_of(head, config.n_heads, config.n_kv_heads))
                                                      for head in range(config.n_heads)),
        **sample_values(data))
    model = WORDS.fill(
        "smollm-model", layers=config.n_layers, d_model=config.d_model, heads=config.n_heads, kv_heads=config.n_kv_heads,
        group=config.group, d_k=config.d_k, rope_base=grouped(round(config.rope_base)), epsilon=power_of_ten(config.norm_epsilon),
        d_ff=grouped(config.d_ff), vocab=grouped(config.vocab), context=grouped(config.context))
    if config.rope_base != round(config.rope_base):
        raise BuildError(f"smollm: RoPE's base {config.rope_base} would print rounded")
    per_token = cache_numbers(config)
    cache = WORDS.fill(
        "smollm-cache", layers=config.n_layers, d_k=config.d_k, kv_heads=config.n_kv_heads, heads=config.n_heads,
        group=config.group, bytes_per_number=CACHE_ITEMSIZE,
        grouped_numbers=grouped(per_token["grouped"]), grouped_bytes=grouped(per_token["grouped"] * CACHE_ITEMSIZE),
        full_numbers=grouped(per_token["full"]), full_bytes=grouped(per_token["full"] * CACHE_ITEMSIZE),
        example_tokens=EXAMPLE_TOKENS,
        example_grouped=grouped(EXAMPLE_TOKENS * per_token["grouped"] * CACHE_ITEMSIZE),
        example_full=grouped(EXAMPLE_TOKENS * per_token["full"] * CACHE_ITEMSIZE))
    shards = [name for stem, name in data["names"].items() if "weights" in stem]
    shard_words = WORDS.line("shards/one") if len(shards) == 1 else WORDS.line("shards/more", count=len(shards))
    link = lambda name: f"[{name.split('/')[-1].split('.')[0]}]({name})"  # noqa: E731
    roles = {"tokenizer": TOKENIZER_STEM, "kernels": KERNELS_STEM}
    if set(data["names"]) != {*roles.values(), *(stem for stem in data["names"] if "weights" in stem)}:
        raise BuildError(f"smollm: the page names weights, tokenizer and kernels; the shipped files are {sorted(data['names'])}")
    honesty = WORDS.fill(
        "smollm-honesty", size=size, tensors=data["tensors"], shards=shard_words, count=len(data["names"]) + 1,
        weights=listed([link(name) for name in shards], "and"), manifest=link(data["manifest_name"]),
        **{role: link(data["names"][stem]) for role, stem in roles.items()}, **quantizations(),
        max_prompt_tokens=MAX_PROMPT_TOKENS, max_new=MAX_NEW, max_characters=grouped(MAX_CHARACTERS))
    return {"": widget, "model": model, "cache": cache, "honesty": honesty,
            "groups": WORDS.fill("smollm-groups", heads=config.n_heads, kv_heads=config.n_kv_heads, groups=groups(config),
                                 as_many=as_many(config.group)),
            "paris": paris()}


def public_files(data):
    return {**data["files"], data["manifest_name"]: data["manifest"]}


NOTEBOOK_STEPS = 5  # tokens the notebook writes: about a second of CPU (the page's run writes up to DEFAULT_NEW)


def notebook_cells():
    """The model's shape from the GGUF's metadata, the tokenizer on the first preset, and a few greedy steps of the
    numpy reference with its KV cache (float32, as the page's run)."""
    from models.smollm import reference  # noqa: PLC0415: only this page runs the reference

    return [
        markdown(WORDS.fill("nb-gguf")),
        code("""
            import dataclasses

            from models.smollm.model import CACHE_ITEMSIZE, gguf_path, load_config

            config = load_config()  # the llama.* keys of the GGUF file's metadata
            print(gguf_path().name)
            for name, value in dataclasses.asdict(config).items():
                # the file stores ε = 10⁻⁵ as a 32-bit float (9.99999975e-06): 6 digits print it as 1e-05
                print(name, "=", f"{value:g}" if isinstance(value, float) else value)
            print("d_k =", config.d_k, "; query heads per key/value head:", config.group)"""),
        markdown(WORDS.fill("nb-tokenizer")),
        code("""
            from models.smollm.tokenizer import decode, encode, piece
            from figures_src.pages.smollm import PRESETS, WORDS

            prompt = WORDS.line(PRESETS[0])  # the page's first prompt
            ids = encode(prompt)
            print(repr(prompt), "->", ids)
            print([piece(i).replace(" ", "␣") for i in ids])  # ␣: a piece's leading space, as the page shows it"""),
        markdown(WORDS.fill("nb-forward")),
        code("""
            from attention import attend, causal_mask, merge_heads, rope, share_kv_heads, split_heads
            from models.smollm.reference import Cache, check_ids, load_weights, rms_norm, silu  # what forward calls

            weights = load_weights(np.float32)  # every tensor of the file, dequantized"""),
        source(reference.forward, reference.decode_step),
        markdown(WORDS.fill("nb-greedy", steps=NOTEBOOK_STEPS, page_steps=DEFAULT_NEW, max_new=MAX_NEW)),
        code(f"""
            STEPS = {NOTEBOOK_STEPS}
            cache = Cache(config, np.float32)
            logits, prompt_weights = forward(weights, ids, cache)  # the prompt in one pass
            token = int(np.argmax(logits[-1]))
            written = [token]
            lines = [f"prompt: the cache holds {{len(cache)}} positions"]
            for _ in range(STEPS - 1):
                row, _ = decode_step(weights, cache, token)  # one token in: one key and value row per layer and KV head
                token = int(np.argmax(row))
                written.append(token)
                lines.append(f"read “{{piece(written[-2]).replace(' ', '␣')}}”: the cache holds {{len(cache)}} positions")
            print(*lines, repr(prompt + decode(written)), sep="\\n")
            if prompt == WORDS.line(PRESETS[0]):  # the page's prompt: its first token is the one the page names
                assert written[:1] == encode(" Paris"), ("the page's prompt writes “␣Paris” first, as "
                                                       "the page says")"""),
        markdown(WORDS.fill("nb-cache")),
        code("""
            n = len(cache)
            assert cache.numbers == config.cache_numbers(n)
            print(f"{n} positions: {cache.numbers:,} numbers, {cache.numbers * CACHE_ITEMSIZE:,} bytes in float32")
            print(f"with a key and value head per query head: {config.cache_numbers(n, config.n_heads) * CACHE_ITEMSIZE:,} bytes")"""),
        markdown(WORDS.fill("nb-heatmap")),
        code("""
            from figures_src.engine.text import head_label

            labels = [piece(i).replace(" ", "␣") for i in ids]
            layer, head = config.n_layers - 1, 0
            fig, ax = plt.subplots(figsize=(4.4, 3.8))
            heatmap(ax, prompt_weights[layer, head], labels, labels, quantity="weights",
                    title=head_label(layer, head))
            plt.show()"""),
    ]


ITEMS = [Snippets("smollm", data=model_data, snippets=page_snippets, public=public_files),
         notebook("smollm.md", notebook_cells, packages=(DISTRIBUTION,))]
