"""Scores (docs/scores.md): every query against every key, the largest score worked out by hand."""
import numpy as np

from ..engine import Example, example_heatmap
from ..engine.style import PHONE_WIDTH
from ..engine.text import latex_vector, num, table
from . import sentences

PAGE = "scores.md"


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


EX_SCORES = Example("ex-scores", page=PAGE, title="Scores for a five-token sentence",
                    data=lambda: sentences.self_attention_example(sentences.RUNNING), snippets=scores_snippets)

ITEMS = [
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
]
