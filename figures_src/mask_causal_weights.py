"""Causal mask: the weights of the future are exactly 0."""
from . import ex_mask_causal
from .heatmap import heatmap

EXAMPLE = "ex-mask-causal"
SIZE = (4.4, 3.6)


def data():
    example = ex_mask_causal.example()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"]}


def caption(data):
    return (
        "Weights under the causal mask. Everything above the diagonal is 0; the first query has only "
        "itself to look at, so its weight on itself is 1."
    )


def render(data, ax):
    heatmap(ax, data["weights"], data["tokens"], data["tokens"], quantity="weights")
