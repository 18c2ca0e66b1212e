"""The output (docs/output.md): weights times values, the shapes of the two products, and the transformer block."""
from decimal import Decimal

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, PathPatch, Rectangle
from matplotlib.path import Path

from ..engine import Example, Figure, Words
from ..engine.examples import key_size
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH
from ..engine.text import BY_HAND_DIGITS, Shown, by_hand, dims, matrix, num, table, vector
from ..engine.words import SITE_WORDS, listed
from . import sentences

WORDS = Words("words/output.md")


def followed_row(example):
    """The query followed through on the page: the one whose largest weight is the median of the rows',
    so its output is a visible mix rather than a copy of one value or a plain average."""
    top = example["steps"]["weights"].max(axis=-1)
    return int(np.argsort(top)[len(top) // 2])


def weighted_sum_by_hand(w, V, out):
    """One output row as a reader redoes it from the printed numbers: the weights, all with the fewest decimals
    (BY_HAND_DIGITS or more, as heatmap.js's followed row) whose products with the printed values (one decimal)
    add up to the output to 4 decimals.

    -> (digits, weights, values, sums) as Decimals; a product or sum printed with digits + 1 decimals is exact.
    """
    values = [[by_hand(x, 1)[1] for x in vj] for vj in V]
    for digits in range(BY_HAND_DIGITS, 9):
        weights = [by_hand(wj, digits)[1] for wj in w]
        sums = [sum(wj * vj[c] for wj, vj in zip(weights, values)) for c in range(V.shape[1])]
        if all(num(s, 4) == num(x, 4) and (s * 10**4).copy_abs() % 1 != Decimal("0.5") for s, x in zip(sums, out)):
            return digits, weights, values, sums
    raise ValueError(f"no weights of 4 to 8 decimals give the output {vector(out, 4)} by hand")


def output_snippets(example):
    tokens, steps = example["tokens"], example["steps"]
    i = followed_row(example)
    w, V, out = steps["weights"][i], steps["V"], example["outputs"]["out"][i]
    d_v = V.shape[1]
    digits, weights, values, sums = weighted_sum_by_hand(w, V, out)
    exact = digits + 1
    rows = [[f"**{t}**", num(wj, digits), *(num(wj * x, exact) for x in vj)] for t, wj, vj in zip(tokens, weights, values)]
    rows.append([WORDS.line("ex-output-row/sum-row"), num(sum(weights), digits),
                 *(f"**{num(s, exact)}**" for s in sums)])
    columns = [WORDS.line("ex-output-row/key-column"), "$a_j$", *(f"$a_j v_{{j,{c + 1}}}$" for c in range(d_v))]
    return {
        "row": WORDS.fill("ex-output-row", token=tokens[i], row=i + 1, n=len(tokens),
                          table=table(columns, rows).rstrip("\n"), out=", ".join(num(s, 4) for s in sums)) + "\n",
        "v": matrix(V, tokens, dims("", d_v), corner=SITE_WORDS.line("matrix-corner/token"), digits=1, trim=True),
        "out": matrix(example["outputs"]["out"], tokens, dims("", d_v), corner=SITE_WORDS.line("matrix-corner/query"), digits=4),
    }


EX_OUTPUT = Example("ex-output", title=WORDS.line("ex-output-title"),
                    data=lambda: sentences.self_attention_example(sentences.RUNNING), snippets=output_snippets)


# ---------------------------------------------------------------- the weighted sum as value bars


def sharpest_row(example):
    """The query whose largest weight is the largest of all rows': its output is nearly one value row."""
    return int(np.argmax(example["steps"]["weights"].max(axis=-1)))


def blend_data():
    example = EX_OUTPUT.compute()
    i = sharpest_row(example)
    w, V = example["steps"]["weights"][i], example["steps"]["V"]
    return {"tokens": example["tokens"], "query": i, "w": w, "V": V, "scaled": w[:, None] * V,
            "out": example["outputs"]["out"][i], "top": int(np.argmax(w))}


def blend_caption(data):
    tokens, i, top = data["tokens"], data["query"], data["top"]
    return WORDS.line("output-blend-caption", query=tokens[i], top=tokens[top], weight=num(data["w"][top], 4))


def blend_alt(data):
    tokens, i = data["tokens"], data["query"]
    return WORDS.line(
        "output-blend-alt", query=tokens[i],
        weights=listed([WORDS.line("output-blend-alt/weight", token=t, weight=num(w, 4))
                         for t, w in zip(tokens, data["w"])], "semicolon"),
        out=vector(data["out"], 4), top=tokens[data["top"]], value=vector(data["V"][data["top"]], 1))


def blend_table(data):
    """Every term is the printed weight times the printed value, exactly, so each column adds up by hand."""
    tokens = data["tokens"]
    d_v = data["V"].shape[1]
    digits, weights, values, sums = weighted_sum_by_hand(data["w"], data["V"], data["out"])
    rows = [[WORDS.line("output-blend-table/key-row", token=t, weight=num(w, digits)),
             *(Shown(float(w * x), num(w * x, digits + 1)) for x in vj)]
            for t, w, vj in zip(tokens, weights, values)]
    rows.append([WORDS.line("output-blend-table/sum-row"), *(Shown(float(s), num(s, digits + 1)) for s in sums)])
    return {"caption": WORDS.line("output-blend-table-caption", query=tokens[data["query"]]),
            "columns": [WORDS.line("output-blend-table/key-column"), *entry_labels(d_v)], "rows": rows}


def entry_labels(d_v):
    """"entry 1" … "entry d_v": the table's columns and the figure's ticks, counted from 1."""
    return [WORDS.line("output-blend-table/entry-column", entry=c + 1) for c in range(d_v)]


def box(x, y, width, height):
    """A closed rectangle path from (x, y), `height` up (or down, when negative)."""
    return Path([(x, y), (x + width, y), (x + width, y + height), (x, y + height), (x, y)], closed=True)


def blend_render(data, ax):
    tokens, V, scaled, out, top = data["tokens"], data["V"], data["scaled"], data["out"], data["top"]
    n, d_v = V.shape
    half = 0.42 / np.abs(np.vstack([V, out[None]])).max()  # the tallest bar fills 0.42 of a row
    width = 0.6
    rows = [(f"{t}\n$a_j = {num(w, 3)}$", v, sv, "#0072B2") for t, w, v, sv in zip(tokens, data["w"], V, scaled)]
    rows.append((WORDS.line("output-blend/output-label"), V[top], out, "#D55E00"))
    # Every bar of one kind is one compound path: one SVG element per kind instead of one per bar.
    outlines, fills = [], {colour: [] for *_, colour in rows}
    baselines = []
    for r, (label, outline, filled, colour) in enumerate(rows):
        y = -r - (0.35 if r == n else 0)  # a gap before the output row
        baselines += [(-0.5, y), (d_v - 0.5, y)]
        for c in range(d_v):
            outlines.append(box(c - width / 2, y, width, outline[c] * half))
            fills[colour].append(box(c - width * 0.35, y, width * 0.7, filled[c] * half))
        ax.text(-0.6, y, label, ha="right", va="center", fontsize=10)
    ax.add_patch(PathPatch(Path.make_compound_path(*outlines), fill=False, edgecolor="#000000", linewidth=0.7,
                           linestyle="--", alpha=0.6))
    for colour, boxes in fills.items():
        ax.add_patch(PathPatch(Path.make_compound_path(*boxes), facecolor=colour, alpha=0.85, linewidth=0))
    ax.add_patch(PathPatch(Path(baselines, [Path.MOVETO, Path.LINETO] * (len(baselines) // 2)), fill=False,
                           edgecolor="#000000", linewidth=0.5, alpha=0.5))
    ax.set_xlim(-0.5, d_v - 0.5)
    ax.set_ylim(-n - 0.35 - 0.55, 0.55)
    ax.set_xticks(range(d_v), labels=entry_labels(d_v), fontsize=10)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


# ---------------------------------------------------------------- word order: permute the tokens

# The running sentence in another order (indices into its tokens, from 0 as in the JSON).
ORDER = (4, 2, 3, 0, 1)


def permutation_example():
    sentence = sentences.RUNNING
    X = sentences.token_vectors(sentence)[list(ORDER)]
    W_Q, W_K, W_V = sentences.projections(sentence)
    steps = sentences.attention_steps(X, W_Q, W_K, W_V)
    out = steps.pop("out")
    return {
        "seed": sentence.seed,
        "tokens": [sentence.tokens[k] for k in ORDER],
        "order": list(ORDER),
        **key_size(sentence.d_k),
        "inputs": {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
        "steps": steps,
        "outputs": {"out": out, "weights": steps["weights"]},
    }


def permutation_snippets(example):
    original = EX_OUTPUT.compute()
    order = example["order"]
    tokens = example["tokens"]
    out, out_before = example["outputs"]["out"], original["outputs"]["out"]
    same = np.allclose(out, out_before[list(order)], rtol=0, atol=1e-12)
    verdict = WORDS.fill("ex-permutation-verdict/same" if same else "ex-permutation-verdict/different")
    return {
        "order": WORDS.fill("ex-permutation-order", sentence=" ".join(tokens)),
        "before": matrix(out_before, original["tokens"], dims("", out.shape[1]), corner=SITE_WORDS.line("matrix-corner/query"), digits=4),
        "after": matrix(out, tokens, dims("", out.shape[1]), corner=SITE_WORDS.line("matrix-corner/query"), digits=4),
        "verdict": verdict,
    }


EX_PERMUTATION = Example("ex-permutation", title=WORDS.line("ex-permutation-title"),
                         data=permutation_example, snippets=permutation_snippets)


# ---------------------------------------------------------------- the shapes of the two products

SHAPE_COLOURS = {"Q": "#0072B2", "Kᵀ": "#E69F00", "scores": "#D55E00", "weights": "#CC79A7", "V": "#009E73", "out": "#56B4E9"}
# how a matrix is named on the figure: two are words, the rest symbols
SHAPE_NAMES = {"scores": WORDS.line("output-shapes/scores"), "weights": WORDS.line("output-shapes/weights"),
               "out": WORDS.line("output-shapes/out")}  # Q, Kᵀ and V are symbols, the same in every language


def shape_name(name):
    return SHAPE_NAMES.get(name, name)


def shapes_data():
    example = EX_OUTPUT.compute()
    n, d_k = example["steps"]["Q"].shape
    d_v = example["steps"]["V"].shape[1]
    return {"n": n, "d_k": d_k, "d_v": d_v}


def shape_rows(data):
    n, d_k, d_v = data["n"], data["d_k"], data["d_v"]
    return [
        [("Q", n, d_k), ("Kᵀ", d_k, n), ("scores", n, n)],  # the weights come after scaling and the softmax
        [("weights", n, n), ("V", n, d_v), ("out", n, d_v)],
    ]


def shapes_caption(data):
    return WORDS.line("output-shapes-caption", n=data["n"], d_k=data["d_k"], d_v=data["d_v"])


def shapes_alt(data):
    return " ".join(
        WORDS.line("output-shapes-alt/product", left=shape_name(a), left_rows=ra, left_columns=ca, right=shape_name(b),
                   right_rows=rb, right_columns=cb, result=shape_name(c), result_rows=rc, result_columns=cc)
        for (a, ra, ca), (b, rb, cb), (c, rc, cc) in shape_rows(data)
    )


def shapes_table(data):
    return {
        "caption": WORDS.line("output-shapes-table-caption"),
        "columns": [WORDS.line("output-shapes-table/product-column"), WORDS.line("output-shapes-table/left-column"),
                    WORDS.line("output-shapes-table/right-column"), WORDS.line("output-shapes-table/result-column")],
        "rows": [
            [WORDS.line("output-shapes-table/product", left=shape_name(a), right=shape_name(b)),
             WORDS.line("output-shapes-table/shape", rows=ra, columns=ca),
             WORDS.line("output-shapes-table/shape", rows=rb, columns=cb),
             WORDS.line("output-shapes-table/result", result=shape_name(c), rows=rc, columns=cc)]
            for (a, ra, ca), (b, rb, cb), (c, rc, cc) in shape_rows(data)
        ],
    }


def draw_matrix(ax, x, y, name, rows, cols):
    """A rows × cols grid of unit squares with its top-left corner at (x, y); returns its right edge."""
    for i in range(rows):
        for j in range(cols):
            ax.add_patch(Rectangle((x + j, y - i - 1), 1, 1, facecolor=SHAPE_COLOURS[name], alpha=0.55,
                                   edgecolor="#000000", linewidth=0.4))
    ax.text(x + cols / 2, y + 0.4, shape_name(name), ha="center", va="bottom", fontsize=11)
    ax.text(x + cols / 2, y - rows - 0.4, f"{rows} × {cols}", ha="center", va="top", fontsize=10)
    return x + cols


def shapes_render(data, ax):
    top = 0
    for row in shape_rows(data):
        x = 0
        for k, (name, r, c) in enumerate(row):
            x = draw_matrix(ax, x, top, name, r, c)
            if k < 2:
                ax.text(x + 1, top - data["n"] / 2, "·" if k == 0 else "=", ha="center", va="center", fontsize=16)
                x += 2
        top -= data["n"] + 3.4
    ax.set_xlim(-0.5, 2 * data["n"] + data["d_k"] + 4.5)
    ax.set_ylim(top + 1.6, 1.6)
    ax.set_aspect("equal")
    ax.axis("off")


# ---------------------------------------------------------------- where attention sits in a block

# (label, kind): kind "box" is a layer, "add" the sum with the residual path.
BLOCK_STEPS = [
    (WORDS.line("output-block/input"), "io"),
    (WORDS.line("output-block/norm"), "box"),
    (WORDS.line("output-block/attention"), "attn"),
    ("+", "add"),
    (WORDS.line("output-block/norm"), "box"),
    (WORDS.line("output-block/feed-forward"), "box"),
    ("+", "add"),
    (WORDS.line("output-block/output"), "io"),
]
FILLS = {"box": "#56B4E9", "attn": "#E69F00", "io": "none", "add": "none"}


def block_data():
    return {"steps": BLOCK_STEPS}


def block_caption(data):
    return WORDS.line("output-block-caption")


def block_alt(data):
    said = [WORDS.line("output-block-alt/add") if kind == "add" else
            label.replace("n × d_model", WORDS.line("output-block-alt/width")) for label, kind in data["steps"]]
    steps = said[0]
    for step in said[1:]:
        steps = WORDS.line("output-block-alt/next", steps=steps, step=step)
    return WORDS.line("output-block-alt", steps=steps)


def block_table(data):
    return {
        "caption": WORDS.line("output-block-table-caption"),
        "columns": [WORDS.line("output-block-table/step-column"), WORDS.line("output-block-table/what-column")],
        "rows": [[str(k + 1), WORDS.line("output-block-table/add") if kind == "add" else label]
                 for k, (label, kind) in enumerate(data["steps"])],
    }


def block_render(data, ax):
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
            shown = label.replace("d_model", r"$d_{\mathrm{model}}$").replace(" × ", r" $\times$ ")  # mathtext
            ax.text(0, y, shown, ha="center", va="center", fontsize=9, weight="bold" if kind == "attn" else None)
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
        ax.text(2.2, (y0 + y1) / 2, WORDS.line("output-block/residual"), rotation=90, ha="left", va="center",
                fontsize=8)
        start = k
    ax.set_xlim(-1.8, 2.7)
    ax.set_ylim(-0.5, ys[-1] + 0.5)
    ax.set_aspect("equal")
    ax.axis("off")


def notebook_cells():
    return [
        *sentences.notebook_cells("RUNNING"),
        markdown(WORDS.fill("nb-weights")),
        code("""
            tokens = list(RUNNING.tokens)
            X = token_vectors(RUNNING)
            W_Q, W_K, W_V = projections(RUNNING)
            Q, K, V = X @ W_Q, X @ W_K, X @ W_V
            A = attention.softmax(attention.scaled_scores(Q, K))
            A"""),
        markdown(WORDS.fill("nb-output")),
        code("""
            O = A @ V
            print(A.shape, "@", V.shape, "->", O.shape)
            O"""),
        markdown(sentences.NOTEBOOK_WORDS.fill("example")),
        code("""
            example = self_attention_example(RUNNING)
            assert np.allclose(O, example["outputs"]["out"], rtol=0, atol=1e-12), (
                "out: the step by hand differs from the site's own code on the same sentence")
            assert np.allclose(O, attention.attend(Q, K, V)[0], rtol=0, atol=1e-12), "A V differs from attention.attend's output"
"""),
        markdown(WORDS.fill("nb-row")),
        source(followed_row, sharpest_row),
        code("""
            i = followed_row(example)
            terms = A[i][:, None] * V  # row j: a_j times v_j
            print(f"query {tokens[i]!r} (row {i + 1}, index {i}); its weights a_j:", A[i])
            print(terms)
            print("added up:", terms.sum(axis=0), f" row {i + 1} of O (index {i}):", O[i])"""),
        markdown(WORDS.fill("nb-blend")),
        code(f"""
            def draw_blend(i):
                terms = A[i][:, None] * V
                entries = np.arange(V.shape[1])
                width = 0.8 / (len(tokens) + 1)
                fig, ax = plt.subplots(figsize=(6.4, 3.4))
                for j, token in enumerate(tokens):
                    ax.bar(entries + j * width, terms[j], width, label=f"{{token}}: a_j = {{A[i, j]:.3f}}")
                ax.bar(entries + len(tokens) * width, O[i], width, color="#000000",
                       label={WORDS.line("output-blend/output-label")!r})
                ax.axhline(0, color="#000000", linewidth=0.5)
                ax.set_xticks(entries + len(tokens) * width / 2, labels=[str(c + 1) for c in entries])  # from 1
                ax.set_title(f"{{tokens[i]!r}} (row {{i + 1}})")
                ax.legend(frameon=False, fontsize=8, bbox_to_anchor=(1, 1), loc="upper left")
                plt.show()


            draw_blend(i)
            draw_blend(sharpest_row(example))"""),
        markdown(WORDS.fill("nb-permutation")),
        code(f"""
            import types

            sentences = types.SimpleNamespace(RUNNING=RUNNING, token_vectors=token_vectors, projections=projections,
                                              attention_steps=attention_steps)
            ORDER = {ORDER!r}  # the page's order of its tokens, each index 0 … n − 1 once
            if sorted(ORDER) != list(range(RUNNING.n)):  # another sentence: take its tokens in reverse
                ORDER = tuple(reversed(range(RUNNING.n)))"""),
        source(permutation_example),
        code("""
            permuted = permutation_example()
            print(" ".join(permuted["tokens"]))
            assert np.allclose(permuted["outputs"]["out"], O[list(ORDER)], rtol=0, atol=1e-12), (
                "the permuted sentence's outputs are not the old rows in the new order")
            permuted["outputs"]["out"]"""),
    ]


ITEMS = [
    EX_OUTPUT,
    Figure("output-blend", title=WORDS.line("output-blend-title"),
           data=blend_data, render=blend_render, caption=blend_caption, alt=blend_alt, table=blend_table,
           size=(4.4, 4.6)),
    EX_PERMUTATION,
    Figure("output-shapes", title=WORDS.line("output-shapes-title"), data=shapes_data,
           render=shapes_render, caption=shapes_caption, alt=shapes_alt, table=shapes_table, size=(PHONE_WIDTH, 2.9)),
    Figure("output-block", title=WORDS.line("output-block-title"), data=block_data,
           render=block_render, caption=block_caption, alt=block_alt, table=block_table, size=(PHONE_WIDTH, 4.9)),
    notebook("output.md", notebook_cells, examples={EX_OUTPUT: "example", EX_PERMUTATION: "permuted"}),
]
