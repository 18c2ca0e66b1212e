"""Where attention sits in a transformer block."""
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

SIZE = (4.4, 5.8)
# (label, kind): kind "box" is a layer, "add" the sum with the residual path.
STEPS = [
    ("input: n × d_model", "io"),
    ("layer normalisation", "box"),
    ("multi-head attention", "attn"),
    ("+", "add"),
    ("layer normalisation", "box"),
    ("feed-forward network", "box"),
    ("+", "add"),
    ("output: n × d_model", "io"),
]
FILLS = {"box": "#56B4E9", "attn": "#E69F00", "io": "none", "add": "none"}


def data():
    return {"steps": STEPS}


def caption(data):
    return (
        "One pre-normalisation transformer block, read from the bottom up. The attention layer mixes "
        "information between positions; each residual path (the line around a layer) adds the layer's input "
        "back to its output; the feed-forward network then works on each position on its own. "
        "(The original transformer normalised after each sum instead of before each layer.)"
    )


def alt(data):
    return "From bottom to top: " + ", then ".join(
        "add the residual" if kind == "add" else label for label, kind in data["steps"]
    ) + "."


def table(data):
    return {
        "caption": "The block, bottom to top",
        "columns": ["step", "what happens"],
        "rows": [[str(k + 1), "add the residual (the input of the sub-layer)" if kind == "add" else label]
                 for k, (label, kind) in enumerate(data["steps"])],
    }


def render(data, ax):
    steps = data["steps"]
    gap = 1.0
    ys = [k * gap for k in range(len(steps))]
    for (label, kind), y in zip(steps, ys):
        if kind == "add":
            ax.add_patch(FancyBboxPatch((-0.22, y - 0.22), 0.44, 0.44, boxstyle="circle,pad=0",
                                        facecolor="none", edgecolor="#000000", linewidth=1))
            ax.text(0, y, "+", ha="center", va="center", fontsize=12)
        else:
            ax.add_patch(FancyBboxPatch((-1.6, y - 0.28), 3.2, 0.56, boxstyle="round,pad=0.02,rounding_size=0.12",
                                        facecolor=FILLS[kind], alpha=0.6 if FILLS[kind] != "none" else 1,
                                        edgecolor="#000000", linewidth=1 if kind != "io" else 0))
            ax.text(0, y, label, ha="center", va="center", fontsize=9, weight="bold" if kind == "attn" else None)
    for y0, y1 in zip(ys, ys[1:]):
        ax.add_patch(FancyArrowPatch((0, y0 + 0.3), (0, y1 - 0.3), arrowstyle="-|>", mutation_scale=10,
                                     color="#000000", linewidth=1))
    adds = [k for k, (_, kind) in enumerate(steps) if kind == "add"]
    start = 0
    for k in adds:  # a residual path from the start of the sub-layer around it to the sum
        y0, y1 = ys[start] + 0.45, ys[k]
        ax.plot([0, 2.1, 2.1], [y0, y0, y1], color="#000000", linewidth=1)
        ax.add_patch(FancyArrowPatch((2.1, y1), (0.24, y1), arrowstyle="-|>", mutation_scale=10,
                                     color="#000000", linewidth=1))
        ax.text(2.2, (y0 + y1) / 2, "residual", rotation=90, ha="left", va="center", fontsize=8)
        start = k
    ax.set_xlim(-1.8, 2.7)
    ax.set_ylim(-0.5, ys[-1] + 0.5)
    ax.set_aspect("equal")
    ax.axis("off")
