"""Every head of a real model on the agreement sentence: 6 layers × 12 heads."""
from . import real_heads_common as common

SENTENCE = "agreement"
SIZE = common.GRID_SIZE


def data():
    return common.grid_data(SENTENCE)


def caption(data):
    return common.grid_caption(data)


def render(data, fig):
    common.render_grid(data, fig)


def alt(data):
    return common.grid_alt(data)


def table(data):
    return common.grid_table(data)
