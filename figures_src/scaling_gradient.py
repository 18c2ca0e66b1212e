"""As scores grow, the softmax's gradient shrinks toward zero."""
from . import scaling_sim

SIZE = (5.0, 3.3)


def data():
    return scaling_sim.saturation()


def caption(data):
    return (
        "The largest entry of the softmax's Jacobian ∂w_i/∂s_j = w_i(δ_ij − w_j) in a row, averaged over the "
        "same random rows as above. Unscaled, the scores grow with d_k, the row saturates and the slope that "
        "learning follows dies away; scaled, it holds steady."
    )


def alt(data):
    return (
        f"Log-scale plot against d_k from {data['d_k'][0]} to {data['d_k'][-1]}. The unscaled gradient falls "
        f"from {data['grad_unscaled'][0]:.3f} to {data['grad_unscaled'][-1]:.3f}; the scaled one stays between "
        f"{data['grad_scaled'].min():.3f} and {data['grad_scaled'].max():.3f}."
    )


def table(data):
    return {
        "caption": "Average largest |∂w_i/∂s_j| per row",
        "columns": ["d_k", "unscaled", "scaled by 1/√d_k"],
        "rows": [[int(d), f"{u:.4f}", f"{s:.4f}"] for d, u, s in zip(data["d_k"], data["grad_unscaled"], data["grad_scaled"])],
    }


def render(data, ax):
    d_k = data["d_k"]
    ax.plot(d_k, data["grad_unscaled"], marker="o", markersize=4, label="unscaled")
    ax.plot(d_k, data["grad_scaled"], marker="s", markersize=4, label="scaled by 1/√d_k")
    ax.set_xscale("log", base=2)
    ax.set_xticks(d_k, labels=[str(int(d)) for d in d_k])
    ax.set_ylim(0, 0.25)
    ax.set_xlabel("d_k")
    ax.set_ylabel("largest |∂w_i/∂s_j| in a row")
    ax.legend(frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
