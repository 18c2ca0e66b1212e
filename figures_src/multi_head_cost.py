"""Parameters and multiply-adds of one multi-head layer as the number of heads varies."""
import attention

from .tables import table

D_MODEL = 512
N = 1024
HEADS = (1, 2, 4, 8, 16)


def data():
    return {"rows": [(h, attention.multi_head_cost(N, D_MODEL, h)) for h in HEADS]}


def snippets(data):
    rows = [[str(h), str(c["d_k"]), f"{c['params']:,}", f"{c['projection_macs']:,}", f"{c['attention_macs']:,}",
             f"{c['total_macs']:,}"] for h, c in data["rows"]]
    costs = [c for _, c in data["rows"]]
    same = all(c["params"] == costs[0]["params"] and c["total_macs"] == costs[0]["total_macs"] for c in costs)
    verdict = ("Every row has the same parameter count and the same multiply-adds: more heads cost nothing "
               "extra; they buy several ways of looking at the same sequence."
               if same else "The rows differ: the claim does not hold for these settings.")
    return {
        "table": table(["heads $h$", "$d_k$", "parameters", "projections", "attention", "total"], rows),
        "setting": (f"$d_{{\\text{{model}}}} = {D_MODEL}$ and a sequence of $n = {N:,}$ tokens (no biases); the last "
                    "three columns are multiply-adds."),
        "verdict": verdict,
    }
