"""The raw scores QKᵀ of the five-token sentence, one cell per query-key pair."""
from . import ex_scores
from .heatmap import heatmap

EXAMPLE = "ex-scores"
SIZE = (4.4, 3.6)


def data():
    example = ex_scores.example()
    return {"tokens": example["tokens"], "scores": example["steps"]["scores"]}


def caption(data):
    return (
        f"Raw scores QKᵀ for “{' '.join(data['tokens'])}”. Row i is query i, column j is key j; the cell is "
        "q_i · k_j. Red cells are above zero, blue cells below, white is zero."
    )


def render(data, ax):
    heatmap(ax, data["scores"], data["tokens"], data["tokens"], quantity="scores")
