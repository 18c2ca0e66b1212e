"""Attention as a weighted average (docs/index.md): the running sentence's weights, shown before anything else."""
from ..engine import example_heatmap
from ..engine.style import PHONE_WIDTH
from .softmax import EX_SOFTMAX

PAGE = "index.md"


def weights_caption(example):
    return (
        f"Attention weights for “{' '.join(example['tokens'])}”. Each row is one query and adds up to 1; "
        "column j says how much of key j's value that query takes. Brighter means more."
    )


ITEMS = [
    example_heatmap("home-weights", EX_SOFTMAX, "weights", size=(PHONE_WIDTH, 3.2),
                    title="Attention weights of a five-token sentence: who looks at whom.", caption=weights_caption,
                    controls=()),  # the weights alone: the controls come on the pages that explain them
]
