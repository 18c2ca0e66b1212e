"""The demo's scaled scores: one cell per query-key pair."""
from . import ex_demo
from .heatmap import heatmap

EXAMPLE = "ex-demo"
SIZE = (4.6, 3.9)


def data():
    example = ex_demo.example()
    return {"tokens": example["tokens"], "scaled_scores": example["steps"]["scaled_scores"], "d_k": example["d_k"]}


def caption(data):
    return (
        f"Scaled scores QKᵀ/√{data['d_k']} for “{' '.join(data['tokens'])}”: red above zero, blue below. "
        "Row i is query i, column j is key j."
    )


def render(data, ax):
    heatmap(ax, data["scaled_scores"], data["tokens"], data["tokens"], quantity="scaled_scores")
