"""The one matplotlib style every figure starts from (after rcdefaults, inside an rc_context)."""
from cycler import cycler

DEFAULT_SIZE = (5.0, 3.6)  # inches; a figure may declare its own size


def rc_params(name):
    """rcParams for figure `name`: its own SVG hash salt, text kept as text, black ink for the page to recolour."""
    return {
        "svg.hashsalt": name,
        "svg.fonttype": "none",
        "svg.image_inline": True,
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans"],
        "font.size": 9,
        "text.color": "#000000",
        "axes.edgecolor": "#000000",
        "axes.labelcolor": "#000000",
        "axes.titlesize": 10,
        "xtick.color": "#000000",
        "ytick.color": "#000000",
        "axes.prop_cycle": cycler(
            color=["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]  # Okabe-Ito
        ),
        "figure.dpi": 100,
        "path.simplify": True,
    }
