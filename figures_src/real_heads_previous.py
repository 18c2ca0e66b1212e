"""The previous-token head: each word looks at the word before it."""
from . import real_heads_common as common

KIND = "previous"


def __getattr__(name):  # EXAMPLE names the layer the analysis picks, so it is computed when asked for
    if name == "EXAMPLE":
        return common.head_data(KIND)["example"]
    if name == "SIZE":
        return common.head_size(len(common.head_data(KIND)["heads"].tokens))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def data():
    return common.head_data(KIND)


def caption(data):
    return common.head_caption(data)


def render(data, ax):
    common.render_head(data, ax)
