"""The heads of the multi-head example, side by side."""
from . import ex_multi_head
from .heatmap import heatmap

SIZE = (6.4, 3.3)
# No EXAMPLE: this overview stays a static picture; the per-head figures below it carry data-example.


def data():
    example = ex_multi_head.example()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"], "d_k": example["d_k"]}


def caption(data):
    n_heads = len(data["weights"])
    which = "Both heads'" if n_heads == 2 else f"All {n_heads} heads'"
    return (
        f"{which} weights over the same sentence, side by side, each computed from its own d_k = {data['d_k']} "
        "columns of Q, K and V. Colour only; each head's numbers follow below."
    )


def render(data, fig):
    axes = fig.subplots(1, len(data["weights"]))
    for h, (ax, weights) in enumerate(zip(axes, data["weights"])):
        heatmap(ax, weights, data["tokens"], data["tokens"], quantity="weights", panel=f"h{h}", head=h,
                title=f"head {h}", show_values=False, colorbar=h == len(axes) - 1, fontsize=10)
