"""A peaked row and a flat row of the same heatmap."""
import numpy as np

from . import ex_softmax
from .heatmap import format_number

SIZE = (6.4, 2.8)


def data():
    example = ex_softmax.example()
    entropy = example["steps"]["entropy"]
    peaked, flat = int(np.argmin(entropy)), int(np.argmax(entropy))
    return {
        "tokens": example["tokens"],
        "rows": [peaked, flat],
        "scaled_scores": example["steps"]["scaled_scores"][[peaked, flat]],
        "weights": example["steps"]["weights"][[peaked, flat]],
        "entropy": entropy[[peaked, flat]],
    }


def _label(data, k):
    return f"query “{data['tokens'][data['rows'][k]]}”, entropy {format_number(data['entropy'][k])} nats"


def caption(data):
    return (
        f"The most peaked row of the heatmap ({_label(data, 0)}) and the flattest ({_label(data, 1)}). "
        f"Each bar is one key's weight; the bars of a row add up to 1."
    )


def alt(data):
    parts = [
        f"Bar chart for {_label(data, k)}: " + ", ".join(
            f"{t} {format_number(w)}" for t, w in zip(data["tokens"], data["weights"][k])
        ) + "."
        for k in range(2)
    ]
    return " ".join(parts)


def table(data):
    return {
        "caption": "Scaled scores and weights of the two rows",
        "columns": ["row", *data["tokens"], "entropy"],
        "rows": [
            [f"{kind} of “{data['tokens'][data['rows'][k]]}”", *values, data["entropy"][k] if kind == "weights" else ""]
            for k in range(2)
            for kind, values in (("scores", data["scaled_scores"][k]), ("weights", data["weights"][k]))
        ],
    }


def render(data, fig):
    axes = fig.subplots(1, 2, sharey=True)
    x = np.arange(len(data["tokens"]))
    for k, (ax, colour) in enumerate(zip(axes, ("#D55E00", "#0072B2"))):
        ax.bar(x, data["weights"][k], width=0.7, color=colour)
        for j, w in enumerate(data["weights"][k]):
            ax.text(j, w + 0.02, format_number(w), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(x, labels=data["tokens"])
        ax.set_ylim(0, 1.12)
        ax.set_title(_label(data, k).replace(", ", "\n"), fontsize=9)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    axes[0].set_ylabel("weight")
