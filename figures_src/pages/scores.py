"""Scores (docs/scores.md): every query against every key, the largest score worked out by hand."""
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

import attention

from ..engine import Example, Figure, example_heatmap
from ..engine.style import PHONE_WIDTH
from ..engine.text import Shown, latex_vector, num, table
from . import sentences


def worked_entry(example):
    """(i, j) of the largest raw score: the pair the page works out by hand."""
    i, j = np.unravel_index(np.argmax(example["steps"]["scores"]), example["steps"]["scores"].shape)
    return int(i), int(j)


def scores_snippets(example):
    tokens, steps = example["tokens"], example["steps"]
    i, j = worked_entry(example)
    q, k = steps["Q"][i], steps["K"][j]
    products = q * k
    rows = [[f"{d + 1}", num(a, 1, True), num(b, 1, True), num(p, 2)] for d, (a, b, p) in enumerate(zip(q, k, products))]
    rows.append(["**sum**", "", "", f"**{num(products.sum(), 2)}**"])
    terms = " + ".join(f"({num(p, 2)})" if p < 0 else num(p, 2) for p in products)
    score, scaled = steps["scores"][i, j], steps["scaled_scores"][i, j]
    d_k = example["d_k"]
    entry = (
        f"The largest raw score in the table is query “{tokens[i]}” (row {i + 1}) against key “{tokens[j]}” "
        f"(column {j + 1}). Its query and key vectors are $q_{{\\text{{{tokens[i]}}}}} = {latex_vector(q, 1, True)}$ and "
        f"$k_{{\\text{{{tokens[j]}}}}} = {latex_vector(k, 1, True)}$. Multiply entry by entry, then add:\n\n"
        + table(["entry", f"q ({tokens[i]})", f"k ({tokens[j]})", "product"], rows)
        + f"\nIn one line: $q_{{\\text{{{tokens[i]}}}}} \\cdot k_{{\\text{{{tokens[j]}}}}}$ = {terms} = {num(score, 2)}.\n\n"
        + f"Scaling by $1/\\sqrt{{d_k}} = 1/\\sqrt{{{d_k}}} = {num(example['scale'], 2, True)}$ gives "
        + f"{num(score, 2)} × {num(example['scale'], 2, True)} = **{num(scaled, 3, True)}**, the number in the scaled table.\n"
    )
    return {"entry": entry}


# ---------------------------------------------------------------- the dot product as arrows

# One query and three keys in two dimensions, small whole numbers so the products are easy to check.
ARROW_QUERY = (2, 1)
ARROW_KEYS = (("same direction", (1.2, 0.6)), ("at a right angle", (-1, 2)), ("opposite", (-1.2, -0.6)))


def arrows_data():
    q = np.array([ARROW_QUERY], dtype=float)  # (1, 2)
    K = np.array([k for _, k in ARROW_KEYS], dtype=float)  # (3, 2)
    row = attention.scores(q, K)[0]  # q · k for each key
    scaled = attention.scaled_scores(q, K)[0]  # q · k / √d_k: what the softmax is given, as on every page
    return {"q": q[0], "K": K, "names": [name for name, _ in ARROW_KEYS], "scores": row, "d_k": q.shape[-1],
            "scaled_scores": scaled, "weights": attention.softmax(scaled)}


def vector_text(v):
    return "(" + ", ".join(num(x, 1, True) for x in v) + ")"


def arrows_caption(data):
    same, right, opposite = data["scores"]
    return (
        f"One query q = {vector_text(data['q'])} (thin arrow) and three keys k (thick orange arrows). Pointing the same way, "
        f"q · k = {num(same, 2, True)}; at a right angle, {num(right, 2, True)}; pointing the opposite way, "
        f"{num(opposite, 2, True)}: the same size, the other sign. Taken as one row of scores and scaled by "
        f"1/√dₖ = 1/√{data['d_k']} first, as the formula does, they become " + ", ".join(num(x, 2, True) for x in data["scaled_scores"][:-1])
        + f" and {num(data['scaled_scores'][-1], 2, True)}, and the softmax gives the first key "
        f"{num(data['weights'][0], 2)} of the weight."
    )


def arrows_alt(data):
    return "Three small panels, each with the query arrow and one key arrow: " + "; ".join(
        f"{name}, key {vector_text(k)}, score {num(s, 2, True)}"
        for name, k, s in zip(data["names"], data["K"], data["scores"])
    ) + "."


def arrows_table(data):
    q = data["q"]
    return {
        "caption": "The query, the three keys, their dot products and the scaled scores",
        # the vectors' entries one to a cell (the CSV's numbers), printed as the page writes them: 1.2, −1
        "columns": ["key", *(f"q{sub}" for sub in "₁₂"), *(f"k{sub}" for sub in "₁₂"), "q · k", f"q · k/√{data['d_k']}"],
        "rows": [[name, *(Shown(float(x), num(x, 1, True)) for x in (*q, *k)),
                  Shown(float(s), " + ".join(f"({num(a, 1, True)})({num(b, 1, True)})" for a, b in zip(q, k))
                        + f" = {num(s, 2, True)}"),
                  Shown(float(scaled), num(scaled, 2, True))]
                 for name, k, s, scaled in zip(data["names"], data["K"], data["scores"], data["scaled_scores"])],
    }


ARROW_REACH = 2.6  # each panel shows -2.6 to 2.6 on both axes
LABEL_GAP = 0.45  # how far a label sits from its arrow's tip, across the arrow (data units)


def arrow_label_positions(data):
    """Per panel, {"k": (x, y), "q": (x, y)}: each label beside its arrow's tip, k to the arrow's right and q to
    its left, so neither lands on a shaft (the key along the query, or a key pointing up, hid its label)."""
    def beside(v, side):
        v = np.asarray(v, dtype=float)
        along = v / np.linalg.norm(v)
        across = np.array([along[1], -along[0]]) * side  # side 1: clockwise from the arrow, its right
        return tuple(v + 0.15 * along + LABEL_GAP * across)

    return [{"k": beside(k, 1), "q": beside(data["q"], -1)} for k in data["K"]]


def arrows_render(data, fig):
    axes = fig.subplots(1, len(data["K"]))
    reach = ARROW_REACH
    for ax, name, k, score, labels in zip(axes, data["names"], data["K"], data["scores"], arrow_label_positions(data)):
        ax.axhline(0, color="#000000", linewidth=0.4, alpha=0.4)
        ax.axvline(0, color="#000000", linewidth=0.4, alpha=0.4)
        # The key first and wider, so a query along the same line stays visible on top of it.
        for v, colour, width, label in ((k, "#E69F00", 3.4, "k"), (data["q"], "#000000", 1.6, "q")):
            ax.add_patch(FancyArrowPatch((0, 0), tuple(v), arrowstyle="-|>", mutation_scale=10 + width, color=colour,
                                         linewidth=width, shrinkA=0, shrinkB=0))
            ax.text(*labels[label], f"${label}$", fontsize=11, ha="center", va="center", color=colour)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach, reach)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(f"$q \\cdot k = {num(score, 2, True).replace('−', '-')}$", fontsize=11)


# ---------------------------------------------------------------- the score table is not symmetric


OUTLINED_PAIRS = 1  # how many pairs the figure outlines: those whose two scores differ most
COUNT_WORDS = ("no", "one", "two", "three", "four")


def pairs_outlined(count=OUTLINED_PAIRS):
    """The count the title, the caption and the text alternative give: "one mirror-image pair"."""
    return f"{COUNT_WORDS[count]} mirror-image pair{'s' if count != 1 else ''}"


def asymmetric_pairs(example):
    """[(i, j), ...]: the OUTLINED_PAIRS pairs whose two scores S_ij and S_ji differ most, S_ij the larger."""
    S = np.asarray(example["steps"]["scores"])
    gap = S - S.T
    order = np.argsort(-gap, axis=None, kind="stable")[:OUTLINED_PAIRS]
    pairs = [tuple(int(v) for v in np.unravel_index(k, gap.shape)) for k in order]
    if len(pairs) < OUTLINED_PAIRS or any(gap[i, j] <= 0 for i, j in pairs):
        raise ValueError(f"scores-asymmetry: the table has fewer than {OUTLINED_PAIRS} pairs whose scores differ")
    return pairs


def asymmetry_caption(example):
    tokens, S = example["tokens"], np.asarray(example["steps"]["scores"])
    pairs = "; ".join(f"query “{tokens[i]}” against key “{tokens[j]}” scores {num(S[i, j])}, but query "
                      f"“{tokens[j]}” against key “{tokens[i]}” only {num(S[j, i])}" for i, j in asymmetric_pairs(example))
    return (
        f"The raw scores again, with {pairs_outlined()} outlined: {pairs}. The table is not "
        "symmetric about its diagonal (grey), because a query and a key come from different matrices."
    )


def asymmetry_alt(example):
    tokens, S = example["tokens"], np.asarray(example["steps"]["scores"])
    pairs = "; ".join(f"{tokens[i]} to {tokens[j]} is {num(S[i, j])}, {tokens[j]} to {tokens[i]} is {num(S[j, i])}"
                      for i, j in asymmetric_pairs(example))
    return f"The five-by-five raw score table with {pairs_outlined()} of cells outlined across the diagonal: {pairs}."


def asymmetry_table(example):
    tokens, S = example["tokens"], np.asarray(example["steps"]["scores"])
    pairs = asymmetric_pairs(example)
    return {
        "caption": f"The outlined pair{'s' if len(pairs) != 1 else ''}, both ways",
        "columns": ["query", "key", "score"],
        "rows": [row for i, j in pairs for row in ([tokens[i], tokens[j], num(S[i, j])], [tokens[j], tokens[i], num(S[j, i])])],
    }


def asymmetry_render(example, ax):
    tokens, S = example["tokens"], np.asarray(example["steps"]["scores"])
    n = len(tokens)
    larger = set(asymmetric_pairs(example))
    smaller = {(j, i) for i, j in larger}
    for r in range(n):
        for c in range(n):
            outlined = (r, c) in larger | smaller
            if outlined:
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="#E69F00" if (r, c) in larger else "#56B4E9",
                                       alpha=0.6, edgecolor="#000000", linewidth=1.6))
            elif r == c:  # the mirror line
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="#9e9e9e", alpha=0.25, linewidth=0))
            ax.text(c, r, num(S[r, c]), ha="center", va="center", fontsize=10,
                    weight="bold" if outlined else None, alpha=1 if outlined else 0.65)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(n), labels=tokens)
    ax.set_yticks(range(n), labels=tokens)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.tick_params(length=0, labelsize=10)
    ax.set_xlabel("keys", fontsize=10)
    ax.set_ylabel("queries", fontsize=10)
    for spine in ax.spines.values():
        spine.set_visible(False)


EX_SCORES = Example("ex-scores", title="Scores for a five-token sentence",
                    data=lambda: sentences.self_attention_example(sentences.RUNNING), snippets=scores_snippets)

ITEMS = [
    Figure("scores-arrows", title="The dot product of a query and a key in two dimensions, three ways.",
           data=arrows_data, render=arrows_render, caption=arrows_caption, alt=arrows_alt, table=arrows_table,
           size=(4.5, 2.0)),
    EX_SCORES,
    example_heatmap(
        "scores-heatmap", EX_SCORES, "scores", size=(PHONE_WIDTH, 3.2),
        title="The raw scores QKᵀ of the five-token sentence, one cell per query-key pair.",
        caption=lambda example: (
            f"Raw scores QKᵀ for “{' '.join(example['tokens'])}”. Row i is query i, column j is key j; the cell is "
            "qᵢ · kⱼ. Red cells are above zero, blue cells below, white is zero."
        ),
        controls=("readout",),
    ),
    example_heatmap(
        "scores-scaled", EX_SCORES, "scaled_scores", size=(PHONE_WIDTH, 3.2),
        title="The scaled scores QKᵀ/√dₖ of the five-token sentence.",
        caption=lambda example: (
            f"The same table divided by √dₖ = √{example['d_k']}, that is multiplied by {example['scale']:g}: "
            "the pattern stays, the numbers shrink. These are the numbers the softmax receives."
        ),
        controls=("readout",),
    ),
    Figure("scores-asymmetry", title=f"The score table is not symmetric: {pairs_outlined()} outlined.",
           data=EX_SCORES.compute, render=asymmetry_render, caption=asymmetry_caption, alt=asymmetry_alt,
           table=asymmetry_table, size=(3.8, 3.4)),
]
