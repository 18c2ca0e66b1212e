"""The one matplotlib style every figure starts from (after rcdefaults, inside an rc_context)."""
from cycler import cycler

from .site import DEFAULT_LANGUAGE, language

DEFAULT_SIZE = (5.0, 3.6)  # inches; a figure may declare its own size


def rc_params(name):
    """rcParams for figure `name`: its own SVG hash salt, text kept as text, black ink for the page to recolour."""
    return {
        "svg.hashsalt": name,
        "svg.fonttype": "none",
        "svg.image_inline": True,
        **fonts(),
        "font.size": 9,
        "text.color": "#000000",
        "axes.edgecolor": "#000000",
        "axes.labelcolor": "#000000",
        "axes.titlesize": 10,
        "axes.labelsize": 12,  # a mathtext label's subscript (0.7 of it) is still 11 CSS px on a phone
        "xtick.color": "#000000",
        "ytick.color": "#000000",
        "axes.prop_cycle": cycler(
            color=["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]  # Okabe-Ito
        ),
        "figure.dpi": 100,
        "path.simplify": True,
    }


def fonts():
    """The fonts' rcParams: DejaVu Sans; in Chinese, Noto Sans SC first, with DejaVu Sans behind it for the glyphs
    it lacks (matplotlib falls back glyph by glyph through font.family). Noto first, because a label that mixes
    words and mathtext ("序列长度 $n$") sets its words in the first family alone; the math stays DejaVu's, as in
    English."""
    if language() == DEFAULT_LANGUAGE:
        return {"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"]}
    from .fonts import FAMILY, chinese_font  # noqa: PLC0415

    chinese_font()
    return {"font.family": [FAMILY, "DejaVu Sans", "sans-serif"], "font.sans-serif": ["DejaVu Sans"]}


def svg_font_family():
    """The font-family matplotlib writes on every text with fonts(): the SVG says it once, on its root
    (engine/svg.py), and a reader's browser sets Chinese in a font of its own where it has no Noto Sans SC."""
    families = fonts()["font.family"]
    if isinstance(families, str):
        return "'DejaVu Sans', sans-serif"
    return ", ".join(name if name == "sans-serif" else f"'{name}'" for name in families)


# ---------------------------------------------------------------- phones
# A 390 px phone gives a figure a column of 358 CSS px; a figure drawn wider is shrunk to fit, and so is its
# text. Figures are drawn at most PHONE_WIDTH wide, so that a phone shows them at full size, and no glyph
# may come out under 11 CSS px there (tests/browser/test_figure_text.py measures it).
PHONE_COLUMN_PX = 358
CSS_PX_PER_INCH = 96  # the SVG's width is in points: 72 a inch, 96 CSS px a inch
PHONE_WIDTH = PHONE_COLUMN_PX / CSS_PX_PER_INCH  # 3.73 in
SMALLEST_PX = 11.2
MATH_SCRIPT = 0.7  # mathtext draws a sub- or superscript at 0.7 of its label's size


def phone_scale(width):
    """How much a figure `width` inches wide is shrunk in a phone's column (1: not at all)."""
    return min(1.0, PHONE_COLUMN_PX / (width * CSS_PX_PER_INCH))


def smallest_size(text, width):
    """The smallest font size (points) for `text` in a figure `width` inches wide: its smallest glyph (a
    mathtext subscript, if it has one) is SMALLEST_PX CSS px on a phone."""
    points = SMALLEST_PX * 72 / CSS_PX_PER_INCH / phone_scale(width)
    return points / MATH_SCRIPT if _has_script(text) else points


def readable_on_phones(fig):
    """Raise every text of `fig` that a phone would draw under SMALLEST_PX to that size (constrained layout
    then makes room). A figure keeps its own sizes where they are larger."""
    from matplotlib.text import Text  # noqa: PLC0415

    width = fig.get_figwidth()
    for ax in fig.axes:  # ticks made later, at drawing time, take their size from the axis
        for axis in (ax.xaxis, ax.yaxis):
            if any(label.get_fontsize() < smallest_size(label.get_text(), width) for label in axis.get_ticklabels()):
                axis.set_tick_params(which="both", labelsize=smallest_size("", width))
    for text in fig.findobj(Text):
        content = text.get_text()
        if content and text.get_visible() and text.get_fontsize() < (size := smallest_size(content, width)):
            text.set_fontsize(size)


def _has_script(text):
    """Whether mathtext in `text` ($...$) has a sub- or superscript."""
    parts = text.split("$")
    return any(("_" in math or "^" in math) for math in parts[1::2])


def weights_colorbar(fig, axes):
    """One colour bar beside weight heatmaps stacked one above the other (drawn with colorbar=False), so
    that they all keep the same width."""
    import matplotlib as mpl  # noqa: PLC0415
    from matplotlib.colors import Normalize  # noqa: PLC0415

    from .heatmap import WEIGHT_CMAP  # noqa: PLC0415

    mappable = mpl.cm.ScalarMappable(norm=Normalize(0.0, 1.0), cmap=mpl.colormaps[WEIGHT_CMAP])
    bar = fig.colorbar(mappable, ax=list(axes), fraction=0.046, pad=0.04, shrink=0.5)
    bar.outline.set_visible(False)
    bar.ax.tick_params(length=2)
    bar.solids.set_edgecolor("face")
    bar.solids.set_rasterized(True)  # one small embedded PNG instead of 256 SVG paths
