"""The 6 × 12 grid of one sentence: every head's weights as a thumbnail in one palette image, under
invisible squares that docs/widgets/real-heads/real-heads.js makes buttons.

On the page the image is its own file, figures/<figure>.thumbnails.png (grid_images), not inline in the HTML
(it was a third of the page's bytes): an <img> in the SVG's <foreignObject>, inside a <noscript
class="aih-lazy">. Without JavaScript the browser shows it at once; with it, docs/javascripts/site.js
puts it in place when the grid comes into view (the grids sit two screens down, two of the three in closed
tabs; the browser's own loading="lazy" would fetch one at load, since it looks well beyond the screen), and
the print edition and a printed page unwrap it as they do every aih-lazy block. The figure's standalone SVG
download keeps the image inside it."""
import base64
import io

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.patches import Rectangle
from PIL import Image

from models.minilm import analysis

from ...engine.heatmap import WEIGHT_CMAP
from ...engine.site import language_folder
from ...engine.style import PHONE_WIDTH
from ...engine.text import head_label, num
from ...engine.words import listed
from .committed import WORDS, extraction, kind_name, picks, sentence_name

PICK_COLOUR = "#E69F00"  # Okabe-Ito orange: the frame of a head named on the page
PATTERN_COLUMNS = ("previous", "next", "self", "cls", "sep")
GRID_SIZE = (PHONE_WIDTH, 2.4)  # inches: 12 columns by 6 rows of thumbnails, at full size on a phone
THUMBNAIL_LEVELS = 32  # colours in a thumbnail: weights rounded to steps of 1/31 (the viewer has the numbers)


def thumbnail_id(layer, head):
    """The id of a thumbnail's square; the build prefixes it with the figure's name."""
    return f"l{layer}-h{head}"


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


def thumbnails_path(sentence_id):
    """The grid's image, from the site's root: published by grid_images, beside the figure's downloads."""
    return f"figures/real-heads-grid-{sentence_id}.thumbnails.png"


def thumbnail_label(sentence_id, layer, head):
    """A thumbnail's name (its button's aria-label, and what the viewer's status says it shows): "layer 4, head 5 on
    the coreference sentence"."""
    return WORDS.line("real-heads-thumbnail", head=head_label(layer, head), sentence=sentence_name(sentence_id))


def page_to_root():
    """From real-heads/ (and from print/, the print edition, one folder down as well) to the site's root, where the
    grid's image is (the same file for both languages): from zh/real-heads/, a folder more."""
    return "../" * (1 + language_folder().count("/"))


def grid_images():
    """{path: PNG bytes}: every sentence's grid image, published under the site's root."""
    _, by_id = extraction()
    return {thumbnails_path(sentence_id): grid_png(heads.weights) for sentence_id, heads in by_id.items()}


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


class ThumbnailGrid(Artist):
    """The grid's image and, over each thumbnail, an unfilled square <g id="l<layer>-h<head>"><rect/></g> (the build
    prefixes the ids with the figure's name)
    that docs/widgets/real-heads/real-heads.js makes a button. Written straight into the SVG (SVG output only), to two
    decimals: matplotlib's imshow would re-encode the PNG as RGBA (three times the size), and its patches would
    spell out every square's corners to six decimals."""

    def __init__(self, weights, src, label):
        super().__init__()
        self.label = label  # label(layer, head): a thumbnail's name, which the page's script makes its button's
        self.png = grid_png(weights)
        self.src = src  # the image's address from the page
        self.n_layers, self.n_heads, self.n, _ = weights.shape
        self.gap, self.step = thumbnail_layout(self.n)
        self.width, self.height = self.n_heads * self.step - self.gap, self.n_layers * self.step - self.gap

    def draw(self, renderer):
        if not hasattr(renderer, "writer"):
            return self.draw_raster(renderer)
        # data units are the image's pixels, y down (the axes' y axis is inverted); SVG's y runs down too
        (x0, y0), (x1, _) = self.axes.transData.transform([(0, 0), (self.width, 0)])
        scale, top = (x1 - x0) / self.width, renderer.height - y0
        writer = renderer.writer
        box = {"x": f"{x0:.2f}", "y": f"{top:.2f}", "width": f"{self.width * scale:.2f}",
               "height": f"{self.height * scale:.2f}"}
        if mpl.rcParams["svg.fonttype"] == "path":  # the standalone download (engine/downloads.py): self-contained
            writer.element("image", **box, attrib={
                "id": "thumbnails", "preserveAspectRatio": "none", "style": "image-rendering:pixelated",
                "xlink:href": "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")})
        else:  # the page's: an HTML image of grid_images' file, waiting in a <noscript> (see the module's docstring)
            writer.start("foreignObject", **box)
            writer.start("noscript", attrib={"class": "aih-lazy"})
            writer.element("img", id="thumbnails", src=self.src, **{"aria-hidden": "true"}, width=str(self.width),
                           height=str(self.height), loading="lazy", decoding="async",
                           style="display:block;width:100%;height:100%;image-rendering:pixelated")
            writer.end("noscript")
            writer.end("foreignObject")
        side = f"{self.n * scale:.2f}"
        for layer in range(self.n_layers):
            for head in range(self.n_heads):
                # in the page's units, not a scaled group's: a scaled group would scale the focus ring too
                writer.start("g", id=thumbnail_id(layer, head))  # the build folds the id into the square
                writer.element("rect", x=f"{x0 + head * self.step * scale:.2f}",
                               y=f"{top + layer * self.step * scale:.2f}", width=side, height=side, fill="none",
                               attrib={"data-label": self.label(layer, head)})  # the button's name, once a button
                writer.end("g")


    def draw_raster(self, renderer):
        """The same image in a raster download (the figure's PNG): scaled by nearest neighbour, no buttons."""
        (x0, y0), (x1, _) = self.axes.transData.transform([(0, 0), (self.width, 0)])
        scale = (x1 - x0) / self.width
        size = (max(1, round(self.width * scale)), max(1, round(self.height * scale)))
        image = Image.open(io.BytesIO(self.png)).convert("RGBA").resize(size, Image.Resampling.NEAREST)
        gc = renderer.new_gc()
        renderer.draw_image(gc, round(x0), round(y0) - size[1], np.asarray(image)[::-1])
        gc.restore()


def render_grid(data, fig):
    """Each thumbnail is one head's weights (queries down, keys across), brighter = more weight.

    The thumbnails are one image; over each lies an invisible square with the id
    `<figure>-l<layer>-h<head>`, which docs/widgets/real-heads/real-heads.js makes a button.
    """
    weights = data["heads"].weights  # (L, H, n, n)
    n_layers, n_heads, n, _ = weights.shape
    sentence = data["heads"].sentence.id
    grid = ThumbnailGrid(weights, page_to_root() + thumbnails_path(sentence),
                         lambda layer, head: thumbnail_label(sentence, layer, head))
    gap, step = grid.gap, grid.step
    fig.get_layout_engine().set(w_pad=0.01, h_pad=0.01)
    ax = fig.add_subplot()
    ax.set_xlim(0, grid.width)
    ax.set_ylim(grid.height, 0)  # the first layer on top
    ax.set_aspect("equal")
    ax.add_artist(grid)
    for layer, head in sorted(data["marked"]):
        ax.add_patch(Rectangle((head * step - gap / 2, layer * step - gap / 2), n + gap, n + gap, fill=False,
                               edgecolor=PICK_COLOUR, linewidth=2, clip_on=False))  # in the gap, outside the cells
    ax.set_xticks(np.arange(n_heads) * step + n / 2, [str(h + 1) for h in range(n_heads)])
    ax.set_yticks(np.arange(n_layers) * step + n / 2, [str(k + 1) for k in range(n_layers)])
    ax.tick_params(length=0, pad=3, top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.set_xlabel(WORDS.line("real-heads-grid-xlabel"))
    ax.xaxis.set_label_position("top")
    ax.set_ylabel(WORDS.line("real-heads-grid-ylabel"))
    for spine in ax.spines.values():
        spine.set_visible(False)


def grid_caption(data):
    heads = data["heads"]
    n_layers, n_heads, n, _ = heads.weights.shape
    return WORDS.line("real-heads-grid-caption", count=n_layers * n_heads, sentence=heads.sentence.text, n=n,
                      layers=n_layers, heads=n_heads, levels=THUMBNAIL_LEVELS)


def grid_alt(data):
    heads = data["heads"]
    table = data["scores"]
    n_layers, n_heads = heads.weights.shape[:2]
    cls_layer = table["cls"].mean(axis=1)
    by_layer = listed([WORDS.line("real-heads-grid-alt/layer", layer=k, share=num(v))
                       for k, v in enumerate(cls_layer, start=1)], "comma")
    framed = listed([WORDS.line("real-heads-grid-alt/framed", head=head_label(layer, head),
                                kinds=listed([kind_name(k) for k in kinds], "comma"))
                     for (layer, head), kinds in sorted(data["marked"].items())], "semicolon")
    return WORDS.line("real-heads-grid-alt", layers=n_layers, heads=n_heads, sentence=heads.sentence.text,
                      by_layer=by_layer, framed=framed)


def grid_table(data):
    table = data["scores"]
    n_layers, n_heads = table["entropy"].shape
    rows = []
    for layer in range(n_layers):
        for head in range(n_heads):
            rows.append([head_label(layer, head)] + [float(table[c][layer, head]) for c in PATTERN_COLUMNS]
                        + [float(table["entropy"][layer, head])])
    return {
        "caption": WORDS.line("real-heads-grid-table-caption", sentence=data["heads"].sentence.text),
        "columns": WORDS.line("real-heads-grid-table-columns").split(" | "),
        "rows": rows,
    }


