"""Every row of weights with its entropy beside it."""
import numpy as np

from . import ex_softmax
from .heatmap import format_number, heatmap

EXAMPLE = "ex-softmax"
SIZE = (5.8, 3.6)


def data():
    example = ex_softmax.example()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"], "entropy": example["steps"]["entropy"]}


def caption(data):
    n = len(data["tokens"])
    return (
        f"Left: the weights, one row per query. Right: each row's entropy in nats, from 0 (all weight on one key) "
        f"to ln {n} ≈ {format_number(np.log(n))} (the dotted line: weight spread evenly over all {n} keys)."
    )


def table(data):
    tokens = data["tokens"]
    return {
        "caption": "Attention weights and row entropy (nats)",
        "columns": ["query \\ key", *tokens, "entropy"],
        "rows": [[t, *row, h] for t, row, h in zip(tokens, data["weights"], data["entropy"])],
    }


def render(data, fig):
    tokens, entropy = data["tokens"], data["entropy"]
    grid = fig.add_gridspec(1, 2, width_ratios=[len(tokens), 2.2])
    ax = fig.add_subplot(grid[0])
    bars = fig.add_subplot(grid[1])
    heatmap(ax, data["weights"], tokens, tokens, quantity="weights", colorbar=False)
    rows = np.arange(len(tokens))
    bars.barh(rows, entropy, height=0.6, color="#0072B2")
    for i, h in enumerate(entropy):
        bars.text(h + 0.05, i, format_number(h), va="center", fontsize=8)
    ceiling = np.log(len(tokens))
    bars.axvline(ceiling, color="#9e9e9e", linestyle=":", linewidth=1)
    bars.set_xlim(0, ceiling * 1.45)
    bars.set_ylim(len(tokens) - 0.5, -0.5)
    bars.set_yticks([])
    bars.set_xticks([0, 1])
    bars.xaxis.tick_top()
    bars.xaxis.set_label_position("top")
    bars.set_xlabel("entropy")
    for side in ("right", "bottom", "left"):
        bars.spines[side].set_visible(False)
