"""The output of attention on a five-token sentence: weights times values."""
import numpy as np

from . import sentences
from .tables import dims, matrix, num, table


def example():
    return sentences.self_attention_example("ex-output", __doc__.strip().rstrip("."), "output/", sentences.RUNNING)


def followed_row(example):
    """The query followed through on the page: the one whose largest weight is the median of the rows',
    so its output is a visible mix rather than a copy of one value or a plain average."""
    top = example["steps"]["weights"].max(axis=-1)
    return int(np.argsort(top)[len(top) // 2])


def snippets(example):
    tokens, steps = example["tokens"], example["steps"]
    i = followed_row(example)
    w, V, out = steps["weights"][i], steps["V"], example["outputs"]["out"][i]
    d_v = V.shape[1]
    rows = [[f"**{t}**", num(wj, 4), *(num(wj * x, 4) for x in vj)] for t, wj, vj in zip(tokens, w, V)]
    rows.append(["**sum**", num(w.sum(), 4), *(f"**{num(x, 4)}**" for x in out)])
    columns = ["key $j$", "$w_j$", *(f"$w_j v_{{j,{c + 1}}}$" for c in range(d_v))]
    return {
        "row": (
            f"Follow the query “{tokens[i]}” (row {i}). Each value row $v_j$ is multiplied by the weight "
            f"$w_j$ that “{tokens[i]}” gives key $j$ (the values are the table above), and the {len(tokens)} scaled rows "
            "are added column by column:\n\n"
            + table(columns, rows)
            + f"\nThe last line is the output row of “{tokens[i]}”: "
            + f"$\\text{{out}}_{{\\text{{{tokens[i]}}}}}$ = [{', '.join(num(x, 4) for x in out)}].\n"
        ),
        "v": matrix(V, tokens, dims("", d_v), corner="token", digits=1, trim=True),
        "out": matrix(example["outputs"]["out"], tokens, dims("", d_v), corner="query", digits=4),
        "name": tokens[i],
    }

