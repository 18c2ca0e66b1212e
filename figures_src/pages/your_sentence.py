"""Your sentence (docs/your-sentence.md): the real model, run in the reader's browser on the reader's sentence.

At build time this module reads all-MiniLM-L6-v2 from the pinned model package with numpy alone
(models/minilm/shipped.py), writes it in the shipped format (whole steps of 1/200 of a row's standard deviation,
compressed) under content-hashed names, with its vocabulary and a small JSON that describes both (with each
file's byte count and SHA-256, which the page checks before it uses a download), and measures what the
rounding costs: the numpy encoder on the shipped (dequantized) weights against the float32 model, on the site's
three sentences. The page states that bound; tests/test_your_sentence.py checks it on more sentences.

The heads the page names for a sentence (the strongest of each pattern) come from the model in the browser. For
the three sentences the page offers, the build checks that they are the float32 model's: the page names the
highest-scoring head, and with it the runner-up when the two are closer than twice the bound ("tied within
rounding"); the float32 model, under the same rule, must name the same heads, else BuildError.

The page's words are words/your-sentence.md; the widget's markup, with its own words, is
docs/widgets/your-sentence/template.html (and preset.html, one preset's button). This module fills both with data.
"""
import hashlib
import json
from pathlib import Path

import numpy as np

from models.minilm.analysis import named_heads, sentence_scores
from models.minilm.data import SENTENCES
from models.minilm.encoder import EncoderParams, encode, encoder_layer
from models.minilm.model import DISTRIBUTION, MODEL_NAME, load_config, model_folder, package_version
from models.minilm.shipped import SHIPPED, dequantize, pack, quantize, read_safetensors

from ..engine import Snippets, Template, Words
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.errors import BuildError
from ..engine.inputs import ROOT
from ..engine.text import head_label, num
from ..engine.words import Filled, listed
from ..engine.wasm import compile_wat
from .real_heads.committed import extraction, sentence_name

# the encoder's WebAssembly, compiled here; its text lives with the widget's scripts
KERNELS = Path(__file__).resolve().parents[2] / "docs" / "widgets" / "your-sentence" / "kernels.wat"
FOLDER = "models"  # under the site root
KERNELS_STEM = "kernels"  # the smollm page publishes the same file (models/smollm/shipped.py's KERNELS_STEM): one copy
MAX_TOKENS = 64  # [CLS] + at most 62 pieces + [SEP]: the browser cuts longer inputs there
MAX_CHARACTERS = 2000  # the box's maxlength; a sentence from the link (#s=) is cut there too
MAX_INPUT_CHARS_PER_WORD = 100  # tokenizer.json's WordPiece setting: a longer word is one [UNK]
SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PRESETS = {sentence.id: sentence.text for sentence in SENTENCES}  # the real-heads page's three sentences
WORDS = Words("words/your-sentence.md")
WIDGET = Template("docs/widgets/your-sentence/template.html", Words("words/widgets/your-sentence.md"))  # its markup, its words; Python fills in data
PRESET = Template("docs/widgets/your-sentence/preset.html")  # one preset sentence's button


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


PATTERN_NAMES = {"previous": "pattern/previous", "next": "pattern/next", "sink": "pattern/sink", "pronoun": "pattern/pronoun"}  # sections of WORDS
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
             "kernels": content_name(KERNELS_STEM, "wasm", kernels)}
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
        "storage": storage(layout), "config": manifest["config"],
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


def megabytes(n_bytes):
    return WORDS.line("megabytes", megabytes=num(n_bytes / 1e6, 1))


def presets():
    """The preset buttons, one per sentence of the real-heads page: its name (words/real-heads.md) labels it, its text
    fills the box."""
    return Filled("".join(PRESET.html(sentence=text, name=sentence_name(sentence_id)).strip()
                          for sentence_id, text in PRESETS.items()))


def page_snippets(data):
    size = megabytes(data["download_bytes"])
    config = data["config"]
    widget = WIDGET.html(
        model=data["manifest_name"], size=size, tie_margin=repr(tie_margin(data["bound"])),
        max_characters=MAX_CHARACTERS, sentence=PRESETS["coreference"], presets=presets(),
        layers=config["n_layers"], heads=config["n_heads"], all_heads=config["n_layers"] * config["n_heads"])
    accuracy = data["accuracy"]
    honesty = WORDS.fill(
        "your-sentence-honesty", max_tokens=MAX_TOKENS, pieces=MAX_TOKENS - 2, size=size,
        weights=data["files"]["weights"], vocabulary=data["files"]["vocabulary"], kernels=data["files"]["kernels"],
        fineness=data["storage"]["fineness"], vectors=data["storage"]["vectors"],
        bound=num(printed_bound(data["bound"]), BOUND_DIGITS), sentence=sentence_name(max(accuracy, key=accuracy.get)),
        tie_margin=num(tie_margin(data["bound"]), BOUND_DIGITS), rule=ties_text(data["claims"]))
    return {"": widget, "honesty": honesty}


def ties_text(claims):
    """The sentence that checks the page's rule for naming heads on the three sentences, ending where it names two,
    or that it names two nowhere: a whole sentence of its own per case (its words, not Python, put the punctuation)."""
    tied = [(sentence_id, kind, claim) for sentence_id, by_kind in claims.items() for kind, claim in by_kind.items()
            if claim["tied"]]
    if not tied:
        return WORDS.line("your-sentence-honesty/none-tied")
    cases = [WORDS.line("your-sentence-honesty/tie", sentence=sentence_name(sentence_id),
                        pattern=WORDS.line(PATTERN_NAMES[kind]), first=head_label(*claim["heads"][0]),
                        second=head_label(*claim["heads"][1]), margin=num(claim["margin"], 4))
             for sentence_id, kind, claim in tied]
    return WORDS.line("your-sentence-honesty/tied", cases=listed(cases, "semicolon"))


def public_files(data):
    return {data["files"]["weights"]: data["blob"], data["files"]["vocabulary"]: data["vocabulary"],
            data["files"]["kernels"]: data["kernels"], data["manifest_name"]: data["manifest"]}


# ---------------------------------------------------------------- the page as a notebook

def constrained(distribution):
    """"tokenizers==0.23.3": a package at the project's pin (constraints.txt), for a notebook that names it but does
    not need it (the build need not have it installed)."""
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.split("==")[0].strip().lower() == distribution:
            return line.split("#")[0].strip()
    raise BuildError(f"constraints.txt pins no {distribution}")


def notebook_cells():
    """What the build computes for the page, on one of its sentences: the model in numpy on its float32 weights,
    the heads the page would name, and what the shipped weights' rounding changes."""
    return [
        markdown(WORDS.fill("nb-model")),
        code("""
            from attention import multi_head_attention
            from models.minilm.encoder import EncoderParams, embed, encode, gelu, layer_norm
            from models.minilm.model import load_config, model_folder
            from models.minilm.shipped import SHIPPED, dequantize, quantize, read_safetensors
            from figures_src.pages.your_sentence import printed_bound, shipped_state, tie_margin

            folder = model_folder()  # the model package's folder
            config = load_config(folder)
            state = shipped_state(read_safetensors(folder / "model.safetensors"))  # {name: float32 array}, numpy alone
            original = EncoderParams.from_state_dict(state, config)
            print(config)"""),
        markdown(WORDS.fill("nb-sentence", tokenizers=constrained("tokenizers"))),
        code("""
            from figures_src.pages.real_heads.committed import extraction

            heads = extraction()[1]["coreference"]
            tokens, ids = heads.tokens, heads.ids
            # a sentence of your own (needs the tokenizers package, see above):
            # from models.minilm.model import load_tokenizer
            # encoded = load_tokenizer(folder).encode("The dog chased the ball because it was red.")
            # tokens, ids = encoded.tokens, encoded.ids
            print(" ".join(tokens))
            print(ids)"""),
        markdown(WORDS.fill("nb-layer")),
        source(encoder_layer),
        code("""
            X = embed(original, config, np.asarray(ids), np.zeros(len(ids), dtype=int))  # (n, d_model): the layers' input
            every_layer = []
            for layer_params in original.layers:  # encoder_layer above, one layer after another
                X, layer_weights = encoder_layer(X, layer_params, config)
                every_layer.append(layer_weights)
            weights = np.stack(every_layer)  # (n_layers, n_heads, n, n)
            weights.shape"""),
        markdown(WORDS.fill("nb-named")),
        code("""
            from figures_src.engine.text import head_label
            from models.minilm.analysis import named_heads, sentence_scores

            tables, _ = sentence_scores(weights, tokens)  # {pattern: (n_layers, n_heads) scores}
            for kind, table in tables.items():
                layer, head = named_heads(table, tie_margin=0)[0][0]  # the best head alone
                print(f"{kind}: {head_label(layer, head)} (code: layer {layer}, head {head}), score {table[layer, head]:.2f}")

            kind = "pronoun" if "pronoun" in tables else "previous"  # a sentence without a pronoun: the previous-token head
            layer, head = named_heads(tables[kind], tie_margin=0)[0][0]
            fig, ax = plt.subplots(figsize=(5.6, 5.6))
            heatmap(ax, weights[layer, head], tokens, tokens, quantity="weights", show_values=False, colorbar=False,
                    as_image=True, title=f"{kind}: {head_label(layer, head)}")
            ax.tick_params(axis="x", labelrotation=90)
            fig.tight_layout()
            plt.show()"""),
        markdown(WORDS.fill("nb-shipped", fineness=SHIPPED.default.fineness)),
        code("""
            layout, raw = quantize(state, SHIPPED)  # what the page downloads, before compression
            shipped = EncoderParams.from_state_dict(dequantize(layout, raw), config)
            rounded = encode(shipped, config, ids).weights
            difference = np.abs(rounded - weights).max()
            print("largest change in any weight on this sentence:", printed_bound(difference))
            print("heads closer than twice that are tied within rounding:", tie_margin(difference))"""),
    ]


ITEMS = [Snippets("your-sentence", data=model_data, snippets=page_snippets, public=public_files),
         notebook("your-sentence.md", notebook_cells, packages=(DISTRIBUTION,))]
