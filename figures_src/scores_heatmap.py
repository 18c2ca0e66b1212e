"""The scaled scores of the five-token sentence, one cell per query-key pair."""
from . import ex_scores
from .heatmap import heatmap

EXAMPLE = "ex-scores"
SIZE = (4.2, 3.6)


def data():
    example = ex_scores.example()
    return {"tokens": example["tokens"], "scaled_scores": example["steps"]["scaled_scores"], "d_k": example["d_k"]}


def caption(data):
    return (
        f"Scaled scores QKᵀ/√{data['d_k']} for “{' '.join(data['tokens'])}”. Row i is query i, column j is key j; "
        "red cells are scores above zero, blue cells below."
    )


def render(data, ax):
    heatmap(ax, data["scaled_scores"], data["tokens"], data["tokens"], quantity="scaled_scores")
