"""Shared by the real-heads figures: the committed extraction, the head scores, and the drawing of a grid.

Not a figure itself (it is not in the registry). Everything here reads data/real_heads.{npz,json},
written by `make real-heads`; the model is never loaded during the site build.
"""
import base64
import functools
import io

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Rectangle
from PIL import Image

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
THUMBNAIL_LEVELS = 32  # colours in a thumbnail: weights rounded to steps of 1/31 (the viewer has the numbers)
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


def thumbnail_layout(n):
    """(cells between thumbnails, cells per thumbnail step) for n-token thumbnails: a gap of about n/7."""
    gap = max(1, round(n / 7))
    return gap, n + gap


def grid_png(weights):
    """All heads' weights tiled into one 8-bit palette PNG: layers down, heads across, transparent gaps.

    One pixel per weight, its colour the weight rounded to one of THUMBNAIL_LEVELS steps of the weight
    colour map (index 0 is the transparent gap). One palette image per grid is a few KB where 72 RGBA images
    (what matplotlib writes) cost ~70 KB gzipped.
    """
    n_layers, n_heads, n, _ = weights.shape
    if not np.all((weights >= -1e-3) & (weights <= 1 + 1e-3)):
        raise ValueError(f"grid_png: weights must lie in [0, 1], got {weights.min()} to {weights.max()}")
    gap, step = thumbnail_layout(n)
    levels = np.rint(np.clip(weights, 0.0, 1.0) * (THUMBNAIL_LEVELS - 1)).astype(np.uint8) + 1
    pixels = np.zeros((n_layers * step - gap, n_heads * step - gap), dtype=np.uint8)
    for layer in range(n_layers):
        for head in range(n_heads):
            pixels[layer * step:layer * step + n, head * step:head * step + n] = levels[layer, head]
    colours = mpl.colormaps[WEIGHT_CMAP](np.linspace(0.0, 1.0, THUMBNAIL_LEVELS), bytes=True)[:, :3]
    image = Image.fromarray(pixels, mode="P")
    image.putpalette([0, 0, 0, *colours.ravel().tolist()])
    buffer = io.BytesIO()
    image.save(buffer, format="png", optimize=True, transparency=0)
    return buffer.getvalue()


class PaletteImage(Artist):
    """A PNG drawn over a data rectangle as an SVG <image>, its bytes as given (matplotlib's imshow would
    re-encode it as RGBA, three times the size). SVG output only."""

    def __init__(self, png, extent):
        super().__init__()
        self.png, self.extent = png, extent  # extent: (left, right, bottom, top) in data units

    def draw(self, renderer):
        if not hasattr(renderer, "writer"):
            raise TypeError(f"PaletteImage draws into SVG only, not with {type(renderer).__name__}")
        left, right, bottom, top = self.extent
        (x0, y0), (x1, y1) = self.axes.transData.transform([(left, bottom), (right, top)])
        x, y = min(x0, x1), renderer.height - max(y0, y1)  # SVG's y runs down
        renderer.writer.element(
            "image", x=f"{x:.3f}", y=f"{y:.3f}", width=f"{abs(x1 - x0):.3f}", height=f"{abs(y1 - y0):.3f}",
            attrib={"id": self.get_gid() or "thumbnails", "preserveAspectRatio": "none",
                    "xlink:href": "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")},
            style="image-rendering:pixelated")


def render_grid(data, fig):
    """Each thumbnail is one head's weights (queries down, keys across), brighter = more weight.

    The thumbnails are one image; over each lies an invisible square with the id
    `<figure>-l<layer>-h<head>`, which docs/javascripts/real-heads.js makes a button.
    """
    weights = data["heads"].weights  # (L, H, n, n)
    n_layers, n_heads, n, _ = weights.shape
    gap, step = thumbnail_layout(n)
    name = fig.aih_name
    width, height = n_heads * step - gap, n_layers * step - gap
    fig.get_layout_engine().set(w_pad=0.01, h_pad=0.01)
    ax = fig.add_subplot()
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)  # layer 0 on top
    ax.set_aspect("equal")
    ax.add_artist(PaletteImage(grid_png(weights), (0, width, height, 0)))
    for layer in range(n_layers):
        for head in range(n_heads):
            area = Rectangle((head * step, layer * step), n, n, fill=False, edgecolor="none", clip_on=False)
            area.set_gid(thumbnail_id(name, layer, head))
            ax.add_patch(area)
    for layer, head in sorted(data["marked"]):
        ax.add_patch(Rectangle((head * step - gap / 2, layer * step - gap / 2), n + gap, n + gap, fill=False,
                               edgecolor=PICK_COLOUR, linewidth=2, clip_on=False))  # in the gap, outside the cells
    ax.set_xticks(np.arange(n_heads) * step + n / 2, [str(h) for h in range(n_heads)], fontsize=8)
    ax.set_yticks(np.arange(n_layers) * step + n / 2, [str(k) for k in range(n_layers)], fontsize=8)
    ax.tick_params(length=0, pad=3, top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.set_xlabel("head →", fontsize=8)
    ax.xaxis.set_label_position("top")
    ax.set_ylabel("layer ↓", fontsize=8)
    for spine in ax.spines.values():
        spine.set_visible(False)


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
