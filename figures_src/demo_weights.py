"""The demo's attention weights: each row a softmax of the scores beside it."""
from . import ex_demo
from .heatmap import heatmap

EXAMPLE = "ex-demo"
SIZE = (4.6, 3.9)


def data():
    example = ex_demo.example()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"]}


def caption(data):
    return (
        f"Attention weights for “{' '.join(data['tokens'])}”: the softmax of each row of scaled scores. "
        "Every row adds up to 1."
    )


def render(data, ax):
    heatmap(ax, data["weights"], data["tokens"], data["tokens"], quantity="weights")
