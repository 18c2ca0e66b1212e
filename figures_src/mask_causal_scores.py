"""Causal mask: the future's scores become −∞."""
import numpy as np

from . import ex_mask_causal
from .heatmap import heatmap

EXAMPLE = "ex-mask-causal"
SIZE = (4.4, 3.6)


def data():
    example = ex_mask_causal.example()
    masked = np.where(example["inputs"]["mask"], example["steps"]["scaled_scores"], -np.inf)
    return {"tokens": example["tokens"], "masked_scores": masked}


def caption(data):
    return (
        "Scaled scores after the causal mask: a query may look at itself and the tokens before it. "
        "The grey, hatched cells above the diagonal hold −∞."
    )


def render(data, ax):
    heatmap(ax, data["masked_scores"], data["tokens"], data["tokens"], quantity="scaled_scores")
