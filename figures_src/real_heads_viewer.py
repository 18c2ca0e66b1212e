"""The head viewer: one head's weights, any head, chosen from the grids."""
from .real_heads_common import head_figure

data, _, render, __getattr__ = head_figure("coreference")  # it opens on the head linking "it" to "animal"


def caption(data):
    return (f"It opens on {data['pick'].label}, the head that links “it” to “animal” most strongly. Choose a "
            "thumbnail in any grid above to open that head here; the menu switches between the heads of the "
            "same layer, the slider rescales the scores, and hovering a cell shows how its weight is computed.")
