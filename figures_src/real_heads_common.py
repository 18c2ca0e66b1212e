"""Shared by the real-heads figures: the committed extraction, the head scores, and the drawing of a grid.

Not a figure itself (it is not in the registry). Everything here reads data/real_heads.{npz,json},
written by `make real-heads`; the model is never loaded during the site build.
"""
import functools

import numpy as np
from matplotlib.patches import Rectangle

from realheads import analysis, data as realdata

from .heatmap import WEIGHT_CMAP, format_number, heatmap

# What every real-heads item reads besides figures_src/: the build rehashes these (CONTRIBUTING.md).
INPUTS = [
    "data/real_heads.npz",
    "data/real_heads.json",
    "realheads/__init__.py",
    "realheads/analysis.py",
    "realheads/data.py",
    "realheads/encoder.py",
    "realheads/model.py",
]
PICK_COLOUR = "#E69F00"  # Okabe-Ito orange: the frame of a head named on the page
PATTERN_COLUMNS = ("previous", "next", "self", "cls", "sep")
GRID_SIZE = (7.4, 4.1)  # inches: 12 columns by 6 rows of thumbnails
PATTERN_KINDS = {"previous": "previous token", "next": "next token", "sink": "[CLS]/[SEP] sink"}
# Which sentence shows each kind of head: the long one for the neighbour heads, the others their own.
KIND_SENTENCE = {"previous": "long", "next": "long", "sink": "coreference", "coreference": "coreference", "agreement": "agreement"}


@functools.cache
def extraction():
    """-> (provenance dict, {sentence id: SentenceHeads}) from the committed files."""
    meta, sentence_heads = realdata.load()
    return meta, {heads.sentence.id: heads for heads in sentence_heads}


@functools.cache
def scores():
    _, by_id = extraction()
    return analysis.head_scores(list(by_id.values()))


@functools.cache
def picks():
    return analysis.pick_heads(scores())


def kind_name(kind):
    """"previous token", …, or a sentence's link: "“it” → “animal”"."""
    if kind in PATTERN_KINDS:
        return PATTERN_KINDS[kind]
    link = scores().links[kind]["link"]
    return f"“{link.query}” → “{link.key}”"


def example_id(sentence_id, layer):
    """The worked example holding one layer's 12 heads on one sentence (head axis first)."""
    return f"real-heads-{sentence_id}-layer{layer}"


def head_label(layer, head):
    """Counted from 0, as everywhere on the site."""
    return f"layer {layer}, head {head}"


def thumbnail_id(name, layer, head):
    return f"{name}-l{layer}-h{head}"


# ---------------------------------------------------------------- the 6 × 12 grid of one sentence


def grid_data(sentence_id):
    meta, by_id = extraction()
    heads = by_id[sentence_id]
    marked = {}
    for kind, pick in picks().items():
        marked.setdefault((pick.layer, pick.head), []).append(kind)
    return {"meta": meta, "heads": heads, "scores": sentence_scores(heads), "marked": marked}


def sentence_scores(heads):
    """The pattern scores and entropy of every head on this one sentence: {name: (L, H)}."""
    one = analysis.head_scores([heads])
    table = {name: one.patterns[name] for name in PATTERN_COLUMNS}
    table["entropy"] = one.entropy
    return table


def render_grid(data, fig):
    """Each thumbnail is one head's weights (queries down, keys across), brighter = more weight."""
    weights = data["heads"].weights  # (L, H, n, n)
    n_layers, n_heads = weights.shape[:2]
    name = fig.aih_name
    fig.get_layout_engine().set(w_pad=0.01, h_pad=0.01, wspace=0.03, hspace=0.03)  # thumbnails close together
    axes = fig.subplots(n_layers, n_heads)
    for layer in range(n_layers):
        for head in range(n_heads):
            ax = axes[layer, head]
            image = ax.imshow(weights[layer, head], cmap=WEIGHT_CMAP, vmin=0.0, vmax=1.0, interpolation="nearest")
            image.set_gid(thumbnail_id(name, layer, head) + "-image")
            ax.set_gid(thumbnail_id(name, layer, head))
            ax.set_xticks([])
            ax.set_yticks([])
            for spine in ax.spines.values():
                spine.set_visible(False)
            if (layer, head) in data["marked"]:
                ax.add_patch(Rectangle((-0.07, -0.07), 1.14, 1.14, transform=ax.transAxes, fill=False,
                                       edgecolor=PICK_COLOUR, linewidth=2, clip_on=False))  # outside the cells
            if layer == 0:
                ax.set_title(f"{head}", fontsize=8, pad=3)
            if head == 0:
                ax.set_ylabel(f"{layer}", fontsize=8, rotation=0, ha="right", va="center", labelpad=4)
    fig.suptitle("head →", x=0.5, fontsize=8)
    fig.supylabel("layer ↓", fontsize=8)


def grid_caption(data):
    heads = data["heads"]
    n_layers, n_heads, n, _ = heads.weights.shape
    return (
        f"All {n_layers * n_heads} heads of all-MiniLM-L6-v2 on “{heads.sentence.text}” ({n} tokens): "
        f"rows are layers 0–{n_layers - 1}, columns heads 0–{n_heads - 1}. Each thumbnail is one head's {n} × {n} "
        "table of weights, queries down and keys across, dark = 0 and yellow = 1. Framed in orange: the heads "
        "named below."
    )


def grid_alt(data):
    heads = data["heads"]
    table = data["scores"]
    n_layers, n_heads = heads.weights.shape[:2]
    cls_layer = table["cls"].mean(axis=1)
    parts = [
        f"A grid of {n_layers} by {n_heads} small heatmaps, one per attention head, for the sentence "
        f"“{heads.sentence.text}”.",
        "Average weight on [CLS] by layer: "
        + ", ".join(f"layer {k} {format_number(v)}" for k, v in enumerate(cls_layer)) + ".",
        "Framed heads: " + "; ".join(
            f"{head_label(layer, head)} ({', '.join(kind_name(k) for k in kinds)})" for (layer, head), kinds in sorted(data["marked"].items())
        ) + ".",
        "The table after the figure lists, for every head, where its weight goes on this sentence.",
    ]
    return " ".join(parts)


def grid_table(data):
    table = data["scores"]
    n_layers, n_heads = table["entropy"].shape
    rows = []
    for layer in range(n_layers):
        for head in range(n_heads):
            rows.append([head_label(layer, head)] + [float(table[c][layer, head]) for c in PATTERN_COLUMNS]
                        + [float(table["entropy"][layer, head])])
    return {
        "caption": (f"Mean weight of a row on each position, and mean row entropy (nats), per head, on "
                    f"“{data['heads'].sentence.text}”"),
        "columns": ["head", "previous token", "next token", "itself", "[CLS]", "[SEP]", "entropy"],
        "rows": rows,
    }


# ---------------------------------------------------------------- one head, drawn in full


def head_data(kind, sentence_id=None):
    """The head picked for `kind`, on `sentence_id` (default: the sentence that shows that kind best)."""
    meta, by_id = extraction()
    pick = picks()[kind]
    heads = by_id[sentence_id or KIND_SENTENCE[kind]]
    return {
        "kind": kind,
        "pick": pick,
        "heads": heads,
        "weights": heads.weights[pick.layer, pick.head],  # (n, n)
        "scores": scores(),
        "example": example_id(heads.sentence.id, pick.layer),
    }


def head_size(n):
    """Inches for an n × n heatmap with printed numbers."""
    side = 2.0 + 0.3 * n
    return (side + 0.6, side)


def render_head(data, ax):
    heads, pick = data["heads"], data["pick"]
    n = len(heads.tokens)
    heatmap(ax, data["weights"], heads.tokens, heads.tokens, quantity="weights", head=pick.head,
            fontsize=6 if n > 16 else 6.5)
    ax.tick_params(axis="x", labelrotation=90)


def head_caption(data):
    """Which head, on which sentence; the callout above the figure gives the numbers that picked it."""
    kind, pick, heads = data["kind"], data["pick"], data["heads"]
    n = len(heads.tokens)
    text = (f"{pick.label.capitalize()} on the {heads.sentence.id} sentence: its {n} × {n} weights, queries down "
            "and keys across.")
    if kind in data["scores"].links:
        link = data["scores"].links[kind]["link"]
        text += f" The row of “{link.query}” is row {heads.position(link.query)}; “{link.key}” is column {heads.position(link.key)}."
    return text
