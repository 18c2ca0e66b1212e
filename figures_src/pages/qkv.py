"""Queries, keys and values (docs/qkv.md): the running sentence projected three ways, one entry worked by hand."""
from ..engine import Example, Words
from ..engine.notebooks import code, markdown, notebook
from ..engine.text import dims, latex_vector, matrix, num, table
from ..engine.words import SITE_WORDS
from . import sentences

WORDS = Words("words/qkv.md")


def qkv_snippets(example):
    tokens, inputs, steps = example["tokens"], example["inputs"], example["steps"]
    X = inputs["X"]
    n, d_model = X.shape
    d_k = inputs["W_Q"].shape[1]
    x_cols, k_cols = dims("", d_model), dims("", d_k)  # 1 … d: x₁…xₙ are the tokens (Home)
    parts = {
        "x": matrix(X, tokens, x_cols, corner=SITE_WORDS.line("matrix-corner/token"), digits=0, trim=True),
        "shapes": WORDS.fill("ex-qkv-shapes", sentence=" ".join(tokens), n=n, d_model=d_model, d_k=d_k),
    }
    for name in ("W_Q", "W_K", "W_V"):
        parts[name.lower()] = matrix(inputs[name], dims("", d_model), k_cols, corner=SITE_WORDS.line("matrix-corner/row"), digits=1, trim=True)
    for name in ("Q", "K", "V"):
        parts[name.lower()] = matrix(steps[name], tokens, k_cols, corner=SITE_WORDS.line("matrix-corner/token"), digits=1, trim=True)

    # q for the first token, one entry at a time: column c of W_Q against the token's vector.
    token, x, W_Q, q = tokens[0], X[0], inputs["W_Q"], steps["Q"][0]
    rows = []
    for c in range(d_k):
        terms = " + ".join(f"({num(a, 0, True)})({num(w, 1, True)})" for a, w in zip(x, W_Q[:, c]))
        rows.append([f"{c + 1}", terms, f"**{num(q[c], 1, True)}**"])
    columns = ["c", WORDS.line("ex-qkv-row/products-column"), WORDS.line("ex-qkv-row/query-column", token=token)]
    parts["row"] = WORDS.fill("ex-qkv-row", token=token, x=latex_vector(x, 0, True), d_model=d_model,
                              table=table(columns, rows, align=["---:", "---", "---:"]).rstrip("\n"),
                              q=latex_vector(q, 1, True)) + "\n"
    return parts


EX_QKV = Example("ex-qkv", title=WORDS.line("ex-qkv-title"),
                 data=lambda: sentences.self_attention_example(sentences.RUNNING), snippets=qkv_snippets)



def notebook_cells():
    return [
        *sentences.notebook_cells("RUNNING"),
        markdown(WORDS.fill("nb-x")),
        code("""
            tokens = list(RUNNING.tokens)
            X = token_vectors(RUNNING)
            X"""),
        markdown(WORDS.fill("nb-projections")),
        code("""
            W_Q, W_K, W_V = projections(RUNNING)
            print("W_K =", W_K, "W_V =", W_V, sep="\\n")
            W_Q"""),
        markdown(WORDS.fill("nb-qkv")),
        code("""
            Q, K, V = X @ W_Q, X @ W_K, X @ W_V
            print("K =", K, "V =", V, sep="\\n")
            Q"""),
        markdown(WORDS.fill("nb-row")),
        code("""
            token, c = 0, 0  # indices: the page's token 1 and entry c = 1
            products = X[token] * W_Q[:, c] + 0.0  # + 0.0 turns a product -0.0 into 0.0
            print(f"token {token + 1}, entry {c + 1} of its query (Q[{token}, {c}]):")
            print(products, "add up to", round(products.sum(), 4), "=", round(Q[token, c], 4))"""),
        markdown(sentences.NOTEBOOK_WORDS.fill("example")),
        code("""
            example = self_attention_example(RUNNING)
            for name, mine in (("Q", Q), ("K", K), ("V", V)):
                assert np.array_equal(mine, example["steps"][name]), (
                    f"{name}: the step by hand differs from the site's own code on the same sentence")
            example["steps"]["V"]"""),
    ]


ITEMS = [EX_QKV, notebook("qkv.md", notebook_cells, examples={EX_QKV: "example"})]
