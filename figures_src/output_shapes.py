"""The shapes of attention's two products."""
from matplotlib.patches import Rectangle

from . import ex_output

SIZE = (5.0, 3.5)
COLOURS = {"Q": "#0072B2", "Kᵀ": "#E69F00", "weights": "#CC79A7", "V": "#009E73", "out": "#56B4E9"}


def data():
    example = ex_output.example()
    n, d_k = example["steps"]["Q"].shape
    d_v = example["steps"]["V"].shape[1]
    return {"n": n, "d_k": d_k, "d_v": d_v}


def _rows(data):
    n, d_k, d_v = data["n"], data["d_k"], data["d_v"]
    return [
        [("Q", n, d_k), ("Kᵀ", d_k, n), ("weights", n, n)],
        [("weights", n, n), ("V", n, d_v), ("out", n, d_v)],
    ]


def caption(data):
    return (
        "Top: (n × d_k)(d_k × n) → n × n, one score per query-key pair, turned into weights by the softmax. "
        f"Bottom: (n × n)(n × d_v) → n × d_v, one output row per query. Drawn for n = {data['n']}, "
        f"d_k = {data['d_k']}, d_v = {data['d_v']}: one square per number."
    )


def alt(data):
    return " ".join(
        f"{a} ({ra} by {ca}) times {b} ({rb} by {cb}) gives {c} ({rc} by {cc})."
        for (a, ra, ca), (b, rb, cb), (c, rc, cc) in _rows(data)
    )


def table(data):
    return {
        "caption": "The two products and their shapes",
        "columns": ["product", "left", "right", "result"],
        "rows": [
            [f"{a} · {b}", f"{ra} × {ca}", f"{rb} × {cb}", f"{c}: {rc} × {cc}"]
            for (a, ra, ca), (b, rb, cb), (c, rc, cc) in _rows(data)
        ],
    }


def _matrix(ax, x, y, name, rows, cols):
    """A rows × cols grid of unit squares with its top-left corner at (x, y); returns its right edge."""
    for i in range(rows):
        for j in range(cols):
            ax.add_patch(Rectangle((x + j, y - i - 1), 1, 1, facecolor=COLOURS[name], alpha=0.55,
                                   edgecolor="#000000", linewidth=0.4))
    ax.text(x + cols / 2, y + 0.4, name, ha="center", va="bottom", fontsize=11)
    ax.text(x + cols / 2, y - rows - 0.4, f"{rows} × {cols}", ha="center", va="top", fontsize=10)
    return x + cols


def render(data, ax):
    top = 0
    for row in _rows(data):
        x = 0
        for k, (name, r, c) in enumerate(row):
            x = _matrix(ax, x, top, name, r, c)
            if k < 2:
                ax.text(x + 1, top - data["n"] / 2, "·" if k == 0 else "=", ha="center", va="center", fontsize=16)
                x += 2
        top -= data["n"] + 2.6
    ax.set_xlim(-0.5, 2 * data["n"] + data["d_k"] + 4.5)
    ax.set_ylim(top + 1.6, 1.6)
    ax.set_aspect("equal")
    ax.axis("off")
