"""Queries, keys and values (docs/qkv.md): the running sentence projected three ways, one entry worked by hand."""
from ..engine import Example
from ..engine.text import dims, latex_vector, matrix, num, table
from . import sentences


def qkv_snippets(example):
    tokens, inputs, steps = example["tokens"], example["inputs"], example["steps"]
    X = inputs["X"]
    n, d_model = X.shape
    d_k = inputs["W_Q"].shape[1]
    x_cols, k_cols = dims("", d_model), dims("", d_k)  # 1 … d: x₁…xₙ are the tokens (Home)
    parts = {
        "x": matrix(X, tokens, x_cols, corner="token", digits=0, trim=True),
        "shapes": (
            f"The running example is the sentence *{' '.join(tokens)}*: $n = {n}$ tokens, $d_{{\\text{{model}}}} = {d_model}$ and $d_k = d_v = {d_k}$: $X$ is "
            f"${n} \\times {d_model}$, each of $W_Q$, $W_K$, $W_V$ is ${d_model} \\times {d_k}$, and each of "
            f"$Q$, $K$, $V$ is ${n} \\times {d_k}$."
        ),
    }
    for name in ("W_Q", "W_K", "W_V"):
        parts[name.lower()] = matrix(inputs[name], dims("", d_model), k_cols, corner="row", digits=1, trim=True)
    for name in ("Q", "K", "V"):
        parts[name.lower()] = matrix(steps[name], tokens, k_cols, corner="token", digits=1, trim=True)

    # q for the first token, one entry at a time: column c of W_Q against the token's vector.
    token, x, W_Q, q = tokens[0], X[0], inputs["W_Q"], steps["Q"][0]
    rows = []
    for c in range(d_k):
        terms = " + ".join(f"({num(a, 0, True)})({num(w, 1, True)})" for a, w in zip(x, W_Q[:, c]))
        rows.append([f"{c + 1}", terms, f"**{num(q[c], 1, True)}**"])
    parts["row"] = (
        f"The query of “{token}” is its row of $X$, ${latex_vector(x, 0, True)}$, times $W_Q$. Entry $c$ of "
        f"$q_{{\\text{{{token}}}}}$ pairs the {d_model} entries of the row with column $c$ of $W_Q$:\n\n"
        + table(["c", "products, added", f"q ({token})"], rows, align=["---:", "---", "---:"])
        + f"\nSo $q_{{\\text{{{token}}}}} = {latex_vector(q, 1, True)}$, the first row of $Q$ below.\n"
    )
    return parts


EX_QKV = Example("ex-qkv", title="Queries, keys and values of a five-token sentence",
                 data=lambda: sentences.self_attention_example(sentences.RUNNING), snippets=qkv_snippets)

ITEMS = [EX_QKV]
