"""Softmax (docs/softmax.md): scores become weights, a peaked row and a flat row, and every row's entropy."""
import numpy as np

from ..engine import Example, Figure
from ..engine.heatmap import heatmap
from ..engine.style import PHONE_WIDTH
from ..engine.text import num, rounding_note, softmax_by_hand, table
from . import sentences


def peaked_and_flat(example):
    """Row indices of the lowest- and highest-entropy rows."""
    entropy = example["steps"]["entropy"]
    return int(np.argmin(entropy)), int(np.argmax(entropy))


def row_table(example, i):
    """One row of scores taken to weights, every intermediate in its own column."""
    tokens, steps = example["tokens"], example["steps"]
    s, w = steps["scaled_scores"][i], steps["weights"][i]
    hand = softmax_by_hand(s, w)  # every column from the printed column before it
    rows = [[f"**{t}**", num(a, 3), *printed]
            for t, a, *printed in zip(tokens, s, hand["exponentials"], hand["weights"], hand["entropy_terms"])]
    rows.append(["**total**", "", hand["total"], hand["weight_total"], f"**{hand['entropy']}**"])
    exact = num(steps["entropy"][i], 4)
    # the last column is worked from the printed a_j, so that it checks out by hand; say so where its total
    # then differs from the entropy at full precision (the JSON's, and the summary's)
    note = ("" if hand["entropy"] == exact else
            f"\nThe last column is worked from the printed $a_j$, so its total, {hand['entropy']}, differs "
            f"slightly from the entropy at full precision, {exact}.\n")
    return table(["key $j$", "$\\tilde{s}_j$", "$e^{\\tilde{s}_j - \\tilde{s}_{\\max}}$", "$a_j$", "$-a_j \\ln\\, a_j$"], rows) + note


def softmax_snippets(example):
    tokens, entropy = example["tokens"], example["steps"]["entropy"]
    peaked, flat = peaked_and_flat(example)
    n = len(tokens)
    return {
        "peaked": row_table(example, peaked),
        "flat": row_table(example, flat),
        "summary": (
            f"The row of “{tokens[peaked]}” is the most peaked in the table: entropy "
            f"{num(entropy[peaked])} nats. The row of “{tokens[flat]}” is the flattest: {num(entropy[flat])} nats, "
            f"close to the ceiling $\\ln\\, {n} \\approx {num(np.log(n))}$ that an even split over {n} keys would reach."
        ),
    }


EX_SOFTMAX = Example("ex-softmax", title="Softmax weights and row entropies of a five-token sentence",
                     data=lambda: sentences.self_attention_example(sentences.RUNNING), snippets=softmax_snippets)


def rows_data():
    example = EX_SOFTMAX.compute()
    entropy = example["steps"]["entropy"]
    peaked, flat = peaked_and_flat(example)
    return {
        "tokens": example["tokens"],
        "rows": [peaked, flat],
        "scaled_scores": example["steps"]["scaled_scores"][[peaked, flat]],
        "weights": example["steps"]["weights"][[peaked, flat]],
        "entropy": entropy[[peaked, flat]],
    }


def row_label(data, k):
    return f"query “{data['tokens'][data['rows'][k]]}”, entropy {num(data['entropy'][k])} nats"


def rows_caption(data):
    return (
        f"The most peaked row of the heatmap ({row_label(data, 0)}) and the flattest ({row_label(data, 1)}). "
        f"Each bar is one key's weight; the bars of a row add up to 1. "
        + rounding_note(data["weights"], [data["tokens"][i] for i in data["rows"]])
    ).strip()


def rows_alt(data):
    parts = [
        f"Bar chart for {row_label(data, k)}: " + ", ".join(
            f"{t} {num(w)}" for t, w in zip(data["tokens"], data["weights"][k])
        ) + "."
        for k in range(2)
    ]
    return " ".join(parts)


def rows_table(data):
    return {
        "caption": "Scaled scores and weights of the two rows",
        "columns": ["row", *data["tokens"], "entropy"],
        "rows": [
            [f"{kind} of “{data['tokens'][data['rows'][k]]}”", *values, data["entropy"][k] if kind == "weights" else ""]
            for k in range(2)
            for kind, values in (("scores", data["scaled_scores"][k]), ("weights", data["weights"][k]))
        ],
    }


def rows_render(data, fig):
    axes = fig.subplots(2, 1, sharex=True)  # one above the other: each row keeps a phone's full width
    x = np.arange(len(data["tokens"]))
    for k, (ax, colour) in enumerate(zip(axes, ("#D55E00", "#0072B2"))):
        ax.bar(x, data["weights"][k], width=0.7, color=colour)
        for j, w in enumerate(data["weights"][k]):
            ax.text(j, w + 0.02, num(w), ha="center", va="bottom")
        ax.set_xticks(x, labels=data["tokens"])
        ax.set_ylim(0, 1.25)  # head-room above a bar near 1 for its label; the axis itself ends at 1, the largest weight
        ax.set_yticks([0, 0.5, 1], labels=[num(t, 1, True) for t in (0, 0.5, 1)])
        ax.spines["left"].set_bounds(0, 1)
        ax.set_ylabel("weight")
        ax.set_title(row_label(data, k))
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)


def entropy_data():
    example = EX_SOFTMAX.compute()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"], "entropy": example["steps"]["entropy"]}


def entropy_caption(data):
    n = len(data["tokens"])
    return (
        f"Left: the weights, one row per query. Right: each row's entropy in nats, from 0 (all weight on one key) "
        f"to ln {n} ≈ {num(np.log(n))} (the dotted line: weight spread evenly over all {n} keys)."
    )


def entropy_table(data):
    tokens = data["tokens"]
    return {
        "caption": "Attention weights and row entropy (nats)",
        "columns": ["query \\ key", *tokens, "entropy"],
        "rows": [[t, *row, h] for t, row, h in zip(tokens, data["weights"], data["entropy"])],
    }


def entropy_render(data, fig):
    tokens, entropy = data["tokens"], data["entropy"]
    grid = fig.add_gridspec(1, 2, width_ratios=[len(tokens), 2.2])
    ax = fig.add_subplot(grid[0])
    bars = fig.add_subplot(grid[1])
    drawn = heatmap(ax, data["weights"], tokens, tokens, quantity="weights", colorbar=False)
    rows = np.arange(len(tokens))
    bars.barh(rows, entropy, height=0.6, color="#0072B2")
    for i, h in enumerate(entropy):
        bars.text(h + 0.05, i, num(h), va="center")
    ceiling = np.log(len(tokens))
    bars.axvline(ceiling, color="#9e9e9e", linestyle=":", linewidth=1)
    bars.set_xlim(0, ceiling * 1.45)
    bars.set_ylim(len(tokens) - 0.5, -0.5)
    bars.set_yticks([])
    bars.set_xticks([0, 1])
    bars.xaxis.tick_top()
    bars.xaxis.set_label_position("top")
    bars.set_xlabel("entropy")
    for side in ("right", "bottom", "left"):
        bars.spines[side].set_visible(False)
    return drawn


ITEMS = [
    EX_SOFTMAX,
    Figure("softmax-rows", title="A peaked row and a flat row of the same heatmap.", data=rows_data,
           render=rows_render, caption=rows_caption, alt=rows_alt, table=rows_table, size=(PHONE_WIDTH, 4.4)),
    Figure("softmax-entropy", title="Every row of weights with its entropy beside it.", data=entropy_data,
           render=entropy_render, caption=entropy_caption, table=entropy_table, size=(PHONE_WIDTH, 2.9), example=EX_SOFTMAX,
           controls=("modes", "scale", "readout", "softmax", "entropy")),
]
