"""The simulations behind the scaling page: random queries and keys with entries of mean 0 and variance 1."""
import numpy as np

import attention

D_K = 2 ** np.arange(0, 11)  # 1, 2, 4, …, 1024
PAIRS = 4000  # query-key pairs per d_k for the variance
ROWS = 500  # score rows per d_k for saturation and gradients
N_KEYS = 16  # keys per row


def dot_variance(seed=1):
    """-> d_k, var(q·k), var(q·k/√d_k): the first grows like d_k, the second stays near 1."""
    rng = np.random.default_rng(seed)
    unscaled, scaled = [], []
    for d_k in D_K:
        q = rng.standard_normal((PAIRS, 1, d_k))
        k = rng.standard_normal((PAIRS, 1, d_k))
        dots = attention.scores(q, k)[:, 0, 0]  # (PAIRS,)
        unscaled.append(dots.var())
        scaled.append(attention.scaled_scores(q, k)[:, 0, 0].var())
    return {"d_k": D_K, "unscaled": np.array(unscaled), "scaled": np.array(scaled)}


def softmax_jacobian(w):
    """∂w_i/∂s_j = w_i (δ_ij − w_j) for each row: (..., n) -> (..., n, n)."""
    return w[..., :, None] * (np.eye(w.shape[-1]) - w[..., None, :])


def saturation(seed=2):
    """Per d_k, averaged over ROWS rows of N_KEYS keys: largest weight, row entropy and gradient size,
    for softmax(q·k) and softmax(q·k/√d_k)."""
    rng = np.random.default_rng(seed)
    rows = {key: [] for key in ("max_unscaled", "max_scaled", "entropy_unscaled", "entropy_scaled",
                                "grad_unscaled", "grad_scaled")}
    for d_k in D_K:
        q = rng.standard_normal((ROWS, 1, d_k))
        K = rng.standard_normal((ROWS, N_KEYS, d_k))
        for label, S in (("unscaled", attention.scores(q, K)), ("scaled", attention.scaled_scores(q, K))):
            w = attention.softmax(S)[:, 0]  # (ROWS, N_KEYS)
            rows[f"max_{label}"].append(w.max(axis=-1).mean())
            rows[f"entropy_{label}"].append(attention.row_entropy(w).mean())
            rows[f"grad_{label}"].append(np.abs(softmax_jacobian(w)).max(axis=(-2, -1)).mean())
    return {"d_k": D_K, "n_keys": N_KEYS, **{key: np.array(v) for key, v in rows.items()}}
