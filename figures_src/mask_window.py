"""Sliding-window mask: each query sees only its last few tokens."""
from . import ex_mask_window
from .heatmap import heatmap

EXAMPLE = "ex-mask-window"
SIZE = (4.6, 3.9)


def data():
    example = ex_mask_window.example()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"], "window": example["window"]}


def caption(data):
    return (
        f"Weights under a sliding window of {data['window']}: query i may look at keys i − {data['window'] - 1} "
        "to i. Outside the band every weight is 0."
    )


def render(data, ax):
    heatmap(ax, data["weights"], data["tokens"], data["tokens"], quantity="weights")
