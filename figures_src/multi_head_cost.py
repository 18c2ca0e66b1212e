"""Parameters and multiply-adds of one multi-head layer as the number of heads varies."""
import attention

from .tables import table

D_MODEL = 512
N = 1024
HEADS = (1, 2, 4, 8, 16)


def data():
    return {"rows": [(h, attention.multi_head_cost(N, D_MODEL, h)) for h in HEADS]}


def snippets(data):
    costs = [c for _, c in data["rows"]]
    rows = [[str(h), str(c["d_k"]), f"{c['params']:,}", f"{c['total_macs']:,}"] for h, c in data["rows"]]
    same = all(c[key] == costs[0][key] for c in costs for key in ("params", "projection_macs", "attention_macs"))
    if same:
        verdict = (
            "Every row has the same parameter count and the same multiply-adds — "
            f"{costs[0]['projection_macs']:,} in the four projections and {costs[0]['attention_macs']:,} in the two "
            "attention products, whatever $h$ is. More heads cost nothing extra; they buy several ways of looking "
            "at the same sequence."
        )
    else:
        verdict = "The rows differ: the claim does not hold for these settings."
    return {
        "table": table(["heads $h$", "$d_k$", "parameters", "multiply-adds"], rows),
        "setting": f"$d_{{\\text{{model}}}} = {D_MODEL}$ and a sequence of $n = {N}$ tokens (no biases):",
        "verdict": verdict,
    }
