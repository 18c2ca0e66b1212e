"""Without scaling, softmax saturates as d_k grows: one weight takes everything."""
import numpy as np

from . import scaling_sim

SIZE = (4.8, 5.0)


def data():
    return scaling_sim.saturation()


def caption(data):
    return (
        f"Rows of {data['n_keys']} random keys against one random query, {scaling_sim.ROWS} rows per d_k. Above: "
        "the largest weight in a row, on average. Below: the row's entropy in nats. Unscaled rows collapse "
        "onto one key as d_k grows; scaled rows stay spread out."
    )


def alt(data):
    return (
        f"Two panels against d_k from {data['d_k'][0]} to {data['d_k'][-1]}. The average largest weight climbs "
        f"from {data['max_unscaled'][0]:.2f} to {data['max_unscaled'][-1]:.2f} without scaling and stays near "
        f"{data['max_scaled'][-1]:.2f} with it. The average entropy falls from {data['entropy_unscaled'][0]:.2f} "
        f"to {data['entropy_unscaled'][-1]:.2f} nats without scaling and stays near {data['entropy_scaled'][-1]:.2f} with it."
    )


def table(data):
    return {
        "caption": "Average largest weight and row entropy (nats)",
        "columns": ["d_k", "largest weight, unscaled", "largest weight, scaled", "entropy, unscaled", "entropy, scaled"],
        "rows": [
            [int(d), a, b, c, e]
            for d, a, b, c, e in zip(data["d_k"], data["max_unscaled"], data["max_scaled"],
                                     data["entropy_unscaled"], data["entropy_scaled"])
        ],
    }


def render(data, fig):
    left, right = fig.subplots(2, 1, sharex=True)
    d_k = data["d_k"]
    for ax, key, label in ((left, "max", "largest weight in a row"), (right, "entropy", "row entropy (nats)")):
        ax.plot(d_k, data[f"{key}_unscaled"], marker="o", markersize=4, label="unscaled")
        ax.plot(d_k, data[f"{key}_scaled"], marker="s", markersize=4, label="scaled by 1/√d_k")
        ax.set_xscale("log", base=2)
        ax.set_xticks(d_k, labels=[str(int(d)) for d in d_k])
        ax.set_ylabel(label)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    right.set_xlabel("d_k")
    left.set_ylim(0, 1)
    right.axhline(np.log(data["n_keys"]), color="#9e9e9e", linestyle=":", linewidth=1)
    right.text(d_k[-1], np.log(data["n_keys"]), f"uniform: ln {data['n_keys']}", ha="right", va="bottom", fontsize=8)
    right.set_ylim(0, np.log(data["n_keys"]) * 1.12)
    left.legend(frameon=False, loc="center right")
