"""The spread of q·k grows with d_k; dividing by √d_k holds it at 1."""
import numpy as np

from . import scaling_sim

SIZE = (5.0, 3.3)


def data():
    return scaling_sim.dot_variance()


def caption(data):
    return (
        f"Variance of the dot product of a random query and key (entries of mean 0 and variance 1), "
        f"{scaling_sim.PAIRS} pairs per width d_k. Unscaled it tracks d_k; divided by √d_k it stays near 1."
    )


def alt(data):
    return (
        f"Log-log plot against d_k from {data['d_k'][0]} to {data['d_k'][-1]}. The unscaled variance rises "
        f"along the line var = d_k, reaching {data['unscaled'][-1]:.0f} at d_k = {data['d_k'][-1]}; the scaled "
        f"variance stays flat between {data['scaled'].min():.2f} and {data['scaled'].max():.2f}."
    )


def table(data):
    return {
        "caption": "Variance of q·k and of q·k/√d_k",
        "columns": ["d_k", "var(q·k)", "var(q·k/√d_k)"],
        "rows": [[int(d), u, s] for d, u, s in zip(data["d_k"], data["unscaled"], data["scaled"])],
    }


def render(data, ax):
    d_k = data["d_k"]
    ax.plot(d_k, d_k, color="#9e9e9e", linestyle=":", linewidth=1, label="var = d_k")
    ax.plot(d_k, data["unscaled"], marker="o", markersize=4, label="q·k (unscaled)")
    ax.plot(d_k, data["scaled"], marker="s", markersize=4, label="q·k / √d_k (scaled)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(d_k, labels=[str(int(d)) for d in d_k])
    ticks = d_k[::2]
    ax.set_yticks(ticks, labels=[str(int(t)) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("d_k (entries per query and key)")
    ax.set_ylabel("variance of the score")
    ax.legend(frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
