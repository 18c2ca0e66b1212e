"""Your sentence (docs/your-sentence.md): the real model, run in the reader's browser on the reader's sentence.

At build time this module reads all-MiniLM-L6-v2 from the pinned model package with numpy alone
(realheads/shipped.py), writes it in the shipped format (whole steps of 1/200 of a row's standard deviation,
compressed) under content-hashed names, with its vocabulary and a small JSON that describes both (with each
file's byte count and SHA-256, which the page checks before it uses a download), and measures what the
rounding costs: the numpy encoder on the shipped (dequantized) weights against the float32 model, on the site's
three sentences. The page states that bound; tests/test_your_sentence.py checks it on more sentences.

The heads the page names for a sentence (the strongest of each pattern) come from the model in the browser. For
the three sentences the page offers, the build checks that they are the float32 model's: the page names the
highest-scoring head, and with it the runner-up when the two are closer than twice the bound ("tied within
rounding"); the float32 model, under the same rule, must name the same heads, else BuildError.
"""
import hashlib
import html
import json
from pathlib import Path

import numpy as np

from realheads.analysis import named_heads, sentence_scores
from realheads.data import SENTENCES
from realheads.encoder import EncoderParams, encode
from realheads.model import DISTRIBUTION, MODEL_NAME, load_config, model_folder, package_version
from realheads.shipped import SHIPPED, dequantize, pack, quantize, read_safetensors

from ..engine import Snippets
from ..engine.errors import BuildError
from ..engine.text import num
from ..engine.wasm import compile_wat
from .real_heads.committed import extraction

# the encoder's WebAssembly, compiled here; its text lives with the widget's scripts
KERNELS = Path(__file__).resolve().parents[2] / "docs" / "widgets" / "your-sentence" / "kernels.wat"
FOLDER = "models"  # under the site root
MAX_TOKENS = 64  # [CLS] + at most 62 pieces + [SEP]: the browser cuts longer inputs there
MAX_CHARACTERS = 2000  # the box's maxlength; a sentence from the link (#s=) is cut there too
MAX_INPUT_CHARS_PER_WORD = 100  # tokenizer.json's WordPiece setting: a longer word is one [UNK]
SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ROLLOUT_TEXT = (
    "The grid shows each head on its own. The square beside it (below it on a narrow screen), attention rollout "
    "(Abnar & Zuidema, 2020), chains "
    "them: it averages each layer's twelve heads, adds the residual path that carries every token straight through, "
    "and multiplies the six layers. Row i says how much of each input token position i would hold at the end if "
    "attention were the only way information moved; each row adds up to 1. Its colours are the weights' colours, "
    "from dark (almost none of that token reaches that position) to bright (all of it). It is not an explanation of what the "
    "model computes or predicts: it leaves out the values, the feed-forward layers and the normalisation, and "
    "treats every head alike. Your browser computes it from the same weights as the grid."
)
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


PATTERN_NAMES = {"previous": "previous token", "next": "next token", "sink": "[CLS] + [SEP]", "pronoun": "pronoun link"}
JS_SCORE_TOLERANCE = 1e-3  # a margin this close to the tie line could fall either side in the browser's arithmetic


def measure_accuracy(original, shipped, config):
    """The numpy encoder on each site sentence, float32 weights vs shipped -> ({sentence id: max |Δ| of the
    attention weights}, {sentence id: (tokens, float32 weights, shipped weights)})."""
    _, by_id = extraction()
    differences, runs = {}, {}
    for sentence_id, heads in by_id.items():
        reference = encode(original, config, heads.ids).weights  # (L, H, n, n)
        rounded = encode(shipped, config, heads.ids).weights
        differences[sentence_id] = float(np.abs(reference - rounded).max())
        runs[sentence_id] = (list(heads.tokens), reference, rounded)
    return differences, runs


def faithful_heads(runs, tie_margin):
    """Per site sentence and pattern, the heads the page names (computed, as in the browser, from the shipped
    weights) and the margin, checked against the float32 model's -> {sentence id: {kind: {"heads", "tied",
    "margin"}}}, heads counted from 0. BuildError when the two models would name different heads."""
    claims = {}
    for sentence_id, (tokens, reference, rounded) in runs.items():
        exact, _ = sentence_scores(reference, tokens)
        shipped, _ = sentence_scores(rounded, tokens)
        claims[sentence_id] = {}
        for kind, table in exact.items():
            heads, margin = named_heads(table, tie_margin)
            page_heads, page_margin = named_heads(shipped[kind], tie_margin)
            if page_heads != heads:
                raise BuildError(f"your-sentence: on the {sentence_id} sentence the page would name {page_heads} for the "
                                 f"{kind} pattern and the float32 model names {heads} (heads from 0, tie margin {tie_margin:.4f})")
            if abs(page_margin - tie_margin) < JS_SCORE_TOLERANCE:
                raise BuildError(f"your-sentence: on the {sentence_id} sentence the {kind} pattern's margin {page_margin:.4f} "
                                 f"is too near the tie line {tie_margin:.4f} for the browser to agree with the build")
            claims[sentence_id][kind] = {"heads": heads, "tied": len(heads) == 2, "margin": float(margin)}
    return claims


def model_data():
    folder = model_folder()
    config = load_config(folder)
    state = shipped_state(read_safetensors(folder / "model.safetensors"))
    layout, raw = quantize(state, SHIPPED)
    blob = pack(raw)
    original = EncoderParams.from_state_dict(state, config)
    shipped = EncoderParams.from_state_dict(dequantize(layout, raw), config)
    vocabulary = (folder / "vocab.txt").read_bytes()
    kernels = compile_wat(KERNELS)
    files = {"weights": content_name("minilm-l6", "bin", blob), "vocabulary": content_name("vocab", "txt", vocabulary),
             "kernels": content_name("encoder-kernels", "wasm", kernels)}
    manifest = {
        "model": MODEL_NAME,
        "source": f"{DISTRIBUTION} {package_version()}",
        "files": files,
        "integrity": {"weights": integrity(blob), "vocabulary": integrity(vocabulary), "kernels": integrity(kernels)},
        "config": {"n_layers": config.n_layers, "n_heads": config.n_heads, "d_model": config.d_model, "d_ff": config.d_ff,
                   "layer_norm_eps": config.layer_norm_eps, "vocab_size": config.vocab_size},
        "tokenizer": {"lowercase": True, "strip_accents": True, "unknown": "[UNK]", "prefix": "##",
                      "max_input_chars_per_word": MAX_INPUT_CHARS_PER_WORD, "special_tokens": SPECIAL_TOKENS,
                      "max_tokens": MAX_TOKENS},
        "tensors": layout,
    }
    manifest_bytes = (json.dumps(manifest, indent=1) + "\n").encode()
    manifest_name = content_name("model", "json", manifest_bytes)
    accuracy, runs = measure_accuracy(original, shipped, config)
    bound = max(accuracy.values())
    return {
        "blob": blob, "vocabulary": vocabulary, "kernels": kernels, "files": files, "manifest": manifest_bytes, "manifest_name": manifest_name,
        "download_bytes": sum(entry["bytes"] for entry in manifest["integrity"].values()),  # as the page's progress bar counts
        "accuracy": accuracy, "bound": bound, "claims": faithful_heads(runs, tie_margin(bound)),
        "storage": storage(layout),
    }


def storage(layout):
    """How the download stores the tensors, as the page says it: the matrices in int16 steps of 1/fineness of a
    row's standard deviation, the 1-D tensors (biases, layer norms) as float32 -> {"fineness", "matrices",
    "vectors"} (counts). BuildError when the layout stores anything else, which the page's sentence would not cover."""
    matrices = [entry for entry in layout if len(entry["shape"]) == 2]
    vectors = [entry for entry in layout if len(entry["shape"]) == 1]
    fineness = {SHIPPED.encoding(entry["name"]).fineness for entry in matrices}
    odd = ([entry["name"] for entry in matrices if entry["dtype"] != "int16"] + [entry["name"] for entry in vectors if entry["dtype"] != "float32"]
           + [entry["name"] for entry in layout if len(entry["shape"]) not in (1, 2)])
    if odd or len(fineness) != 1:
        raise BuildError(f"your-sentence: the page says the matrices ship as int16 steps of one fineness and the 1-D tensors as "
                         f"float32, but {odd or sorted(fineness)} do not")
    return {"fineness": fineness.pop(), "matrices": len(matrices), "vectors": len(vectors)}


BOUND_DIGITS = 5  # the bound prints with these decimals, and the tie margin is twice the printed bound


def printed_bound(bound):
    """The error bound as the page prints it (BOUND_DIGITS decimals): the tie margin doubles this number, so a
    reader can check the doubling from the page."""
    return round(bound, BOUND_DIGITS)


def tie_margin(bound):
    """Two heads whose scores differ by less than this are tied within rounding: each may be off by the bound."""
    return 2 * printed_bound(bound)


def head_label(layer_head):
    layer, head = layer_head
    return f"layer {layer + 1}, head {head + 1}"  # counted from 1, as everywhere a reader looks


def megabytes(n_bytes):
    return f"{num(n_bytes / 1e6, 1)} MB"


def page_snippets(data):
    size = megabytes(data["download_bytes"])
    steps, vectors = data["storage"]["fineness"], data["storage"]["vectors"]
    accuracy = data["accuracy"]
    worst = data["bound"]
    presets = "".join(f'<button type="button" disabled data-preset="{html.escape(text, quote=True)}">{html.escape(sentence_id)}</button>'
                      for sentence_id, text in PRESETS.items())
    widget = f"""<p class="aih-yours-print">On the web page you can run the model on your own sentence.</p>
<div class="aih-yours" id="aih-yours" data-model="{html.escape(data['manifest_name'])}" data-size="{size}" data-tie-margin="{tie_margin(worst)!r}">
<form class="aih-yours__form" data-slot="form">
<label for="aih-yours-text">Your sentence</label>
<input type="text" id="aih-yours-text" name="s" maxlength="{MAX_CHARACTERS}" autocomplete="off" spellcheck="false" value="{html.escape(PRESETS['coreference'], quote=True)}">
<button type="submit" class="aih-yours__run" data-slot="run" disabled data-stored="Run the model (stored in your browser, no download)" data-loaded="Run the model">Run the model ({size} download, once)</button>
<button type="button" data-slot="copy" hidden>Copy link</button>
<p class="aih-yours__presets">Or start from the real-heads page's sentences: {presets}</p>
<p class="aih-yours__copied" data-slot="copied" role="status"></p>
</form>
<progress data-slot="progress" max="1" value="0" hidden aria-label="Download of the model"></progress>
<p class="aih-yours__status" data-slot="status" role="status">This part of the page needs JavaScript, and a download of {size} that starts only when you ask for it; everything else on the page works without it.</p>
<div data-slot="results" hidden>
<p>Tokens: <code data-slot="tokens"></code></p>
<p class="aih-yours__cut" data-slot="cut" hidden></p>
<div class="aih-yours__maps">
<canvas data-slot="grid" class="aih-yours__grid" role="img" tabindex="0" aria-label="Every head's weights, 6 layers down and 12 heads across."></canvas>
<figure class="aih-yours__rollout">
<canvas data-slot="rollout" role="img" aria-label="Attention rollout of your sentence."></canvas>
<figcaption><strong>Attention rollout</strong>: positions down, input tokens across. <span data-slot="rollout-summary"></span></figcaption>
</figure>
</div>
<p>{ROLLOUT_TEXT}</p>
<div class="aih-yours__scores" tabindex="0" role="region" aria-label="Head scores for your sentence">
<table>
<caption>The heads that stand out for this sentence: the highest score of each kind among the 72 heads, and the median head's.</caption>
<thead><tr><th scope="col">Pattern</th><th scope="col">Strongest head</th><th scope="col">Its score</th><th scope="col">Median head</th></tr></thead>
<tbody data-slot="scores"></tbody>
</table>
</div>
<p data-slot="no-pronoun" hidden>There is no pronoun link to score: the sentence has no pronoun (it, he, she, they, him, her, them, its, his, their) with a content word at least two tokens before it.</p>
<p>The previous-token, next-token and sink scores are the site's real-heads scores for this one sentence: the previous-token and next-token scores average, over the rows, the weight on the neighbouring token; the sink score averages the weight on [CLS] plus [SEP]. The pronoun link is scored differently: the real-heads page scores each link on one word fixed with its sentence, and here it is the largest weight from the first pronoun that has an earlier content word (not the word just before it) to the best such word, whichever it is. That word is where the pronoun looks, not what it refers to: the table names one even when nothing in the sentence is what the pronoun stands for.</p>
<p data-slot="open" role="status">Choose a head in the grid (click it, or focus the grid and press Enter or the arrow keys) to open it below.</p>
<figure id="your-sentence-viewer" class="aih-figure aih-heatmap" data-quantity="weights" data-head="0" hidden>
<div class="aih-figure__graphic"></div>
<figcaption>One head of your sentence, from the model running in your browser: queries down, keys across. Hover over a cell to see how its weight is computed; the slider rescales the scores.</figcaption>
</figure>
<p data-slot="mask-note">The heatmap's Mask menu offers the causal mask: each row's weights are softmaxed again over the keys at or before its query, as in a decoder, so that no token takes from the tokens after it. This model is an encoder and was trained without that mask: each of its tokens sees the whole sentence, in this head and in every layer below it. So the masked weights show what the mask would do to this head's scores, not anything the model computes.</p>
</div>
</div>"""
    honesty = (
        "Everything happens in your browser: a background worker cuts your text into the model's tokens with the "
        "same WordPiece rules as the model's own tokenizer, then runs the six layers with the site's encoder "
        "translated step by step from numpy into JavaScript, its matrix products in WebAssembly. Nothing you type leaves the page. Inputs are cut at "
        f"{MAX_TOKENS} tokens ([CLS], {MAX_TOKENS - 2} pieces of your text, [SEP]); the page says when it cuts.\n\n"
        f"The download is {size}: the model's weights ([weights]({data['files']['weights']})), its vocabulary "
        f"([vocab.txt]({data['files']['vocabulary']})) and the encoder's WebAssembly "
        f"([kernels]({data['files']['kernels']}), compiled from a readable source when the site is built), with a "
        "small file that describes them. In the weights, each number of a weight matrix is rounded to a whole number "
        f"of steps of 1/{steps} of its row's spread (standard deviation), the {vectors} one-dimensional tensors "
        "(biases and the layer norms' scales and shifts) stay 32-bit numbers, and all of it is compressed. The small "
        "file gives the length and SHA-256 of each of the others; the page checks every file against them before "
        "it uses any, and says so if a download is corrupted. The browser keeps the checked files, so "
        "a later visit, or a link with a sentence, runs without downloading them again. "
        "Rounding the weights changes the attention a little: on the three sentences of the real-heads "
        f"page, the largest difference between a weight computed with the shipped numbers and one computed with "
        f"the original 32-bit numbers (both by the site's numpy encoder) is {num(printed_bound(worst), BOUND_DIGITS)}, on the "
        f"{max(accuracy, key=accuracy.get)} sentence. The build measures it.\n\n"
        f"{ties_text(data['claims'], worst)}"
    )
    return {"": widget, "honesty": honesty}


def ties_text(claims, bound):
    """What the page says about the heads it names: the rule, and for the three sentences, where it names two."""
    tied = [(sentence_id, kind, claim) for sentence_id, by_kind in claims.items() for kind, claim in by_kind.items()
            if claim["tied"]]
    rule = (f"So a head's score, an average of weights, may be off by about {num(printed_bound(bound), BOUND_DIGITS)} too. Where the "
            f"two highest-scoring heads of a pattern are less than {num(tie_margin(bound), BOUND_DIGITS)} apart (twice that), the table calls them tied within "
            "rounding and names both: the rounding could have swapped them. For the three sentences the page offers, the "
            "build checks that the heads the table names are the ones the 32-bit model names by the same rule")
    if not tied:
        return rule + "; none is tied."
    cases = "; ".join(f"the {sentence_id} sentence's {PATTERN_NAMES[kind]}, {head_label(claim['heads'][0])} and "
                      f"{head_label(claim['heads'][1])}, {num(claim['margin'], 4)} apart in the 32-bit model"
                      for sentence_id, kind, claim in tied)
    return f"{rule}. Tied: {cases}."


def public_files(data):
    return {data["files"]["weights"]: data["blob"], data["files"]["vocabulary"]: data["vocabulary"],
            data["files"]["kernels"]: data["kernels"], data["manifest_name"]: data["manifest"]}


ITEMS = [Snippets("your-sentence", data=model_data, snippets=page_snippets, public=public_files)]
