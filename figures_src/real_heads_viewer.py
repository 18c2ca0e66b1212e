"""The head viewer: one head's weights, any head, chosen from the grids."""
from . import real_heads_common as common

KIND = "coreference"  # the head it opens on


def __getattr__(name):  # EXAMPLE names the layer the analysis picks, so it is computed when asked for
    if name == "EXAMPLE":
        return common.head_data(KIND)["example"]
    if name == "SIZE":
        return common.head_size(len(common.head_data(KIND)["heads"].tokens))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def data():
    return common.head_data(KIND)


def caption(data):
    return (f"It opens on {data['pick'].label}, the head that links “it” to “animal” most strongly. Choose a "
            "thumbnail in any grid above to open that head here; the menu switches between the heads of the "
            "same layer, the slider rescales the scores, and hovering a cell shows how its weight is computed.")


def render(data, ax):
    common.render_head(data, ax)
