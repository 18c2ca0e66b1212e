"""Your sentence (docs/your-sentence.md): the real model, run in the reader's browser on the reader's sentence.

At build time this module reads all-MiniLM-L6-v2 from the pinned model package with numpy alone
(realheads/shipped.py), writes it as int8 with a scale per group of 32 values under content-hashed names, with its
vocabulary and a small JSON that describes both, and measures what the rounding costs: the numpy encoder on
the shipped (dequantized) weights against the float32 model, on the site's three sentences. The page
prints that number; tests/test_your_sentence.py checks it on more sentences.
"""
import hashlib
import html
import json

import numpy as np

from realheads.encoder import EncoderParams, encode
from realheads.model import DISTRIBUTION, MODEL_NAME, load_config, model_folder, package_version
from realheads.shipped import dequantize, quantize, read_safetensors

from ..engine import Snippets
from ..engine.text import num
from .real_heads.committed import extraction

PAGE = "your-sentence.md"
INPUTS = ["realheads/shipped.py", "realheads/encoder.py", "realheads/model.py"]
FOLDER = "your-sentence"  # under the site root
MAX_TOKENS = 64  # [CLS] + at most 62 pieces + [SEP]: the browser cuts longer inputs there
MAX_INPUT_CHARS_PER_WORD = 100  # tokenizer.json's WordPiece setting: a longer word is one [UNK]
SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def content_name(stem, suffix, content):
    """"<stem>.<first 12 hex digits of sha256>.<suffix>": a new file name whenever the content changes."""
    return f"{FOLDER}/{stem}.{hashlib.sha256(content).hexdigest()[:12]}.{suffix}"


def shipped_state(state):
    """The tensors the encoder reads (the int64 position_ids buffer is not a weight)."""
    return {name: value for name, value in state.items() if value.dtype != np.int64}


def measure_accuracy(original, shipped, config):
    """The numpy encoder on each site sentence, float32 weights vs shipped: max |Δ| of the attention weights."""
    _, by_id = extraction()
    differences = {}
    for sentence_id, heads in by_id.items():
        reference = encode(original, config, heads.ids).weights  # (L, H, n, n)
        rounded = encode(shipped, config, heads.ids).weights
        differences[sentence_id] = float(np.abs(reference - rounded).max())
    return differences


def model_data():
    folder = model_folder()
    config = load_config(folder)
    state = shipped_state(read_safetensors(folder / "model.safetensors"))
    layout, blob = quantize(state)
    original = EncoderParams.from_state_dict(state, config)
    shipped = EncoderParams.from_state_dict(dequantize(layout, blob), config)
    vocabulary = (folder / "vocab.txt").read_bytes()
    files = {"weights": content_name("minilm-l6-int8", "bin", blob), "vocabulary": content_name("vocab", "txt", vocabulary)}
    manifest = {
        "model": MODEL_NAME,
        "source": f"{DISTRIBUTION} {package_version()}",
        "files": files,
        "config": {"n_layers": config.n_layers, "n_heads": config.n_heads, "d_model": config.d_model, "d_ff": config.d_ff,
                   "layer_norm_eps": config.layer_norm_eps, "vocab_size": config.vocab_size},
        "tokenizer": {"lowercase": True, "strip_accents": True, "unknown": "[UNK]", "prefix": "##",
                      "max_input_chars_per_word": MAX_INPUT_CHARS_PER_WORD, "special_tokens": SPECIAL_TOKENS,
                      "max_tokens": MAX_TOKENS},
        "tensors": layout,
    }
    manifest_bytes = (json.dumps(manifest, indent=1) + "\n").encode()
    manifest_name = content_name("model", "json", manifest_bytes)
    return {
        "blob": blob, "vocabulary": vocabulary, "files": files, "manifest": manifest_bytes, "manifest_name": manifest_name,
        "download_bytes": len(blob) + len(vocabulary) + len(manifest_bytes),
        "accuracy": measure_accuracy(original, shipped, config),
    }


def megabytes(n_bytes):
    return f"{num(n_bytes / 1e6, 1)} MB"


def page_snippets(data):
    size = megabytes(data["download_bytes"])
    accuracy = data["accuracy"]
    worst = max(accuracy.values())
    widget = f"""<div class="aih-yours" id="aih-yours" data-model="{html.escape(data['manifest_name'])}" data-size="{size}">
<form class="aih-yours__form" data-slot="form">
<label for="aih-yours-text">Your sentence</label>
<input type="text" id="aih-yours-text" name="s" maxlength="2000" autocomplete="off" spellcheck="false" value="The animal didn't cross the street because it was too tired.">
<button type="submit" class="md-button md-button--primary" data-slot="run" disabled>Download the model ({size}) and run</button>
</form>
<p class="aih-yours__status" data-slot="status" role="status">This part of the page needs JavaScript and a download of {size}; everything else on the page works without it.</p>
</div>"""
    honesty = (
        f"The download is {size}: the model's weights as 8-bit integers with a "
        f"scale for every 32 numbers ([weights]({data['files']['weights']})), its vocabulary "
        f"([vocab.txt]({data['files']['vocabulary']})), and a small file that describes both. "
        "Rounding the weights to 8 bits changes the attention a little: on the three sentences of the real-heads "
        f"page, the largest difference between a weight computed with the shipped numbers and one computed with "
        f"the original 32-bit numbers (both by the site's numpy encoder) is {num(worst, 4)}, on the "
        f"{max(accuracy, key=accuracy.get)} sentence. The build measures it."
    )
    return {"": widget, "honesty": honesty}


def public_files(data):
    return {data["files"]["weights"]: data["blob"], data["files"]["vocabulary"]: data["vocabulary"],
            data["manifest_name"]: data["manifest"]}


ITEMS = [Snippets("your-sentence", data=model_data, snippets=page_snippets, public=public_files)]
