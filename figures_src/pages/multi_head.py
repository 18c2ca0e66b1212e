"""Multi-head attention (docs/multi-head.md): two heads on the running sentence, and what more heads cost."""
import numpy as np

import attention

from ..engine import Example, Figure, Snippets, example_heatmap
from ..engine.heatmap import heatmap
from ..engine.style import PHONE_WIDTH, weights_colorbar
from ..engine.text import matrix, table
from . import sentences

PAGE = "multi-head.md"
SEED = 100
N_HEADS = 2


def multi_head_example():
    """The running sentence's X; W_Q, W_K, W_V, W_O (d_model, d_model) of one-decimal numbers."""
    sentence = sentences.RUNNING
    X = sentences.token_vectors(sentence)  # (n, d_model)
    rng = np.random.default_rng(SEED)
    W_Q, W_K, W_V, W_O = (rng.integers(-5, 6, size=(sentence.d_model, sentence.d_model)) / 10 for _ in range(4))
    Q, K, V = (attention.split_heads(X @ W, N_HEADS) for W in (W_Q, W_K, W_V))  # (n_heads, n, d_k)
    heads, weights = attention.attend(Q, K, V)  # (n_heads, n, d_k), (n_heads, n, n)
    concat = attention.merge_heads(heads)  # (n, n_heads · d_k) = (n, d_model)
    out, _ = attention.multi_head_attention(X, W_Q, W_K, W_V, W_O, N_HEADS)
    d_k = sentence.d_model // N_HEADS
    return {
        "seed": SEED,
        "tokens": list(sentence.tokens),
        "n_heads": N_HEADS,
        "d_k": d_k,
        "scale": float(1 / np.sqrt(d_k)),
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


def multi_head_snippets(example):
    tokens, steps = example["tokens"], example["steps"]
    n_heads, d_k = example["n_heads"], example["d_k"]
    n, d_model = steps["concat"].shape
    columns = [f"h{h + 1}·{c + 1}" for h in range(n_heads) for c in range(d_k)]  # head and column, from 1
    return {
        "shapes": (
            f"Here $d_{{\\text{{model}}}} = {d_model}$ and $h = {n_heads}$ heads, so each head works with "
            f"$d_k = d_v = {d_model}/{n_heads} = {d_k}$ columns: head $i$ (counted from 1) takes columns "
            f"${d_k}(i-1)+1$ to ${d_k}i$ of $XW_Q$, $XW_K$ and $XW_V$, which we write $Q_i$, $K_i$ and $V_i$. "
            "Head $i$ is attention on its own columns, "
            "$\\text{head}_i = \\mathrm{softmax}\\big(Q_i K_i^{\\text{T}} / \\sqrt{d_k}\\big)\\, V_i$, "
            f"and its output is $n \\times d_v = {n} \\times {d_k}$; side by side they make a "
            f"${n} \\times {d_model}$ table again, which $W_O$ (${d_model} \\times {d_model}$) mixes into the layer's output."
        ),
        "concat": matrix(steps["concat"], tokens, columns, corner="token"),
        "out": matrix(example["outputs"]["out"], tokens, [str(c + 1) for c in range(d_model)], corner="token"),
    }


EX_MULTI_HEAD = Example("ex-multi-head", page=PAGE, title="Two heads attending over the same five-token sentence",
                        data=multi_head_example, snippets=multi_head_snippets)


def heads_caption(example):
    n_heads = len(example["steps"]["weights"])
    which = "Both heads'" if n_heads == 2 else f"All {n_heads} heads'"
    return (
        f"{which} weights over the same sentence, side by side, each computed from its own dₖ = {example['d_k']} "
        "columns of Q, K and V. Colour only; each head's numbers follow below."
    )


def heads_render(example, fig):
    """Every head's weights, one above the other (each keeps a phone's width), colour only. A static overview: it declares no example, so the
    interactive layer leaves it as it is (the per-head figures below it carry the numbers)."""
    weights = example["steps"]["weights"]
    axes = fig.subplots(len(weights), 1)
    drawn = [
        heatmap(ax, head_weights, example["tokens"], example["tokens"], quantity="weights", panel=f"h{h}", head=h,
                title=f"head {h + 1}", show_values=False, colorbar=False, fontsize=10)
        for h, (ax, head_weights) in enumerate(zip(axes, weights))
    ]
    weights_colorbar(fig, axes)
    return drawn


def head_caption(head):
    return lambda example: (
        f"Head {head + 1} of {example['n_heads']}: its own weights over the same sentence, computed from "
        f"its own dₖ = {example['d_k']} columns of Q, K and V."
    )


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
    same = all(c[key] == costs[0][key] for c in costs for key in ("params", "projection_macs", "attention_macs"))
    if same:
        verdict = (
            "Every row has the same parameter count and the same multiply-adds — "
            f"{costs[0]['projection_macs']:,} in the four projections and {costs[0]['attention_macs']:,} in the two "
            "attention products, whatever $h$ is. The score tables are another matter: every head keeps its own "
            f"$n \\times n$ table, so there are $h \\cdot n^2$ scores, from {costs[0]['score_entries']:,} with one head "
            f"to {costs[-1]['score_entries']:,} with {data['rows'][-1][0]}. More heads cost no parameters and no "
            "multiply-adds, but their score tables take memory in proportion to $h$."
        )
    else:
        verdict = "The rows differ: the claim does not hold for these settings."
    return {
        "table": table(["heads $h$", "$d_k$", "parameters", "multiply-adds", "scores $h \\cdot n^2$"], rows),
        "setting": f"$d_{{\\text{{model}}}} = {COST_D_MODEL}$ and a sequence of $n = {COST_N}$ tokens (no biases):",
        "verdict": verdict,
    }


ITEMS = [
    EX_MULTI_HEAD,
    Figure("multi-head-heads", title="The heads of the multi-head example, side by side.", data=EX_MULTI_HEAD.compute,
           render=heads_render, caption=heads_caption, size=(PHONE_WIDTH, 6.4)),
    *(
        example_heatmap(f"multi-head-h{head}", EX_MULTI_HEAD, "weights", head=head, size=(PHONE_WIDTH, 3.2),
                        title=f"Multi-head attention, head {head + 1}: its weights.", caption=head_caption(head))
        for head in range(N_HEADS)
    ),
    Snippets("multi-head-cost", data=cost_data, snippets=cost_snippets),
]
