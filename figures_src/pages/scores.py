"""Scores (docs/scores.md): every query against every key, the largest score worked out by hand."""
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

import attention

from ..engine import Example, Figure, Words, example_heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH
from ..engine.text import Shown, latex_vector, num, table
from ..engine.words import listed
from . import sentences

WORDS = Words("words/scores.md")


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
    rows.append([WORDS.line("ex-scores-entry/sum-row"), "", "", f"**{num(products.sum(), 2)}**"])
    terms = " + ".join(f"({num(p, 2)})" if p < 0 else num(p, 2) for p in products)
    score, scaled = steps["scores"][i, j], steps["scaled_scores"][i, j]
    d_k = example["d_k"]
    columns = [WORDS.line("ex-scores-entry/entry-column"), WORDS.line("ex-scores-entry/query-column", token=tokens[i]),
               WORDS.line("ex-scores-entry/key-column", token=tokens[j]), WORDS.line("ex-scores-entry/product-column")]
    entry = WORDS.fill(
        "ex-scores-entry", query=tokens[i], row=i + 1, key=tokens[j], column=j + 1, q=latex_vector(q, 1, True),
        k=latex_vector(k, 1, True), table=table(columns, rows).rstrip("\n"), terms=terms, score=num(score, 2), d_k=d_k,
        scale=num(example["scale"], 2, True), scaled=num(scaled, 3, True))
    return {"entry": entry + "\n"}


# ---------------------------------------------------------------- the dot product as arrows

# One query and three keys in two dimensions, small whole numbers so the products are easy to check.
ARROW_QUERY = (2, 1)
ARROW_KEYS = ((WORDS.line("scores-arrows/same"), (1.2, 0.6)), (WORDS.line("scores-arrows/right-angle"), (-1, 2)),
              (WORDS.line("scores-arrows/opposite"), (-1.2, -0.6)))


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
    return WORDS.line(
        "scores-arrows-caption", q=vector_text(data["q"]), same=num(same, 2, True), right=num(right, 2, True),
        opposite=num(opposite, 2, True), d_k=data["d_k"],
        scaled=listed([num(x, 2, True) for x in data["scaled_scores"]]), weight=num(data["weights"][0], 2))


def arrows_alt(data):
    return WORDS.line("scores-arrows-alt", panels=listed([
        WORDS.line("scores-arrows-alt/panel", name=name, k=vector_text(k), score=num(s, 2, True))
        for name, k, s in zip(data["names"], data["K"], data["scores"])], "semicolon"))


def arrows_table(data):
    q = data["q"]
    return {
        "caption": WORDS.line("scores-arrows-table-caption"),
        # the vectors' entries one to a cell (the CSV's numbers), printed as the page writes them: 1.2, −1
        "columns": [WORDS.line("scores-arrows-table/key-column"), *(f"q{sub}" for sub in "₁₂"),
                    *(f"k{sub}" for sub in "₁₂"), "q · k", f"q · k/√{data['d_k']}"],
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
PAIRS_OUTLINED = ("scores-asymmetry/pairs-0", "scores-asymmetry/pairs-1", "scores-asymmetry/pairs-2",
                  "scores-asymmetry/pairs-3", "scores-asymmetry/pairs-4")  # the words for 0 to 4 pairs


def pairs_outlined(count=OUTLINED_PAIRS):
    """The count the title, the caption and the text alternative give: "one mirror-image pair"."""
    return WORDS.line(PAIRS_OUTLINED[count])


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
    pairs = listed([WORDS.line("scores-asymmetry-caption/pair", query=tokens[i], key=tokens[j], score=num(S[i, j]),
                                 reverse=num(S[j, i])) for i, j in asymmetric_pairs(example)], "semicolon")
    return WORDS.line("scores-asymmetry-caption", pairs=pairs_outlined(), scores=pairs)


def asymmetry_alt(example):
    tokens, S = example["tokens"], np.asarray(example["steps"]["scores"])
    pairs = listed([WORDS.line("scores-asymmetry-alt/pair", query=tokens[i], key=tokens[j], score=num(S[i, j]),
                                 reverse=num(S[j, i])) for i, j in asymmetric_pairs(example)], "semicolon")
    return WORDS.line("scores-asymmetry-alt", pairs=pairs_outlined(), scores=pairs)


def asymmetry_table(example):
    tokens, S = example["tokens"], np.asarray(example["steps"]["scores"])
    pairs = asymmetric_pairs(example)
    return {
        "caption": WORDS.line("scores-asymmetry-table-caption/one" if len(pairs) == 1 else
                              "scores-asymmetry-table-caption/many"),
        "columns": [WORDS.line("scores-asymmetry-table/query-column"), WORDS.line("scores-asymmetry-table/key-column"),
                    WORDS.line("scores-asymmetry-table/score-column")],
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
    ax.set_xlabel(WORDS.line("scores-asymmetry/keys-label"), fontsize=10)
    ax.set_ylabel(WORDS.line("scores-asymmetry/queries-label"), fontsize=10)
    for spine in ax.spines.values():
        spine.set_visible(False)


EX_SCORES = Example("ex-scores", title=WORDS.line("ex-scores-title"),
                    data=lambda: sentences.self_attention_example(sentences.RUNNING), snippets=scores_snippets)



def notebook_cells():
    return [
        *sentences.notebook_cells("RUNNING"),
        markdown(WORDS.fill("nb-qk")),
        code("""
            tokens = list(RUNNING.tokens)
            X = token_vectors(RUNNING)
            W_Q, W_K, W_V = projections(RUNNING)
            Q, K = X @ W_Q, X @ W_K
            Q"""),
        markdown(WORDS.fill("nb-scores")),
        code("""
            S = Q @ K.T
            assert np.allclose(S, attention.scores(Q, K), rtol=0, atol=1e-12), "Q K^T differs from attention.scores"
            S"""),
        markdown(WORDS.fill("nb-heatmap")),
        code("""
            fig, ax = plt.subplots(figsize=(4.4, 3.4))
            heatmap(ax, S, tokens, tokens, quantity="scores")
            plt.show()"""),
        markdown(WORDS.fill("nb-example")),
        code("""
            example = self_attention_example(RUNNING)
            assert np.allclose(S, example["steps"]["scores"], rtol=0, atol=1e-12), (
                "S: the step by hand differs from the site's own code on the same sentence")
            example["d_k"], example["scale"]"""),
        markdown(WORDS.fill("nb-entry")),
        source(worked_entry),
        code("""
            i, j = worked_entry(example)
            products = Q[i] * K[j]
            print(f"query {tokens[i]!r} (row {i + 1}, index {i}) against key {tokens[j]!r} (column {j + 1}, index {j})")
            print(products, "add up to", round(products.sum(), 4), "=", round(S[i, j], 4))"""),
        markdown(WORDS.fill("nb-scaled")),
        code("""
            d_k = K.shape[1]
            S_scaled = S / np.sqrt(d_k)
            assert np.allclose(S_scaled, attention.scaled_scores(Q, K), rtol=0, atol=1e-12), (
                "S / √d_k differs from attention.scaled_scores")
            print(f"{round(S[i, j], 4)} / √{d_k} = {round(S_scaled[i, j], 4)}")
            fig, ax = plt.subplots(figsize=(4.4, 3.4))
            heatmap(ax, S_scaled, tokens, tokens, quantity="scaled_scores")
            plt.show()"""),
        markdown(WORDS.fill("nb-asymmetry")),
        code(f"OUTLINED_PAIRS = {OUTLINED_PAIRS!r}"),
        source(asymmetric_pairs),
        code("""
            print(S - S.T)
            for i, j in asymmetric_pairs(example):
                print(f"{tokens[i]!r} asks {tokens[j]!r}: {round(S[i, j], 4)}; {tokens[j]!r} asks {tokens[i]!r}: {round(S[j, i], 4)}")"""),
    ]


ITEMS = [
    Figure("scores-arrows", title=WORDS.line("scores-arrows-title"),
           data=arrows_data, render=arrows_render, caption=arrows_caption, alt=arrows_alt, table=arrows_table,
           size=(4.5, 2.0)),
    EX_SCORES,
    example_heatmap(
        "scores-heatmap", EX_SCORES, "scores", size=(PHONE_WIDTH, 3.2),
        title=WORDS.line("scores-heatmap-title"),
        caption=lambda example: WORDS.line("scores-heatmap-caption", sentence=" ".join(example["tokens"])),
        controls=("readout",),
    ),
    example_heatmap(
        "scores-scaled", EX_SCORES, "scaled_scores", size=(PHONE_WIDTH, 3.2),
        title=WORDS.line("scores-scaled-title"),
        caption=lambda example: WORDS.line("scores-scaled-caption", d_k=example["d_k"], scale=f"{example['scale']:g}"),
        controls=("readout",),
    ),
    Figure("scores-asymmetry", title=WORDS.line("scores-asymmetry-title", pairs=pairs_outlined()),
           data=EX_SCORES.compute, render=asymmetry_render, caption=asymmetry_caption, alt=asymmetry_alt,
           table=asymmetry_table, size=(3.8, 3.4)),
    notebook("scores.md", notebook_cells, examples={EX_SCORES: "example"}),
]
