"""Drawing for one head of the multi-head example."""
from . import ex_multi_head
from .heatmap import heatmap


def head_data(head):
    example = ex_multi_head.example()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"][head], "head": head,
            "d_k": example["d_k"], "n_heads": example["n_heads"]}


def head_caption(data):
    return (
        f"Head {data['head']} of {data['n_heads']}: its own weights over the same sentence, computed from "
        f"its own d_k = {data['d_k']} columns of Q, K and V."
    )


def render_head(data, ax):
    heatmap(ax, data["weights"], data["tokens"], data["tokens"], quantity="weights", head=data["head"])
