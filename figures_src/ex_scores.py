"""Scores for a five-token sentence."""
import numpy as np

from . import sentences
from .tables import matrix, num, table


def example():
    return sentences.self_attention_example("ex-scores", __doc__.strip().rstrip("."), "scores/", sentences.RUNNING)


def worked_entry(example):
    """(i, j) of the largest raw score: the pair the page works out by hand."""
    i, j = np.unravel_index(np.argmax(example["steps"]["scores"]), example["steps"]["scores"].shape)
    return int(i), int(j)


def snippets(example):
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
        f"The largest raw score in the table is query “{tokens[i]}” (row {i}) against key “{tokens[j]}” "
        f"(column {j}). Its query and key vectors are $q_{{\\text{{{tokens[i]}}}}} = {_latex_vector(q)}$ and "
        f"$k_{{\\text{{{tokens[j]}}}}} = {_latex_vector(k)}$. Multiply entry by entry, then add:\n\n"
        + table(["entry", f"q ({tokens[i]})", f"k ({tokens[j]})", "product"], rows)
        + f"\nIn one line: $q_{{\\text{{{tokens[i]}}}}} \\cdot k_{{\\text{{{tokens[j]}}}}}$ = {terms} = {num(score, 2)}.\n\n"
        + f"Scaling by $1/\\sqrt{{d_k}} = 1/\\sqrt{{{d_k}}} = {num(example['scale'], 2, True)}$ gives "
        + f"{num(score, 2)} × {num(example['scale'], 2, True)} = **{num(scaled, 3, True)}**, the number in the scaled table.\n"
    )
    raw = matrix(steps["scores"], tokens, tokens, corner="query \\ key")
    return {"entry": entry, "raw": raw}


def _latex_number(x, digits, trim=False):
    """A number for LaTeX: a negative one in braces, so its minus sign reads as a sign, not a subtraction."""
    text = num(x, digits, trim).replace("−", "-")
    return f"{{{text}}}" if text.startswith("-") else text


def _latex_vector(v):
    return "[" + ",\\ ".join(_latex_number(x, 1, True) for x in v) + "]"
