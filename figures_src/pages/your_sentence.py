"""Your sentence (docs/your-sentence.md): the real model, run in the reader's browser on the reader's sentence.

At build time this module reads all-MiniLM-L6-v2 from the pinned model package with numpy alone
(realheads/shipped.py), writes it as int8 with a scale per group of 32 values under content-hashed names, with its
vocabulary and a small JSON that describes both (with each file's byte count and SHA-256, which the page checks
before it uses a download), and measures what the rounding costs: the numpy encoder on
the shipped (dequantized) weights against the float32 model, on the site's three sentences. The page
prints that number; tests/test_your_sentence.py checks it on more sentences.
"""
import hashlib
import html
import json

import numpy as np

from realheads.data import SENTENCES
from realheads.encoder import EncoderParams, encode
from realheads.model import DISTRIBUTION, MODEL_NAME, load_config, model_folder, package_version
from realheads.shipped import dequantize, quantize, read_safetensors

from ..engine import Snippets
from ..engine.text import num
from .real_heads.committed import extraction

PAGE = "your-sentence.md"
INPUTS = ["realheads/shipped.py", "realheads/encoder.py", "realheads/model.py"]
FOLDER = "models"  # under the site root
MAX_TOKENS = 64  # [CLS] + at most 62 pieces + [SEP]: the browser cuts longer inputs there
MAX_CHARACTERS = 2000  # the box's maxlength; a sentence from the link (#s=) is cut there too
MAX_INPUT_CHARS_PER_WORD = 100  # tokenizer.json's WordPiece setting: a longer word is one [UNK]
SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PRESETS = {sentence.id: sentence.text for sentence in SENTENCES}  # the real-heads page's three sentences


def content_name(stem, suffix, content):
    """"<stem>.<first 12 hex digits of sha256>.<suffix>": a new file name whenever the content changes."""
    return f"{FOLDER}/{stem}.{hashlib.sha256(content).hexdigest()[:12]}.{suffix}"


def integrity(content):
    """What the page checks a downloaded file against before using it: its byte count and its full SHA-256."""
    return {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}


def shipped_state(state):
    """The tensors the encoder reads: not the int64 position_ids buffer, nor the pooler (which only
    sentence-classification heads use)."""
    return {name: value for name, value in state.items() if value.dtype != np.int64 and not name.startswith("pooler.")}


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
        "integrity": {"weights": integrity(blob), "vocabulary": integrity(vocabulary)},
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
    presets = "".join(f'<button type="button" data-preset="{html.escape(text, quote=True)}">{html.escape(sentence_id)}</button>'
                      for sentence_id, text in PRESETS.items())
    widget = f"""<div class="aih-yours" id="aih-yours" data-model="{html.escape(data['manifest_name'])}" data-size="{size}">
<form class="aih-yours__form" data-slot="form">
<label for="aih-yours-text">Your sentence</label>
<input type="text" id="aih-yours-text" name="s" maxlength="{MAX_CHARACTERS}" autocomplete="off" spellcheck="false" value="{html.escape(PRESETS['coreference'], quote=True)}">
<button type="submit" class="aih-yours__run" data-slot="run" disabled>Run the model ({size} download, once)</button>
<p class="aih-yours__presets">Or start from the real-heads page's sentences: {presets}</p>
</form>
<progress data-slot="progress" max="1" value="0" hidden aria-label="Download of the model"></progress>
<p class="aih-yours__status" data-slot="status" role="status">This part of the page needs JavaScript, and a download of {size} that starts only when you ask for it; everything else on the page works without it.</p>
<div data-slot="results" hidden>
<p>Tokens: <code data-slot="tokens"></code></p>
<p class="aih-yours__cut" data-slot="cut" hidden></p>
<canvas data-slot="grid" class="aih-yours__grid" role="img" tabindex="0" aria-label="Every head's weights, 6 layers down and 12 heads across."></canvas>
<div class="aih-yours__scores" tabindex="0" role="region" aria-label="Head scores for your sentence">
<table>
<caption>The heads that stand out for this sentence: the highest score of each kind among the 72 heads, and the median head's.</caption>
<thead><tr><th scope="col">Pattern</th><th scope="col">Strongest head</th><th scope="col">Its score</th><th scope="col">Median head</th></tr></thead>
<tbody data-slot="scores"></tbody>
</table>
</div>
<p data-slot="no-pronoun" hidden>There is no pronoun link to score: the sentence has no pronoun (it, he, she, they, him, her, them, its, his, their) with a content word at least two tokens before it.</p>
<p>The scores are the site's real-heads scores for this one sentence: the previous-token and next-token scores average, over the rows, the weight on the neighbouring token; the sink score averages the weight on [CLS] plus [SEP]; the pronoun link is the largest weight from the first pronoun that has an earlier content word (not the word just before it) to such a word.</p>
<p data-slot="open" role="status">Choose a head in the grid (click it, or focus the grid and press Enter or the arrow keys) to open it below.</p>
<figure id="your-sentence-viewer" class="aih-figure aih-heatmap" data-quantity="weights" data-head="0" hidden>
<div class="aih-figure__graphic"></div>
<figcaption>One head of your sentence, from the model running in your browser: queries down, keys across. Hover over a cell to see how its weight is computed; the slider rescales the scores.</figcaption>
</figure>
</div>
</div>"""
    honesty = (
        "Everything happens in your browser: a background worker cuts your text into the model's tokens with the "
        "same WordPiece rules as the model's own tokenizer, then runs the six layers with the site's encoder "
        "translated line by line from numpy into JavaScript. Nothing you type leaves the page. Inputs are cut at "
        f"{MAX_TOKENS} tokens ([CLS], {MAX_TOKENS - 2} pieces of your text, [SEP]); the page says when it cuts.\n\n"
        f"The download is {size}: the model's weights as 8-bit integers with a "
        f"scale for every 32 numbers ([weights]({data['files']['weights']})), its vocabulary "
        f"([vocab.txt]({data['files']['vocabulary']})), and a small file that describes both, with the length and "
        "SHA-256 of each: the page checks both files against them before it uses either, and says so if a "
        "download is corrupted. "
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
