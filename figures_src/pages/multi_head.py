"""Multi-head attention (docs/multi-head.md): two heads on the running sentence, and what more heads cost."""
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

import attention

from ..engine import BuildError, Example, Figure, Snippets, Words, example_heatmap
from ..engine.examples import key_size
from ..engine.heatmap import heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH, weights_colorbar
from ..engine.text import as_many, by_hand, dims, is_tie, matrix, num, table
from ..engine.words import listed
from . import sentences

WORDS = Words("words/multi-head.md")
SEED = 100
N_HEADS = 2


def claim(holds, what):
    if not holds:
        raise BuildError(f"multi-head: the page says {what}, and the data no longer shows it")


def multi_head_weights(sentence):
    """W_Q, W_K, W_V, W_O, each (d_model, d_model) of one-decimal numbers drawn from SEED: every head's columns
    side by side."""
    rng = np.random.default_rng(SEED)
    return tuple(rng.integers(-5, 6, size=(sentence.d_model, sentence.d_model)) / 10 for _ in range(4))


def multi_head_example():
    """The running sentence's X; W_Q, W_K, W_V, W_O (d_model, d_model) of one-decimal numbers."""
    sentence = sentences.RUNNING
    X = sentences.token_vectors(sentence)  # (n, d_model)
    W_Q, W_K, W_V, W_O = multi_head_weights(sentence)
    Q, K, V = (attention.split_heads(X @ W, N_HEADS) for W in (W_Q, W_K, W_V))  # (n_heads, n, d_k)
    heads, weights = attention.attend(Q, K, V)  # (n_heads, n, d_k), (n_heads, n, n)
    concat = attention.merge_heads(heads)  # (n, n_heads · d_k) = (n, d_model)
    out, _ = attention.multi_head_attention(X, W_Q, W_K, W_V, W_O, N_HEADS)
    d_k = sentence.d_model // N_HEADS
    return {
        "seed": SEED,
        "tokens": list(sentence.tokens),
        "n_heads": N_HEADS,
        **key_size(d_k),
        "inputs": {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O},
        "steps": {
            "Q": Q,
            "K": K,
            "V": V,
            "scores": attention.scores(Q, K),
            "scaled_scores": attention.scaled_scores(Q, K),
            "weights": weights,
            "entropy": attention.row_entropy(weights),
            "heads": heads,
            "concat": concat,
        },
        "outputs": {"out": out, "weights": weights},
    }


def head_columns(n_heads, d_k):
    """Labels of the columns of a matrix cut into heads, counted from 1: h1·1 … h1·d_k, h2·1, …"""
    return [f"h{h + 1}·{c + 1}" for h in range(n_heads) for c in range(d_k)]


OUT_DIGITS = 2  # the layer's output, as every table of weights and scores on the page


def concat_digits(concat, W_O, out):
    """The fewest decimals (2 to 6) with which the concatenated heads, as printed, times W_O (one-decimal
    numbers, so the products are exact) give the layer's output as printed, without an exact tie."""
    for digits in range(2, 7):
        printed = [[by_hand(x, digits)[1] for x in row] for row in concat]
        W = [[by_hand(w, 1)[1] for w in row] for row in W_O]
        ok = True
        for row, true_row in zip(printed, out):
            for c, true in enumerate(true_row):
                exact = sum(x * W[r][c] for r, x in enumerate(row))
                if num(exact, OUT_DIGITS) != num(true, OUT_DIGITS) or is_tie(exact, OUT_DIGITS):
                    ok = False
        if ok:
            return digits
    raise BuildError("ex-multi-head: no printing of the concatenated heads to 2 to 6 decimals gives the output by hand")


def multi_head_snippets(example):
    tokens, inputs, steps = example["tokens"], example["inputs"], example["steps"]
    n_heads, d_k = example["n_heads"], example["d_k"]
    n, d_model = steps["concat"].shape
    columns = head_columns(n_heads, d_k)
    # The two views are the same numbers: head g's own W_Q is the same cut applied to W_Q itself.
    for name in ("Q", "K", "V"):
        W = inputs[f"W_{name}"]
        per_head = attention.split_heads(W, n_heads)  # (d_model, d_model) -> (n_heads, d_model, d_k)
        claim(all(np.array_equal(per_head[h], W[:, h * d_k:(h + 1) * d_k]) for h in range(n_heads)),
              f"head g's W_{name} is columns {d_k}(g − 1) + 1 to {d_k}g of W_{name}")
        claim(np.allclose(steps[name], inputs["X"] @ per_head, rtol=0, atol=1e-12),
              f"head g's {name} is X times its own W_{name}")
    digits = concat_digits(steps["concat"], inputs["W_O"], example["outputs"]["out"])
    token, row = WORDS.line("multi-head-corner/token"), WORDS.line("multi-head-corner/row")
    return {
        "shapes": WORDS.fill("ex-multi-head-shapes", d_model=d_model, n_heads=n_heads, d_k=d_k, n=n),
        "x": matrix(inputs["X"], tokens, dims("", d_model), corner=token, digits=0, trim=True),
        **{f"w_{name.lower()}": matrix(inputs[f"W_{name}"], dims("", d_model), columns, corner=row, digits=1, trim=True)
           for name in ("Q", "K", "V")},
        "w_o": matrix(inputs["W_O"], columns, dims("", d_model), corner=row, digits=1, trim=True),
        "concat": matrix(steps["concat"], tokens, columns, corner=token, digits=digits),
        "concat-note": WORDS.fill("ex-multi-head-concat-note", digits=digits, out_digits=OUT_DIGITS),
        "out": matrix(example["outputs"]["out"], tokens, dims("", d_model), corner=token, digits=OUT_DIGITS),
    }


EX_MULTI_HEAD = Example("ex-multi-head", title=WORDS.line("ex-multi-head-title"),
                        data=multi_head_example, snippets=multi_head_snippets)


def heads_caption(example):
    n_heads = len(example["steps"]["weights"])
    which = (WORDS.line("multi-head-heads-caption/both") if n_heads == 2 else
             WORDS.line("multi-head-heads-caption/all", heads=n_heads))
    return WORDS.line("multi-head-heads-caption", which=which, d_k=example["d_k"])


def heads_render(example, fig):
    """Every head's weights, one above the other (each keeps a phone's width), colour only. A static overview: it declares no example, so the
    interactive layer leaves it as it is (the per-head figures below it carry the numbers)."""
    weights = example["steps"]["weights"]
    axes = fig.subplots(len(weights), 1)
    drawn = [
        heatmap(ax, head_weights, example["tokens"], example["tokens"], quantity="weights", panel=f"h{h}", head=h,
                title=WORDS.line("multi-head-head-label", head=h + 1), show_values=False, colorbar=False, fontsize=10)
        for h, (ax, head_weights) in enumerate(zip(axes, weights))
    ]
    weights_colorbar(fig, axes)
    return drawn


def head_caption(head):
    return lambda example: WORDS.line("multi-head-head-caption", head=head + 1, heads=example["n_heads"],
                                      d_k=example["d_k"])


# ---------------------------------------------------------------- the diagram: split, heads, concatenate, W_O

HEAD_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")


def diagram_data():
    example = EX_MULTI_HEAD.compute()
    n, d_model = example["steps"]["concat"].shape
    return {"n": n, "d_model": d_model, "n_heads": example["n_heads"], "d_k": example["d_k"]}


def diagram_steps(data):
    """[(step, what and which shape)]: each a words section "step | text"."""
    n, d, h, d_k = data["n"], data["d_model"], data["n_heads"], data["d_k"]
    steps = [
        WORDS.line("multi-head-diagram-step/project", n=n, d=d),
        WORDS.line("multi-head-diagram-step/split", n=n, h=h, d_k=d_k),
        WORDS.line("multi-head-diagram-step/attend", n=n, d_k=d_k),
        WORDS.line("multi-head-diagram-step/concatenate", n=n, h=h, width=h * d_k),
        WORDS.line("multi-head-diagram-step/mix", n=n, d=d),
    ]
    return [tuple(step.split(" | ")) for step in steps]


def diagram_caption(data):
    n, d, h, d_k = data["n"], data["d_model"], data["n_heads"], data["d_k"]
    return WORDS.line("multi-head-diagram-caption", n=n, d=d, h=h, d_k=d_k)


def diagram_alt(data):
    """The steps in plain text (no <sub>), the projections named in words."""
    n, d, h, d_k = data["n"], data["d_model"], data["n_heads"], data["d_k"]
    return WORDS.line("multi-head-diagram-alt", n=n, d=d, h=h, d_k=d_k, width=h * d_k)


def diagram_table(data):
    return {"caption": WORDS.line("multi-head-diagram-table-caption"),
            "columns": WORDS.line("multi-head-diagram-table-columns").split(" | "),
            "rows": [[step, text] for step, text in diagram_steps(data)]}


def grid(ax, x, y, rows, cols, colours, label=None, shape=True):
    """A rows × cols grid of unit squares, top-left at (x, y), its columns split evenly among `colours`."""
    width = cols // len(colours)
    for k, colour in enumerate(colours):
        ax.add_patch(Rectangle((x + k * width, y - rows), width, rows, facecolor=colour, alpha=0.5, linewidth=0))
    # All the grid's lines as one path (NaN breaks it between lines): one SVG element, not one per line.
    xs, ys = [], []
    for c in range(cols + 1):
        xs += [x + c, x + c, np.nan]
        ys += [y - rows, y, np.nan]
    for r in range(rows + 1):
        xs += [x, x + cols, np.nan]
        ys += [y - r, y - r, np.nan]
    ax.plot(xs, ys, color="#000000", linewidth=0.4)
    if label:
        ax.text(x + cols / 2, y + 0.35, label, ha="center", va="bottom", fontsize=10)
    if shape:
        ax.text(x + cols / 2, y - rows - 0.3, f"{rows} × {cols}", ha="center", va="top", fontsize=10)


def arrow(ax, start, end):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=9, color="#000000", linewidth=0.9,
                                 shrinkA=0, shrinkB=0))


def diagram_render(data, ax):
    n, d, h, d_k = data["n"], data["d_model"], data["n_heads"], data["d_k"]
    colours = HEAD_COLOURS[:h]
    gap = 2.0
    width = 3 * d + 2 * gap
    # Row 1: the three projections, every head's columns coloured.
    top = 0.0
    for k, name in enumerate(("Q", "K", "V")):
        grid(ax, k * (d + gap), top, n, d, colours, label=f"$XW_{name}$")
    # Row 2: the heads, each attending with its own columns.
    top2 = top - n - 4.2
    head_gap = (width - h * d_k) / h
    for i in range(h):
        x = head_gap / 2 + i * (d_k + head_gap)
        grid(ax, x, top2, n, d_k, colours[i:i + 1], label=WORDS.line("multi-head-head-label", head=i + 1))
        for k in range(3):  # head i takes its columns of Q, K and V
            arrow(ax, (k * (d + gap) + (i + 0.5) * d_k, top - n - 1.3), (x + d_k / 2, top2 + 1.3))
    # Row 3: concatenate, then W_O.
    top3 = top2 - n - 4.2
    x_concat = 0.0
    grid(ax, x_concat, top3, n, d, colours, label=WORDS.line("multi-head-diagram-concatenated"))
    for i in range(h):
        x = head_gap / 2 + i * (d_k + head_gap)
        arrow(ax, (x + d_k / 2, top2 - n - 1.3), (x_concat + (i + 0.5) * d_k, top3 + 1.3))
    ax.text(d + 0.5 * gap, top3 - n / 2, "×", ha="center", va="center", fontsize=14)
    grid(ax, d + gap, top3, d, d, ("#9e9e9e",), label="$W_O$")
    ax.text(2 * d + 1.5 * gap, top3 - n / 2, "=", ha="center", va="center", fontsize=14)
    grid(ax, 2 * d + 2 * gap, top3, n, d, ("#D55E00",), label=WORDS.line("multi-head-diagram-output"))
    ax.set_xlim(-0.5, width + 0.5)
    ax.set_ylim(top3 - d - 1.4, top + 1.6)
    ax.set_aspect("equal")
    ax.axis("off")


# ---------------------------------------------------------------- the batched layout: (batch, heads, n, d_k)


def batched_data():
    """The example's layer as real implementations run it: a batch (here of one sentence), heads as an array
    axis, every reshape and transpose spelled out, each checked against the library's split_heads and
    merge_heads and against the page's own head tables."""
    example = EX_MULTI_HEAD.compute()
    inputs, steps = example["inputs"], example["steps"]
    n_heads, d_k = example["n_heads"], example["d_k"]
    X = inputs["X"][None]  # (n, d_model) -> (batch, n, d_model), a batch of one sentence
    batch, n, d_model = X.shape
    projected, cut, heads_first = {}, {}, {}
    for name in "QKV":
        projected[name] = X @ inputs[f"W_{name}"]  # (batch, n, d_model) x (d_model, d_model) -> (batch, n, d_model)
        cut[name] = projected[name].reshape(batch, n, n_heads, d_k)  # -> (batch, n, n_heads, d_k)
        heads_first[name] = np.swapaxes(cut[name], 1, 2)  # -> (batch, n_heads, n, d_k)
        claim(np.array_equal(heads_first[name], attention.split_heads(projected[name], n_heads)),
              f"the reshape and the transpose are split_heads, for {name}")
        claim(np.allclose(heads_first[name][0], steps[name], rtol=0, atol=1e-12),
              f"the batch's {name} holds each head's {name}_g of the page")
    Q, K, V = (heads_first[name] for name in "QKV")
    scores = attention.scaled_scores(Q, K)  # (batch, n_heads, n, d_k) x (batch, n_heads, d_k, n) -> (batch, n_heads, n, n)
    heads, weights = attention.attend(Q, K, V)  # (batch, n_heads, n, n) x (batch, n_heads, n, d_k) -> (batch, n_heads, n, d_k)
    tokens_first = np.swapaxes(heads, 1, 2)  # -> (batch, n, n_heads, d_k)
    concat = tokens_first.reshape(batch, n, d_model)  # -> (batch, n, d_model)
    out = concat @ inputs["W_O"]  # (batch, n, d_model) x (d_model, d_model) -> (batch, n, d_model)
    claim(np.array_equal(concat, attention.merge_heads(heads)), "the transpose and the reshape back are merge_heads")
    claim(np.array_equal(attention.split_heads(concat, n_heads), heads), "splitting the merged heads gives them back exactly")
    claim(np.array_equal(out, attention.multi_head_attention(X, inputs["W_Q"], inputs["W_K"], inputs["W_V"], inputs["W_O"],
                                                             n_heads)[0]), "the steps are multi_head_attention's")
    for h in range(n_heads):
        claim(np.allclose(weights[0, h], steps["weights"][h], rtol=0, atol=1e-12), f"slice {h + 1} holds head {h + 1}'s weights")
        claim(np.allclose(heads[0, h], steps["heads"][h], rtol=0, atol=1e-12), f"slice {h + 1} holds head {h + 1}'s output")
    claim(np.allclose(out[0], example["outputs"]["out"], rtol=0, atol=1e-12), "the batch's output is the page's output")
    return {
        "tokens": example["tokens"], "n_heads": n_heads, "d_k": d_k, "W_O": inputs["W_O"], "X": X,
        "projected": projected["Q"], "cut": cut["Q"], "heads_first": heads_first, "scores": scores, "weights": weights,
        "heads": heads, "tokens_first": tokens_first, "concat": concat, "out": out,
    }


def shape(array):
    """A shape as the page writes it: (1, 5, 2, 3)."""
    return "(" + ", ".join(str(size) for size in array.shape) + ")"


def batched_snippets(data):
    batch, n, d_model = data["X"].shape
    n_heads, d_k = data["n_heads"], data["d_k"]
    Q = data["heads_first"]["Q"]
    key_t = np.swapaxes(data["heads_first"]["K"], -1, -2)
    columns = head_columns(n_heads, d_k)
    parts = {
        # every shape the table prints is the shape of an array computed above
        "steps": WORDS.fill("multi-head-batched-steps", x=shape(data["X"]), w=shape(data["W_O"]),
                            projected=shape(data["projected"]), batch=batch, n=n, n_heads=n_heads, d_k=d_k,
                            cut=shape(data["cut"]), q=shape(Q), key_t=shape(key_t), scores=shape(data["scores"]),
                            weights=shape(data["weights"]), v=shape(data["heads_first"]["V"]), heads=shape(data["heads"]),
                            tokens_first=shape(data["tokens_first"]), d_model=d_model, concat=shape(data["concat"]),
                            out=shape(data["out"])) + "\n",
        "setting": WORDS.fill("multi-head-batched-setting", n=n, x=shape(data["X"]), n_heads=n_heads, d_k=d_k),
    }
    token = WORDS.line("multi-head-corner/token")
    for name in "QKV":
        for h in range(n_heads):
            parts[f"{name.lower()}-h{h + 1}"] = matrix(data["heads_first"][name][0, h], data["tokens"],
                                                         columns[h * d_k:(h + 1) * d_k], corner=token, digits=1, trim=True,
                                                         caption=WORDS.line("multi-head-batched-matrix", name=name,
                                                                            head=h + 1))  # plain text, as the tabs
    return parts


# ---------------------------------------------------------------- grouped-query attention: query heads share key/value heads

GQA_HEADS = 4  # query heads, h
GQA_KV_HEADS = 2  # key/value heads, h_kv: each is read by GQA_HEADS / GQA_KV_HEADS query heads
GQA_SEED = 58


def gqa_weights(sentence):
    """W_Q (d_model, h·d_k); W_K, W_V (d_model, h_kv·d_k). Query head 1 and key/value head 1 are the one head of the
    earlier pages (sentences.projections); the other heads' columns are one-decimal numbers drawn from GQA_SEED."""
    d_model, d_k = sentence.d_model, sentence.d_k
    rng = np.random.default_rng(GQA_SEED)
    draw = lambda heads: rng.integers(-5, 6, size=(d_model, heads * d_k)) / 10  # noqa: E731
    single = dict(zip(("W_Q", "W_K", "W_V"), sentences.projections(sentence)))  # (d_model, d_k) each
    W_Q = np.concatenate([single["W_Q"], draw(GQA_HEADS - 1)], axis=1)  # (d_model, h·d_k)
    W_K, W_V = (np.concatenate([single[name], draw(GQA_KV_HEADS - 1)], axis=1) for name in ("W_K", "W_V"))
    return W_Q, W_K, W_V


def gqa_example():
    """The running sentence with h = 4 query heads of d_k = 4 and h_kv = 2 key/value heads (gqa_weights).
    X (n, d_model); W_Q (d_model, h·d_k); W_K, W_V (d_model, h_kv·d_k)."""
    sentence = sentences.RUNNING
    X = sentences.token_vectors(sentence)  # (n, d_model)
    d_k = sentence.d_k
    W_Q, W_K, W_V = gqa_weights(sentence)
    Q = attention.split_heads(X @ W_Q, GQA_HEADS)  # (n, h·d_k) -> (h, n, d_k)
    K, V = (attention.split_heads(X @ W, GQA_KV_HEADS) for W in (W_K, W_V))  # (n, h_kv·d_k) -> (h_kv, n, d_k)
    K_shared, V_shared = (attention.share_kv_heads(M, GQA_HEADS) for M in (K, V))  # (h_kv, n, d_k) -> (h, n, d_k)
    heads, weights = attention.attend(Q, K_shared, V_shared)  # (h, n, d_k), (h, n, n)
    return {
        "seed": GQA_SEED,
        "tokens": list(sentence.tokens),
        "n_heads": GQA_HEADS,
        "n_kv_heads": GQA_KV_HEADS,
        "kv_head_of": [attention.kv_head_of(g, GQA_HEADS, GQA_KV_HEADS) for g in range(GQA_HEADS)],
        **key_size(d_k),
        "inputs": {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
        "steps": {
            "Q": Q,
            "K": K,
            "V": V,
            "scores": attention.scores(Q, K_shared),
            "scaled_scores": attention.scaled_scores(Q, K_shared),
            "weights": weights,
            "entropy": attention.row_entropy(weights),
            "heads": heads,
        },
        "outputs": {"heads": heads, "weights": weights},
    }


def gqa_output_follows(weights, V, out, weight_digits):
    """Whether the head's output, to OUT_DIGITS, follows by hand from its weights printed with `weight_digits`
    decimals times V (one-decimal numbers, so the products are exact), with no exact tie."""
    W = [[by_hand(w, weight_digits)[1] for w in row] for row in weights]
    values = [[by_hand(v, 1)[1] for v in row] for row in V]
    for row, true_row in zip(W, out):
        for c, true in enumerate(true_row):
            exact = sum(w * values[j][c] for j, w in enumerate(row))
            if num(exact, OUT_DIGITS) != num(true, OUT_DIGITS) or is_tie(exact, OUT_DIGITS):
                return False
    return True


def gqa_claims(example):
    """What the page says about the example, checked on its numbers."""
    steps, inputs = example["steps"], example["inputs"]
    h, h_kv, d_k = example["n_heads"], example["n_kv_heads"], example["d_k"]
    group = h // h_kv
    claim((h, h_kv) == (4, 2), "its title: four query heads sharing two key/value heads")
    claim(example["kv_head_of"] == [g // group for g in range(h)],
          "query head g reads key/value head ⌈g / (h / h_kv)⌉, the heads of a group side by side")
    claim(inputs["W_Q"].shape[1] == h * d_k and inputs["W_K"].shape[1] == inputs["W_V"].shape[1] == h_kv * d_k,
          "W_Q has a block of d_k columns per query head, W_K and W_V one per key/value head")
    claim(np.array_equal(attention.share_kv_heads(steps["K"][:1], 1), steps["K"][:1])
          and np.array_equal(attention.share_kv_heads(steps["K"], h_kv), steps["K"]),
          "with as many key/value heads as query heads the sharing changes nothing")
    single = sentences.self_attention_example(sentences.RUNNING)["steps"]
    claim(np.allclose(steps["weights"][0], single["weights"], rtol=0, atol=1e-12),
          "query head 1's table is the one head of the earlier pages")
    for kv in range(h_kv):
        members = [g for g in range(h) if example["kv_head_of"][g] == kv]
        first, second = members[:2]
        claim(float(np.abs(steps["weights"][first] - steps["weights"][second]).max()) > 0.05,
              f"query heads {first + 1} and {second + 1} read the same keys, yet their weights differ")
        claim(np.allclose(steps["heads"][first], steps["weights"][first] @ steps["V"][kv], rtol=0, atol=1e-12),
              f"query head {first + 1}'s output is its weights times the shared V of key/value head {kv + 1}")


def gqa_weight_digits(example):
    """The fewest decimals (4 to 6) with which every head's weights, printed, times its group's V (one-decimal
    numbers) give the head's output to OUT_DIGITS by hand, no weight an exact tie at that print."""
    steps = example["steps"]
    for digits in range(4, 7):
        if all(not any(is_tie(w, digits, 1e-6) for w in steps["weights"][g].ravel())
               and gqa_output_follows(steps["weights"][g], steps["V"][kv], steps["heads"][g], digits)
               for g, kv in enumerate(example["kv_head_of"])):
            return digits
    raise BuildError("ex-gqa: no printing of the weights to 4 to 6 decimals gives every head's output by hand")


def gqa_worked(example):
    """One score of query head 2 (which shares key/value head 1 with query head 1) worked by hand: its largest."""
    tokens, steps = example["tokens"], example["steps"]
    g = 1
    kv = example["kv_head_of"][g]
    scores = steps["scores"][g]
    i, j = (int(x) for x in np.unravel_index(np.argmax(scores), scores.shape))
    q, k = steps["Q"][g][i], steps["K"][kv][j]
    terms = " + ".join(f"({num(a, 1, True)})({num(b, 1, True)})" for a, b in zip(q, k))
    return WORDS.fill("ex-gqa-worked", head=g + 1, kv=kv + 1, query=tokens[i], row=i + 1, key=tokens[j], column=j + 1,
                      terms=terms, score=num(scores[i, j], 2), scale=num(example["scale"], 2, True),
                      scaled=num(steps["scaled_scores"][g][i, j], 3, True),
                      other=num(steps["scores"][0][i, j], 2))


def gqa_snippets(example):
    gqa_claims(example)
    weight_digits = gqa_weight_digits(example)
    tokens, inputs, steps = example["tokens"], example["inputs"], example["steps"]
    h, h_kv, d_k = example["n_heads"], example["n_kv_heads"], example["d_k"]
    n, d_model = inputs["X"].shape
    group = h // h_kv
    query, key, row = (WORDS.line("multi-head-corner/query"), WORDS.line("multi-head-corner/key"),
                       WORDS.line("multi-head-corner/row"))
    kv_columns = lambda kind: [f"{kind}{m + 1}·{c + 1}" for m in range(h_kv) for c in range(d_k)]  # noqa: E731
    sharing = table(WORDS.line("ex-gqa-sharing-columns").split(" | "),
                    [[str(g + 1), str(example["kv_head_of"][g] + 1),
                      WORDS.line("ex-gqa-sharing/with", heads=listed(
                          [str(o + 1) for o in range(h) if example["kv_head_of"][o] == example["kv_head_of"][g]]))]
                     for g in range(h)])
    parts = {
        "setting": WORDS.fill("ex-gqa-setting", h=h, h_kv=h_kv, d_k=d_k, d_model=d_model, n=n, group=group,
                              q_width=h * d_k, kv_width=h_kv * d_k),
        "sharing": sharing,
        "w_q": matrix(inputs["W_Q"], dims("", d_model), head_columns(h, d_k), corner=row, digits=1, trim=True),
        "w_k": matrix(inputs["W_K"], dims("", d_model), kv_columns("kv"), corner=row, digits=1, trim=True),
        "w_v": matrix(inputs["W_V"], dims("", d_model), kv_columns("kv"), corner=row, digits=1, trim=True),
        "worked": gqa_worked(example),
        "note": WORDS.fill("ex-gqa-note", weight_digits=weight_digits, out_digits=OUT_DIGITS),
        "cache": WORDS.fill("ex-gqa-cache", h=h, h_kv=h_kv, d_k=d_k, n=n,
                            grouped=f"{h_kv * 2 * d_k:,}", full=f"{h * 2 * d_k:,}",
                            grouped_n=f"{n * h_kv * 2 * d_k:,}", full_n=f"{n * h * 2 * d_k:,}", as_many=as_many(group)),
    }
    for m in range(h_kv):
        parts[f"k-{m + 1}"] = matrix(steps["K"][m], tokens, dims("", d_k), corner=key, digits=1, trim=True,
                                     caption=WORDS.line("ex-gqa-matrix/kv", name="K", head=m + 1))
        parts[f"v-{m + 1}"] = matrix(steps["V"][m], tokens, dims("", d_k), corner=key, digits=1, trim=True,
                                     caption=WORDS.line("ex-gqa-matrix/kv", name="V", head=m + 1))
    for g in range(h):
        kv = example["kv_head_of"][g] + 1
        parts[f"head-{g + 1}"] = "\n\n".join(text.rstrip("\n") for text in [
            WORDS.fill("ex-gqa-head", head=g + 1, kv=kv),
            matrix(steps["Q"][g], tokens, dims("", d_k), corner=query, digits=1, trim=True,
                   caption=WORDS.line("ex-gqa-matrix/q", head=g + 1)),
            matrix(steps["scores"][g], tokens, tokens, corner=query, digits=2,
                   caption=WORDS.line("ex-gqa-matrix/scores", head=g + 1, kv=kv)),
            matrix(steps["weights"][g], tokens, tokens, corner=query, digits=weight_digits,
                   caption=WORDS.line("ex-gqa-matrix/weights", head=g + 1, d_k=d_k)),
            matrix(steps["heads"][g], tokens, dims("", d_k), corner=query, digits=OUT_DIGITS,
                   caption=WORDS.line("ex-gqa-matrix/out", head=g + 1, kv=kv)),
        ]) + "\n"
    return parts


EX_GQA = Example("ex-gqa", title=WORDS.line("ex-gqa-title"), data=gqa_example, snippets=gqa_snippets)


# ---------------------------------------------------------------- cross-attention: queries from one sequence, keys from another

# The decoder's tokens: the start of a translation of the running sentence, whose vectors are the encoder's.
DECODER_TOKENS = ("le", "chat", "était")
DECODER_SEED = 3


def decoder_vectors(encoder):
    """The decoder's tokens' vectors (n_q, d_model): small whole numbers drawn from DECODER_SEED, as wide as the
    encoder's."""
    rng = np.random.default_rng(DECODER_SEED)
    return rng.integers(-2, 3, size=(len(DECODER_TOKENS), encoder.d_model)).astype(float)


def cross_attention_example():
    encoder = sentences.RUNNING
    memory = sentences.token_vectors(encoder)  # (n_k, d_model): what the encoder hands over
    X = decoder_vectors(encoder)  # (n_q, d_model)
    W_Q, W_K, W_V = sentences.projections(encoder)
    Q, K, V = X @ W_Q, memory @ W_K, memory @ W_V  # (n_q, d_k), (n_k, d_k), (n_k, d_k)
    out, weights = attention.attend(Q, K, V)  # (n_q, d_k), (n_q, n_k)
    return {
        "seed": DECODER_SEED,
        "tokens": list(DECODER_TOKENS),
        "key_tokens": list(encoder.tokens),
        **key_size(encoder.d_k),
        "inputs": {"X": X, "memory": memory, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
        "steps": {"Q": Q, "K": K, "V": V, "scores": attention.scores(Q, K),
                  "scaled_scores": attention.scaled_scores(Q, K), "weights": weights,
                  "entropy": attention.row_entropy(weights)},
        "outputs": {"out": out, "weights": weights},
    }


def cross_snippets(example):
    tokens, keys, steps = example["tokens"], example["key_tokens"], example["steps"]
    n_q, n_k, d_k = len(tokens), len(keys), example["d_k"]
    d_model = example["inputs"]["X"].shape[1]
    w_rows, w_cols = example["inputs"]["W_Q"].shape
    claim(all(example["inputs"][f"W_{name}"].shape == (w_rows, w_cols) for name in "KV"),
          "cross-attention's W_Q, W_K and W_V have one shape")
    query = WORDS.line("multi-head-corner/query")
    return {
        "shapes": WORDS.fill("ex-cross-attention-shapes", n_q=n_q, tokens=" ".join(tokens), n_k=n_k, d_model=d_model,
                             rows=w_rows, columns=w_cols, d_k=d_k),
        "x": matrix(example["inputs"]["X"], tokens, dims("x", d_model), corner=WORDS.line("multi-head-corner/token"),
                    digits=0, trim=True),
        "q": matrix(steps["Q"], tokens, dims("", d_k), corner=query, digits=1, trim=True),
        "out": matrix(example["outputs"]["out"], tokens, dims("", d_k), corner=query, digits=4),
    }


EX_CROSS = Example("ex-cross-attention", title=WORDS.line("ex-cross-attention-title"),
                   data=cross_attention_example, snippets=cross_snippets)


def cross_caption(example):
    return WORDS.line("cross-attention-caption", queries=len(example["tokens"]), keys=len(example["key_tokens"]))


def cross_render(example, ax):
    drawn = heatmap(ax, example["steps"]["weights"], example["tokens"], example["key_tokens"], quantity="weights",
                    fontsize=10, colorbar=False)  # every cell prints its weight; no colour scale needed
    for label in (ax.xaxis.label, ax.yaxis.label):
        label.set_fontsize(10)
    return drawn


# ---------------------------------------------------------------- what more heads cost

COST_D_MODEL = 512
COST_N = 1024
COST_HEADS = (1, 2, 4, 8, 16)


def cost_data():
    return {"rows": [(h, {**attention.multi_head_cost(COST_N, COST_D_MODEL, h),
                          "score_entries": attention.attention_cost(COST_N, COST_D_MODEL // h, n_heads=h)["score_entries"]})
                     for h in COST_HEADS]}


def cost_snippets(data):
    costs = [c for _, c in data["rows"]]
    rows = [[str(h), str(c["d_k"]), f"{c['params']:,}", f"{c['total_macs']:,}", f"{c['score_entries']:,}"]
            for h, c in data["rows"]]
    claim(all(c[key] == costs[0][key] for c in costs for key in ("params", "projection_macs", "attention_macs")),
          "every number of heads has the same parameters and multiply-adds")
    verdict = WORDS.fill("multi-head-cost-verdict", projection=f"{costs[0]['projection_macs']:,}",
                         attention=f"{costs[0]['attention_macs']:,}", fewest=f"{costs[0]['score_entries']:,}",
                         most=f"{costs[-1]['score_entries']:,}", heads=data["rows"][-1][0])
    return {
        "table": table(WORDS.line("multi-head-cost-table").split(" | "), rows),
        "setting": WORDS.fill("multi-head-cost-setting", d_model=COST_D_MODEL, n=COST_N),
        "verdict": verdict,
    }


def notebook_cells():
    names = ("SEED", "N_HEADS", "GQA_SEED", "GQA_HEADS", "GQA_KV_HEADS", "DECODER_TOKENS", "DECODER_SEED")
    constants = "\n".join(f"{name} = {globals()[name]!r}" for name in names)
    return [
        *sentences.notebook_cells("RUNNING"),
        markdown(WORDS.fill("nb-module")),
        code("import types\n\n"
             "sentences = types.SimpleNamespace(RUNNING=RUNNING, token_vectors=token_vectors, projections=projections)\n"
             + constants),
        # two heads
        markdown(WORDS.fill("nb-weights")),
        source(multi_head_weights),
        code("""
            tokens = list(RUNNING.tokens)
            X = token_vectors(RUNNING)
            W_Q, W_K, W_V, W_O = multi_head_weights(RUNNING)
            n, d_model = X.shape
            h = N_HEADS
            assert h >= 1 and d_model % h == 0, f"N_HEADS = {h} must divide d_model = {d_model}"
            d_k = d_model // h
            print("n =", n, " d_model =", d_model, " h =", h, " d_k =", d_k)"""),
        markdown(WORDS.fill("nb-split")),
        code("""
            Q, K, V = (attention.split_heads(X @ W, h) for W in (W_Q, W_K, W_V))  # (h, n, d_k) each
            j = min(1, h - 1)  # the index of the head looked at alone: head 2 of the page, or head 1 if h = 1
            W_Q_j = W_Q[:, j * d_k:(j + 1) * d_k]  # that head's own W_Q: its block of d_k columns
            assert np.array_equal(Q[j], X @ W_Q_j), "Q[j] is X times head j + 1's block of columns of W_Q"
            print(f"head {j + 1} (index j = {j}): Q[j] = X @ W_Q[:, {j * d_k}:{(j + 1) * d_k}]")
            Q.shape"""),
        markdown(WORDS.fill("nb-attend")),
        code("""
            heads, weights = attention.attend(Q, K, V)  # attention in every head at once
            fig, axes = plt.subplots(1, h, figsize=(3.4 * h, 2.9), squeeze=False)
            for g, ax in enumerate(axes.flat):
                heatmap(ax, weights[g], tokens, tokens, quantity="weights", title=f"head {g + 1}", colorbar=False)
            plt.tight_layout()
            plt.show()"""),
        markdown(WORDS.fill("nb-concat")),
        code("""
            concat = attention.merge_heads(heads)  # (n, h·d_k) = (n, d_model): the heads side by side
            out = concat @ W_O
            assert np.allclose(out, attention.multi_head_attention(X, W_Q, W_K, W_V, W_O, h)[0], rtol=0, atol=1e-12), \\
                "the heads side by side, times W_O, are what attention.multi_head_attention returns"
            out"""),
        markdown(WORDS.fill("nb-multi-head-example")),
        source(multi_head_example),
        code("""
            multi_head = multi_head_example()
            mine = {"Q": Q, "K": K, "V": V, "weights": weights, "heads": heads, "concat": concat}
            for name in mine:
                assert np.array_equal(mine[name], multi_head["steps"][name]), f"the steps above give the example's {name}"
            assert np.array_equal(out, multi_head["outputs"]["out"]), "the steps above give the example's output"
            multi_head["steps"]["entropy"]"""),
        # grouped-query attention
        markdown(WORDS.fill("nb-gqa", h=GQA_HEADS, h_kv=GQA_KV_HEADS, d_k=sentences.RUNNING.d_k)),
        source(gqa_weights),
        code("""
            h, h_kv, d_k = GQA_HEADS, GQA_KV_HEADS, RUNNING.d_k
            assert 1 <= h_kv <= h and h % h_kv == 0, f"GQA_KV_HEADS = {h_kv} must divide GQA_HEADS = {h}"
            W_Q, W_K, W_V = gqa_weights(RUNNING)
            Q = attention.split_heads(X @ W_Q, h)  # (h, n, d_k)
            K, V = (attention.split_heads(X @ W, h_kv) for W in (W_K, W_V))  # (h_kv, n, d_k)
            print("W_Q", W_Q.shape, " W_K", W_K.shape, " Q", Q.shape, " K", K.shape)"""),
        markdown(WORDS.fill("nb-gqa-share")),
        code("""
            kv_head_of = [attention.kv_head_of(j, h, h_kv) for j in range(h)]
            print("query head j (index, from 0) reads key/value head (index)", kv_head_of)
            K_shared, V_shared = (attention.share_kv_heads(M, h) for M in (K, V))  # (h, n, d_k): each group's copy
            heads_gqa, weights_gqa = attention.attend(Q, K_shared, V_shared)
            columns = min(h, 2 if h <= 4 else 4)  # the page's 2 × 2 for four heads
            rows = -(-h // columns)  # enough rows for every query head
            fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.8 * rows), squeeze=False)
            for g, ax in enumerate(axes.flat):
                if g >= h:
                    ax.set_axis_off()  # an empty place in the last row
                    continue
                heatmap(ax, weights_gqa[g], tokens, tokens, quantity="weights", colorbar=False,
                        title=f"query head {g + 1}, key/value head {kv_head_of[g] + 1}")
            plt.tight_layout()
            plt.show()"""),
        markdown(WORDS.fill("nb-gqa-cache")),
        code("""
            per_token = {"grouped": h_kv * 2 * d_k, "one per query head": h * 2 * d_k}
            per_token"""),
        markdown(WORDS.fill("nb-gqa-example")),
        source(gqa_example),
        code("""
            gqa = gqa_example()
            assert gqa["kv_head_of"] == kv_head_of, "the example's groups are the ones above"
            for name, mine in (("Q", Q), ("K", K), ("V", V), ("weights", weights_gqa), ("heads", heads_gqa)):
                assert np.array_equal(mine, gqa["steps"][name]), f"the steps above give the example's {name}"
            j = min(1, h - 1)  # query head 2 of the page (or 1 if h = 1)
            print(f"query head {j + 1} (index j = {j}):")
            gqa["outputs"]["heads"][j]"""),
        # cross-attention
        markdown(WORDS.fill("nb-cross")),
        source(decoder_vectors),
        code("""
            memory = token_vectors(RUNNING)  # (n_k, d_model): what the encoder hands over
            X_dec = decoder_vectors(RUNNING)  # (n_q, d_model)
            W_Q, W_K, W_V = projections(RUNNING)
            Q, K, V = X_dec @ W_Q, memory @ W_K, memory @ W_V
            cross_out, cross_weights = attention.attend(Q, K, V)  # (n_q, d_k), (n_q, n_k)
            fig, ax = plt.subplots(figsize=(4.4, 2.6))
            heatmap(ax, cross_weights, list(DECODER_TOKENS), tokens, quantity="weights", colorbar=False)
            plt.show()"""),
        markdown(WORDS.fill("nb-cross-example")),
        source(cross_attention_example),
        code("""
            cross = cross_attention_example()
            for name, mine in (("Q", Q), ("K", K), ("V", V), ("weights", cross_weights)):
                assert np.array_equal(mine, cross["steps"][name]), f"the steps above give the example's {name}"
            assert np.array_equal(cross_out, cross["outputs"]["out"]), "the steps above give the example's output"
            cross_out"""),
    ]


ITEMS = [
    Figure("multi-head-diagram", title=WORDS.line("multi-head-diagram-title"),
           data=diagram_data, render=diagram_render, caption=diagram_caption, alt=diagram_alt, table=diagram_table,
           size=(4.4, 5.2)),
    EX_MULTI_HEAD,
    Figure("multi-head-heads", title=WORDS.line("multi-head-heads-title"), data=EX_MULTI_HEAD.compute,
           render=heads_render, caption=heads_caption, size=(PHONE_WIDTH, 6.4)),
    *(
        example_heatmap(f"multi-head-h{head}", EX_MULTI_HEAD, "weights", head=head, size=(PHONE_WIDTH, 3.2),
                        title=WORDS.line("multi-head-head-title", head=head + 1), caption=head_caption(head))
        for head in range(N_HEADS)
    ),
    Snippets("multi-head-batched", data=batched_data, snippets=batched_snippets),
    Snippets("multi-head-cost", data=cost_data, snippets=cost_snippets),
    EX_GQA,
    EX_CROSS,
    Figure("cross-attention", title=WORDS.line("cross-attention-title"),
           data=EX_CROSS.compute, render=cross_render, caption=cross_caption, size=(4.4, 2.6)),
    notebook("multi-head.md", notebook_cells,
             examples={EX_MULTI_HEAD: "multi_head", EX_GQA: "gqa", EX_CROSS: "cross"}),
]
