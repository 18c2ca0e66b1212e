"""Multi-head attention, head 0: its weights."""
from . import multi_head_figure

EXAMPLE = "ex-multi-head"
SIZE = (4.2, 3.6)


def data():
    return multi_head_figure.head_data(0)


def caption(data):
    return multi_head_figure.head_caption(data)


def render(data, ax):
    multi_head_figure.render_head(data, ax)
