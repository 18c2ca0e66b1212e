"""Nothing a heatmap draws is cut off by its own edge: the downloaded SVG and PNG (engine/downloads.py) keep the
page's layout, so the axis labels, tick labels and colour bar must lie inside the figure there. Measured with
matplotlib's own renderer (Agg, at the PNG's resolution) on the figures as the build draws them; the build itself
refuses a figure that draws past its edge (test_pipeline's label-past-the-edge).
"""
import matplotlib as mpl
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from figures_src import registry
from figures_src.engine import downloads, figures

# Heatmaps of every kind: a colour bar beside 5 tokens (the narrowest, whose "queries" label was cut by 6-10 pt),
# 6 tokens without one, two panels side by side, a padded batch, the real model's 15 tokens drawn as one image.
HEATMAPS = ["home-weights", "scores-heatmap", "demo-weights", "multi-head-heads", "mask-padding", "real-heads-viewer"]


def downloaded_layout(name, monkeypatch):
    """The matplotlib figure of `name` as downloads.standalone_files saved it, and the SVG and PNG it wrote."""
    item = next(item for item in registry.items() if getattr(item, "name", None) == name)
    saved = []
    original = downloads.standalone_files

    def keep(fig, figure_name):
        files = original(fig, figure_name)
        saved.append(fig)
        return files

    monkeypatch.setattr(downloads, "standalone_files", keep)
    files = {}
    figures.draw(item, item.data(), files)
    return saved[0], files


def drawn_tick_labels(axis):
    """The tick labels matplotlib draws: those of ticks within the axis's limits (a colour bar keeps others)."""
    low, high = sorted(axis.get_view_interval())
    return [label for tick, place in zip(axis.get_major_ticks(), axis.get_majorticklocs()) if low <= place <= high
            for label in (tick.label1, tick.label2)]


@pytest.mark.slow
@pytest.mark.parametrize("name", HEATMAPS)
def test_the_downloads_axis_labels_lie_inside_the_figure(name, monkeypatch):
    fig, files = downloaded_layout(name, monkeypatch)
    assert {f"figures/{name}.svg", f"figures/{name}.png"} <= set(files)
    with mpl.rc_context({"svg.fonttype": "path"}):  # as the downloads were drawn
        fig.set_dpi(downloads.PNG_DPI)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()  # the layout engine is off (standalone_files): this is the PNG's layout
        renderer = canvas.get_renderer()
    frame = fig.bbox
    for ax in fig.axes:  # the heatmaps and their colour bars
        for label in [ax.xaxis.label, ax.yaxis.label, *drawn_tick_labels(ax.xaxis), *drawn_tick_labels(ax.yaxis)]:
            if not (label.get_visible() and label.get_text()):
                continue
            box = label.get_window_extent(renderer)
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, (
                f"{name}: “{label.get_text()}” spans x {box.x0:.1f}–{box.x1:.1f}, y {box.y0:.1f}–{box.y1:.1f} px of a "
                f"{frame.width:.0f} × {frame.height:.0f} px PNG: a downloaded figure must show every label whole")
