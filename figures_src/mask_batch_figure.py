"""Drawing for the padded batch: one weights heatmap per sequence, side by side."""
from .heatmap import heatmap


def data_from(example):
    return {"batch_tokens": example["batch_tokens"], "weights": example["steps"]["weights"],
            "lengths": example["lengths"]}


def render_batch(data, fig):
    axes = fig.subplots(1, len(data["batch_tokens"]))
    for b, (ax, tokens) in enumerate(zip(axes, data["batch_tokens"])):
        heatmap(ax, data["weights"][b], tokens, tokens, quantity="weights", panel=f"seq{b}",
                title=f"sequence {b}: {data['lengths'][b]} real tokens", colorbar=b == len(axes) - 1)
