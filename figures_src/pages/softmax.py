"""Softmax (docs/softmax.md): scores become weights, a peaked row and a flat row, and every row's entropy."""
import numpy as np

from ..engine import Example, Figure, Words
from ..engine.heatmap import heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH
from ..engine.text import num, rounding_note, softmax_by_hand, table
from ..engine.words import listed
from . import sentences

WORDS = Words("words/softmax.md")


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
    rows.append([WORDS.line("ex-softmax-row/total-row"), "", hand["total"], hand["weight_total"],
                 f"**{hand['entropy']}**"])
    exact = num(steps["entropy"][i], 4)
    # the last column is worked from the printed a_j, so that it checks out by hand; say so where its total
    # then differs from the entropy at full precision (the JSON's, and the summary's)
    note = ("" if hand["entropy"] == exact else
            "\n" + WORDS.fill("ex-softmax-row/note", total=hand["entropy"], exact=exact) + "\n")
    columns = [WORDS.line("ex-softmax-row/key-column"), "$\\tilde{s}_j$", "$e^{\\tilde{s}_j - \\tilde{s}_{\\max}}$", "$a_j$",
               "$-a_j \\ln\\, a_j$"]
    return table(columns, rows) + note


def softmax_snippets(example):
    tokens, entropy = example["tokens"], example["steps"]["entropy"]
    peaked, flat = peaked_and_flat(example)
    n = len(tokens)
    return {
        "peaked": row_table(example, peaked),
        "flat": row_table(example, flat),
        "summary": WORDS.fill("ex-softmax-summary", peaked=tokens[peaked], peaked_entropy=num(entropy[peaked]),
                              flat=tokens[flat], flat_entropy=num(entropy[flat]), n=n, ceiling=num(np.log(n))),
    }


EX_SOFTMAX = Example("ex-softmax", title=WORDS.line("ex-softmax-title"),
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
    return WORDS.line("softmax-rows/row-label", token=data["tokens"][data["rows"][k]], entropy=num(data["entropy"][k]))


def rows_caption(data):
    return (
        WORDS.line("softmax-rows-caption", peaked=row_label(data, 0), flat=row_label(data, 1)) + " "
        + rounding_note(data["weights"], [data["tokens"][i] for i in data["rows"]])
    ).strip()


def rows_alt(data):
    parts = [
        WORDS.line("softmax-rows-alt/row", row=row_label(data, k), weights=listed(
            [WORDS.line("softmax-rows-alt/weight", token=t, weight=num(w))
             for t, w in zip(data["tokens"], data["weights"][k])], "comma"))
        for k in range(2)
    ]
    return " ".join(parts)


def rows_table(data):
    return {
        "caption": WORDS.line("softmax-rows-table-caption"),
        "columns": [WORDS.line("softmax-rows-table/row-column"), *data["tokens"],
                    WORDS.line("softmax-rows-table/entropy-column")],
        "rows": [
            [WORDS.line(kind, token=data["tokens"][data["rows"][k]]), *values,
             data["entropy"][k] if kind == "softmax-rows-table/weights-row" else ""]
            for k in range(2)
            for kind, values in (("softmax-rows-table/scores-row", data["scaled_scores"][k]),
                                 ("softmax-rows-table/weights-row", data["weights"][k]))
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
        ax.set_ylabel(WORDS.line("softmax-rows/weight-label"))
        ax.set_title(row_label(data, k))
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)


def entropy_data():
    example = EX_SOFTMAX.compute()
    return {"tokens": example["tokens"], "weights": example["steps"]["weights"], "entropy": example["steps"]["entropy"]}


def entropy_caption(data):
    n = len(data["tokens"])
    return WORDS.line("softmax-entropy-caption", n=n, ceiling=num(np.log(n)))


def entropy_table(data):
    tokens = data["tokens"]
    return {
        "caption": WORDS.line("softmax-entropy-table-caption"),
        "columns": [WORDS.line("softmax-entropy-table/corner"), *tokens,
                    WORDS.line("softmax-entropy-table/entropy-column")],
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
    bars.set_xlabel(WORDS.line("softmax-entropy/entropy-label"))
    for side in ("right", "bottom", "left"):
        bars.spines[side].set_visible(False)
    return drawn


def notebook_cells():
    return [
        *sentences.notebook_cells("RUNNING"),
        markdown(WORDS.fill("nb-scaled")),
        code("""
            tokens = list(RUNNING.tokens)
            X = token_vectors(RUNNING)
            W_Q, W_K, W_V = projections(RUNNING)
            Q, K = X @ W_Q, X @ W_K
            S_scaled = attention.scaled_scores(Q, K)
            S_scaled"""),
        markdown(WORDS.fill("nb-row")),
        code("""
            i = 0  # the page's row 1
            s = S_scaled[i]
            exponentials = np.exp(s - s.max())
            print("exponentials:", exponentials, " their sum:", round(exponentials.sum(), 4))
            a = exponentials / exponentials.sum()
            print("weights:", a, " their sum:", round(a.sum(), 4))"""),
        markdown(WORDS.fill("nb-table")),
        code("""
            A = attention.softmax(S_scaled)
            assert np.allclose(A[i], a, rtol=0, atol=1e-12), f"row {i + 1} by hand differs from the library's"
            print("row sums:", A.sum(axis=1))
            A"""),
        markdown(WORDS.fill("nb-heatmap")),
        code("""
            fig, ax = plt.subplots(figsize=(4.4, 3.4))
            heatmap(ax, A, tokens, tokens, quantity="weights")
            plt.show()"""),
        markdown(WORDS.fill("nb-entropy")),
        code("""
            entropy = -(A * np.log(A)).sum(axis=1)
            assert np.allclose(entropy, attention.row_entropy(A), rtol=0, atol=1e-12), "the entropy differs from the library's"
            print("entropy of each row (nats):", entropy)
            print("the most a row of", len(tokens), "can have, ln", len(tokens), "=", round(np.log(len(tokens)), 4))"""),
        markdown(sentences.NOTEBOOK_WORDS.fill("example")),
        code("""
            example = self_attention_example(RUNNING)
            for name, mine in (("scaled_scores", S_scaled), ("weights", A), ("entropy", entropy)):
                assert np.allclose(mine, example["steps"][name], rtol=0, atol=1e-12), (
                    f"{name}: the step by hand differs from the site's own code on the same sentence")"""),
        markdown(WORDS.fill("nb-peaked-flat")),
        source(peaked_and_flat),
        code("""
            peaked, flat = peaked_and_flat(example)
            for name, r in (("peaked", peaked), ("flat", flat)):
                s = S_scaled[r]
                exponentials = np.exp(s - s.max())
                a = exponentials / exponentials.sum()
                terms = -a * np.log(a)
                print(f"the {name} row: row {r + 1} (index {r}), {tokens[r]!r}, entropy {round(terms.sum(), 4)} nats")
                with np.printoptions(precision=5):
                    print(f"  {'scaled scores':>14}", s)
                    for label, values in (("exp(s - s_max)", exponentials), ("weights a_j", a), ("-a_j ln(a_j)", terms)):
                        print(f"  {label:>14}", values, " sum:", round(values.sum(), 5))"""),
    ]


ITEMS = [
    EX_SOFTMAX,
    Figure("softmax-rows", title=WORDS.line("softmax-rows-title"), data=rows_data,
           render=rows_render, caption=rows_caption, alt=rows_alt, table=rows_table, size=(PHONE_WIDTH, 4.4)),
    Figure("softmax-entropy", title=WORDS.line("softmax-entropy-title"), data=entropy_data,
           render=entropy_render, caption=entropy_caption, table=entropy_table, size=(PHONE_WIDTH, 2.9), example=EX_SOFTMAX,
           controls=("modes", "scale", "readout", "softmax", "entropy")),
    notebook("softmax.md", notebook_cells, examples={EX_SOFTMAX: "example"}),
]
