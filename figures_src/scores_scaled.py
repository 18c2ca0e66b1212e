"""The scaled scores QKᵀ/√d_k of the five-token sentence."""
from . import ex_scores
from .heatmap import heatmap

EXAMPLE = "ex-scores"
SIZE = (4.4, 3.6)


def data():
    example = ex_scores.example()
    return {"tokens": example["tokens"], "scaled_scores": example["steps"]["scaled_scores"], "d_k": example["d_k"],
            "scale": example["scale"]}


def caption(data):
    return (
        f"The same table divided by √d_k = √{data['d_k']}, that is multiplied by {data['scale']:g}: the pattern stays, "
        "the numbers shrink. "
        "These are the numbers the softmax receives."
    )


def render(data, ax):
    heatmap(ax, data["scaled_scores"], data["tokens"], data["tokens"], quantity="scaled_scores")
