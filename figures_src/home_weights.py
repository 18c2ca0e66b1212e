"""Attention weights of a five-token sentence: who looks at whom."""
from . import ex_softmax
from .heatmap import heatmap

EXAMPLE = "ex-softmax"
SIZE = (4.4, 3.6)


def data():
    example = ex_softmax.example()
    return {"tokens": example["tokens"], "weights": example["outputs"]["weights"]}


def caption(data):
    return (
        f"Attention weights for “{' '.join(data['tokens'])}”. Each row is one query and adds up to 1; "
        "column j says how much of key j's value that query takes. Brighter means more."
    )


def render(data, ax):
    heatmap(ax, data["weights"], data["tokens"], data["tokens"], quantity="weights")
