"""A one-layer attention model trained in numpy: the task, the model, its gradients and Adam.

The task: copy the previous token. A sequence of N_POSITIONS tokens from a vocabulary of VOCAB is fed in;
at every position i ≥ 1 the model must name the token at i − 1. The pattern that solves it is known in
advance: query i puts all its weight on key i − 1, the sub-diagonal of the weights. Position 0 has no
previous token and is left out of the loss and of the match.

The model is one attention head and nothing else: x_i = [one-hot token ; one-hot position] (the positional
code is fixed, never learned), Q = X W_Q, K = X W_K, V = X W_V with d_v = VOCAB, and the output row of
position i is read directly as the logits of the next-token guess. Without the position half of x_i,
attention could not do the task at all: it sees its keys as a set, so a query cannot tell which key came
just before it.

Gradients come from the library's own `attention.attend_backward`; nothing here needs an autograd library.
"""
from dataclasses import dataclass

import numpy as np

import attention

VOCAB = 8
N_POSITIONS = 8
D_MODEL = VOCAB + N_POSITIONS
BATCH = 32
ADAM = dict(learning_rate=0.05, beta1=0.9, beta2=0.999, epsilon=1e-8)
TOKENS = "abcdefgh"  # the vocabulary's names, for the figures


@dataclass(frozen=True)
class Run:
    """One training run: its seed, the queries' and keys' width d_k, scaled by 1/√d_k or not, its length."""

    seed: int
    d_k: int
    scaled: bool = True
    steps: int = 150


def embed(tokens):
    """tokens (..., n) of integers < VOCAB -> X (..., n, D_MODEL): one-hot token, then one-hot position."""
    n = tokens.shape[-1]
    positions = np.broadcast_to(np.eye(N_POSITIONS)[:n], tokens.shape + (N_POSITIONS,))
    return np.concatenate([np.eye(VOCAB)[tokens], positions], axis=-1)


def initial_parameters(rng, d_k):
    """W_Q, W_K (D_MODEL, d_k) and W_V (D_MODEL, VOCAB), entries of variance 1/2: a row of X has two ones, so
    every entry of q, k and v starts with variance 1, the setting of the page on √d_k."""
    return {
        "W_Q": rng.normal(scale=np.sqrt(0.5), size=(D_MODEL, d_k)),
        "W_K": rng.normal(scale=np.sqrt(0.5), size=(D_MODEL, d_k)),
        "W_V": rng.normal(scale=np.sqrt(0.5), size=(D_MODEL, VOCAB)),
    }


def forward(params, X, scale):
    """-> Q, K, V, logits (..., n, VOCAB) = the attention output, weights (..., n, n)."""
    Q, K, V = X @ params["W_Q"], X @ params["W_K"], X @ params["W_V"]  # (..., n, D_MODEL) x (D_MODEL, ·)
    logits, weights = attention.attend(Q, K, V, scale=scale)
    return Q, K, V, logits, weights


def loss_and_gradients(params, tokens, scale):
    """Mean cross-entropy of the guesses at positions 1 … n−1, and its gradient for every parameter.

    With p = softmax(logits), the gradient at the logits is (p − one-hot(answer)) / (number of guesses);
    it is d_out for `attend_backward`, and dW_Q = Xᵀ dQ summed over the batch (likewise W_K, W_V).
    """
    X = embed(tokens)
    Q, K, V, logits, weights = forward(params, X, scale)
    answers = tokens[..., :-1]  # the token before each position 1 … n−1
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # (..., n, VOCAB)
    guesses = log_p[..., 1:, :]
    loss = -np.take_along_axis(guesses, answers[..., None], axis=-1).mean()
    d_logits = np.exp(log_p)
    d_logits[..., 0, :] = 0  # position 0 makes no guess
    d_logits[..., 1:, :] -= np.eye(VOCAB)[answers]
    d_logits /= answers.size
    dQ, dK, dV = attention.attend_backward(Q, K, V, d_logits, scale=scale)
    rows = X.reshape(-1, D_MODEL)  # every position of every sequence: (BATCH · n, D_MODEL)
    grads = {name: rows.T @ d.reshape(len(rows), -1) for name, d in (("W_Q", dQ), ("W_K", dK), ("W_V", dV))}
    return loss, grads, weights


def previous_token_weight(weights):
    """The mean weight each query i ≥ 1 puts on key i − 1: 1 when the pattern is exactly the sub-diagonal."""
    n = weights.shape[-1]
    return weights[..., np.arange(1, n), np.arange(n - 1)].mean()


def adam_step(params, grads, moments, done, learning_rate=ADAM["learning_rate"], beta1=ADAM["beta1"],
              beta2=ADAM["beta2"], epsilon=ADAM["epsilon"]):
    """One step of Adam (Kingma and Ba), after `done` others: moving averages of the gradient and of its square,
    bias-corrected; each parameter moves by at most about the learning rate, whatever its gradient's size.
    The decoder (models/decoder.py) trains with it too, at its own learning rate."""
    for name, grad in grads.items():
        mean, square = moments[name]
        mean += (1 - beta1) * (grad - mean)
        square += (1 - beta2) * (grad**2 - square)
        mean_hat = mean / (1 - beta1 ** (done + 1))
        square_hat = square / (1 - beta2 ** (done + 1))
        params[name] -= learning_rate * mean_hat / (np.sqrt(square_hat) + epsilon)


def train(run, shown_tokens=None, checkpoints=()):
    """Train on fresh random batches drawn from the run's seed; one row of history per step.

    -> {"loss", "match", "grad_W_Q", "entropy"} (steps,) each, measured on the step's batch before its
    update (match: `previous_token_weight`; grad_W_Q: the Frobenius norm ‖dW_Q‖; entropy: the mean row
    entropy in nats): row 0 is step 1 as the pages count, measured before any update. And "snapshots":
    {updates done: parameters} at the given checkpoints (0 is before training, run.steps after the last update).
    """
    rng = np.random.default_rng(run.seed)
    params = initial_parameters(rng, run.d_k)
    moments = {name: (np.zeros_like(p), np.zeros_like(p)) for name, p in params.items()}
    scale = None if run.scaled else 1.0
    history = {key: np.empty(run.steps) for key in ("loss", "match", "grad_W_Q", "entropy")}
    snapshots = {}
    for done in range(run.steps):  # updates done so far: this is step done + 1
        if done in checkpoints:
            snapshots[done] = {name: p.copy() for name, p in params.items()}
        tokens = rng.integers(0, VOCAB, size=(BATCH, N_POSITIONS))
        loss, grads, weights = loss_and_gradients(params, tokens, scale)
        history["loss"][done] = loss
        history["match"][done] = previous_token_weight(weights)
        history["grad_W_Q"][done] = np.linalg.norm(grads["W_Q"])
        history["entropy"][done] = attention.row_entropy(weights).mean()
        adam_step(params, grads, moments, done)
    if run.steps in checkpoints:
        snapshots[run.steps] = {name: p.copy() for name, p in params.items()}
    return {**history, "snapshots": snapshots}


def first_step_below(curve, threshold):
    """The first step at which `curve` (one entry per step) is below `threshold`, counted from 1 as the pages
    count steps, or None if it never is."""
    below = np.flatnonzero(curve < threshold)
    return int(below[0]) + 1 if below.size else None
