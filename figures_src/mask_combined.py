"""Padding and causal masks together: the past, and only real tokens."""
from . import ex_mask_combined, mask_batch_figure

EXAMPLE = "ex-mask-combined"
SIZE = (7.6, 3.6)


def data():
    return mask_batch_figure.data_from(ex_mask_combined.example())


def caption(data):
    return (
        "Weights for the same batch with both masks: a query may look at an earlier or equal position "
        "that is not padding. The two masks are combined with a logical and."
    )


def render(data, fig):
    mask_batch_figure.render_batch(data, fig)
