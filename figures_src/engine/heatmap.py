"""The one heatmap helper every attention figure uses: keys on x, queries on y, one cell per artist.

Colormaps are colour-blind safe: scores (raw or scaled) use a diverging map centred at 0 with
symmetric limits; weights use a sequential map on [0, 1]. Every number is printed with `text.num`.
Each cell is a Rectangle whose SVG id becomes `<figure>[-<panel>]-cell-<i>-<j>` and its number a Text
whose id becomes `<figure>[-<panel>]-value-<i>-<j>` (query i is row i, top row 0; key j is column j):
the helper writes `[<panel>-]cell-<i>-<j>`, and the build prefixes every id in a figure with its name.
A large heatmap can instead be one image (`as_image=True`): one pixel per cell, id `<figure>[-<panel>]-cells`,
no printed numbers (its table and the interactive layer have them), a few elements instead of 2 per cell.
"""
import base64
import io

from dataclasses import dataclass

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.patches import Rectangle
from PIL import Image

from .finite import check_finite
from .text import cell as cell_number
from .text import num
from .words import SITE_WORDS

SCORE_CMAP = "RdBu_r"  # ColorBrewer diverging: blue < 0 < red, readable with red-green colour blindness
WEIGHT_CMAP = "viridis"  # perceptually uniform, colour-blind safe, dark (0) to bright (1)
MASKED_FILL = "#9e9e9e"
CELL_EDGE = "#ffffff"  # thin white gaps between cells: visible on light and dark pages
DARK_TEXT = "#010101"  # black, but not #000000, which the SVG post-processor turns into the page's colour
LIGHT_TEXT = "#ffffff"
LUMINANCE_WEIGHTS = (0.2126, 0.7152, 0.0722)  # WCAG's relative luminance of sRGB's red, green and blue
QUANTITIES = ("scores", "scaled_scores", "weights")  # what a heatmap draws; their names: words/site.md, quantity-…


def axis_titles():
    """(the keys' axis title, the queries'): words/site.md's heatmap-axis/… sections."""
    return SITE_WORDS.line("heatmap-axis/keys"), SITE_WORDS.line("heatmap-axis/queries")


@dataclass(frozen=True)
class DrawnHeatmap:
    """What `heatmap` drew: a figure's render returns these, and the build makes the figure's data table,
    text alternative and data-quantity / data-head attributes from them."""

    panel: str | None  # None for a figure's only heatmap
    quantity: str
    values: np.ndarray  # (n_q, n_k)
    row_labels: list
    col_labels: list
    head: int | None = None
    image: bool = False  # drawn as one image (as_image=True), not a cell per pair

    def name(self, figure):
        """The prefix of this heatmap's cell ids in figure `figure`."""
        return figure if self.panel is None else f"{figure}-{self.panel}"


def heatmap(ax, values, row_labels, col_labels, *, quantity, panel=None, head=None, title=None,
            limit=None, show_values=True, colorbar=True, fontsize=9, masked=None, as_image=False):
    """Draw `values` (n_q, n_k) on `ax`: row i = query i (top), column j = key j. Returns a DrawnHeatmap.

    quantity: "scores", "scaled_scores" or "weights" (chooses the colormap and limits).
    panel: a name for this heatmap when a figure has several (its cell ids become
    `<figure>-<panel>-cell-i-j`). head: the attention head it shows, if any. limit: the symmetric colour
    limit for scores (default max |finite value|). masked: bool (n_q, n_k), True where a mask forbids the
    pair; only there may a value be −∞ (drawn grey, hatched, printed as −∞). Any other non-finite value
    (NaN, ±∞) raises BuildError naming the heatmap and the first bad index. as_image: the cells as one
    image, one pixel per cell, without printed numbers (for a grid too large to print and hover cell by cell
    in the static figure; finite values only).
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"heatmap values must be 2-D (n_q, n_k), got shape {values.shape}")
    n_q, n_k = values.shape
    if len(row_labels) != n_q or len(col_labels) != n_k:
        raise ValueError(
            f"heatmap of shape {values.shape} needs {n_q} row labels and {n_k} column labels, "
            f"got {len(row_labels)} and {len(col_labels)}"
        )
    if quantity not in QUANTITIES:
        raise ValueError(f"unknown quantity {quantity!r}; expected one of {sorted(QUANTITIES)}")
    prefix = "" if panel is None else f"{panel}-"
    check_finite(values, f"heatmap {panel or 'of the figure'} ({quantity})", masked)

    cmap, norm = colour_scale(values, quantity, limit)
    if as_image:
        if not np.isfinite(values).all():
            raise ValueError(f"heatmap {panel or 'of the figure'}: as_image draws finite values only")
        ax.add_artist(CellImage(cmap(norm(values), bytes=True)[..., :3], f"{prefix}cells"))
    for i in range(n_q if not as_image else 0):
        for j in range(n_k):
            v = values[i, j]
            fill = MASKED_FILL if not np.isfinite(v) else cmap(norm(v))
            cell = Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=fill, edgecolor=CELL_EDGE, linewidth=0.6,
                             gid=f"{prefix}cell-{i}-{j}")
            if not np.isfinite(v):
                cell.set_hatch("///")
            # Cells and their numbers sit inside the axes: left out of the data limits (set below) and out
            # of constrained layout, which would otherwise measure every one of them (most of a figure's time).
            cell.set_in_layout(False)
            ax.add_artist(cell)
            if show_values:
                ax.text(j, i, cell_number(v), ha="center", va="center", fontsize=fontsize,
                        color=text_colour(fill), gid=f"{prefix}value-{i}-{j}").set_in_layout(False)

    ax.set_xlim(-0.5, n_k - 0.5)
    ax.set_ylim(n_q - 0.5, -0.5)  # query 0 on top
    ax.set_aspect("equal")
    ax.set_xticks(range(n_k), labels=col_labels)
    ax.set_yticks(range(n_q), labels=row_labels)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.tick_params(length=0)
    keys, queries = axis_titles()
    ax.set_xlabel(keys, labelpad=6)
    ax.set_ylabel(queries, labelpad=6)
    for spine in ax.spines.values():
        spine.set_linewidth(0.8)  # black here, the page's text colour once inlined
    if title:
        ax.text(0.5, -0.03, title, transform=ax.transAxes, ha="center", va="top", fontsize=fontsize + 1)
    if colorbar:
        mappable = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
        bar = ax.figure.colorbar(mappable, ax=ax, fraction=0.046, pad=0.04)
        bar.outline.set_visible(False)
        bar.ax.tick_params(labelsize=fontsize - 1, length=2)
        bar.solids.set_edgecolor("face")
        bar.solids.set_rasterized(True)  # one small embedded PNG instead of 256 SVG paths

    return DrawnHeatmap(panel, quantity, values, list(row_labels), list(col_labels), head, as_image)


class CellImage(Artist):
    """A heatmap's cells as one RGB PNG, one pixel per cell (pixelated when scaled), written straight into the
    SVG over the cells' extent: matplotlib's imshow would resample it to the figure's resolution."""

    def __init__(self, rgb, gid):
        super().__init__()
        self.rgb, self.id = np.ascontiguousarray(rgb, dtype=np.uint8), gid
        self.set_in_layout(False)

    def draw(self, renderer):
        n_q, n_k, _ = self.rgb.shape
        (x0, y0), (x1, y1) = self.axes.transData.transform([(-0.5, -0.5), (n_k - 0.5, n_q - 0.5)])
        if not hasattr(renderer, "writer"):  # a raster (the PNG download): each cell a block of whole pixels
            self._draw_raster(renderer, x0, y1, x1 - x0, y0 - y1)
            return
        buffer = io.BytesIO()
        Image.fromarray(self.rgb, mode="RGB").save(buffer, format="png", optimize=True)
        renderer.writer.element("image", x=f"{x0:.2f}", y=f"{renderer.height - y0:.2f}", width=f"{x1 - x0:.2f}",
                                height=f"{y0 - y1:.2f}", attrib={
                                    "id": self.id, "preserveAspectRatio": "none", "style": "image-rendering:pixelated",
                                    "xlink:href": "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")})

    def _draw_raster(self, renderer, left, bottom, width, height):
        n_q, n_k, _ = self.rgb.shape
        rows = np.minimum(np.arange(round(height)) * n_q // max(round(height), 1), n_q - 1)
        cols = np.minimum(np.arange(round(width)) * n_k // max(round(width), 1), n_k - 1)
        block = self.rgb[rows][:, cols]
        rgba = np.dstack([block, np.full(block.shape[:2], 255, np.uint8)])
        gc = renderer.new_gc()
        renderer.draw_image(gc, round(left), round(bottom), rgba[::-1])
        gc.restore()


def colour_scale(values, quantity, limit=None):
    """(cmap, norm): weights on [0, 1] sequential; scores diverging, symmetric about 0."""
    if quantity == "weights":
        return mpl.colormaps[WEIGHT_CMAP], Normalize(0.0, 1.0)
    finite = values[np.isfinite(values)]
    if limit is None:
        limit = float(np.abs(finite).max()) if finite.size else 1.0
    limit = limit or 1.0
    return mpl.colormaps[SCORE_CMAP], TwoSlopeNorm(0.0, -limit, limit)


def luminance(colour):
    """WCAG's relative luminance of a matplotlib colour (0 black, 1 white)."""
    return sum(weight * _linear(channel) for weight, channel in zip(LUMINANCE_WEIGHTS, mpl.colors.to_rgb(colour)))


def _linear(c):
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


# Dark text contrasts more than light text with a fill at least this luminous: the luminance L at which
# (L + 0.05) / (dark + 0.05) = (light + 0.05) / (L + 0.05), to 4 decimals (short, for the page's JavaScript).
# Over both colour scales the text chosen so contrasts at least 4.5:1 with its cell (tests/test_contract.py).
TEXT_THRESHOLD = round(((luminance(DARK_TEXT) + 0.05) * (luminance(LIGHT_TEXT) + 0.05)) ** 0.5 - 0.05, 4)


def text_colour(fill):
    """Dark or light text, whichever contrasts more with `fill` (WCAG): the interactive heatmap's rule too."""
    return DARK_TEXT if luminance(fill) >= TEXT_THRESHOLD else LIGHT_TEXT


def scale_nodes(quantity):
    """The colours the interactive heatmap interpolates between for `quantity`, as hex "rrggbb" from dark end to
    bright: the diverging map's own nodes (it is linear between them), the sequential map at 21 evenly spaced
    points (within 4/255 of matplotlib's everywhere between, tests/browser/test_parity.py)."""
    cmap = mpl.colormaps[WEIGHT_CMAP if quantity == "weights" else SCORE_CMAP]
    if quantity == "weights":
        rgb = cmap(np.linspace(0, 1, 21))[:, :3]
    else:
        rgb = np.array([[node[1] for node in cmap._segmentdata[c]] for c in ("red", "green", "blue")]).T
    return [mpl.colors.to_hex(colour)[1:] for colour in np.round(rgb * 255) / 255]
