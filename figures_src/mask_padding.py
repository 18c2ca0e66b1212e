"""Padding mask: no query looks at a padding position."""
from . import ex_mask_padding, mask_batch_figure

EXAMPLE = "ex-mask-padding"
SIZE = (7.6, 3.6)


def data():
    return mask_batch_figure.data_from(ex_mask_padding.example())


def caption(data):
    return (
        "Weights for a batch of two sequences padded to the same length. The pad columns of the first "
        "sequence are 0 for every query. The pad rows are computed too, but their outputs are thrown away."
    )


def render(data, fig):
    mask_batch_figure.render_batch(data, fig)
