"""Attention Is a Heatmap: the problems, in code.

Fill in the fourteen functions below with plain Python and numpy, then run

    python problems.py

It runs your functions on the same variants as the Problems page and prints which steps pass.
Arrays are row vectors, as on the site: Q is (n_q, d_k), K is (n_k, d_k), a mask is boolean with
True = may attend. Nothing here talks to the network.
"""
import json
import sys

import numpy as np

TOLERANCE = 1e-6


def scale_scores(Q, K):
    """Q (n_q, d_k), K (n_k, d_k) -> the scaled scores QKᵀ/√d_k, shape (n_q, n_k)."""
    raise NotImplementedError("scale_scores: compute Q Kᵀ / √d_k")


def soften_rows(S, mask=None):
    """S (n_q, n_k) -> softmax of each row, shape (n_q, n_k); every row adds up to 1.

    With a boolean mask (True = may attend), a masked entry gets weight 0 and each row is a softmax
    over its allowed entries only.
    """
    raise NotImplementedError("soften_rows: compute the softmax of each row")


def weighted_sum(A, V):
    """A (n_q, n_k) weights, V (n_k, d_v) values -> the output A·V, shape (n_q, d_v)."""
    raise NotImplementedError("weighted_sum: compute A·V")


def attention_end_to_end(X, W_Q, W_K, W_V, mask=None):
    """X (n, d_model), W_Q and W_K (d_model, d_k), W_V (d_model, d_v) -> softmax(QKᵀ/√d_k)·V, shape (n, d_v).

    Q = X·W_Q, K = X·W_K, V = X·W_V; an optional boolean mask (n, n) with True = may attend.
    """
    raise NotImplementedError("attention_end_to_end: project, score, soften, sum")


def value_gradient(A, V, dO):
    """A (n_q, n_k) weights, V (n_k, d_v) values, dO (n_q, d_v) the loss's gradient at the output A·V
    -> dV = Aᵀ·dO, the gradient reaching the values, shape (n_k, d_v). (V is given but not needed.)"""
    raise NotImplementedError("value_gradient: compute Aᵀ·dO")


def score_gradient(A, V, dO):
    """A (n_q, n_k), V (n_k, d_v), dO (n_q, d_v) -> dS, the gradient reaching the scores, shape (n_q, n_k):
    dA = dO·Vᵀ, then dS = A ⊙ (dA − the row sums of dA ⊙ A). Every row of dS adds up to 0."""
    raise NotImplementedError("score_gradient: compute dA = dO·Vᵀ, then A ⊙ (dA − rowsum(dA ⊙ A))")


def source_digit(given):
    """given [[N, t, layers, heads, d_k, bytes per number]]: a decoder that reverses N digits, at the step that writes
    output digit t -> [[the source digit (counted from 1) the head that does the job attends to]]."""
    raise NotImplementedError("source_digit: which source digit is output digit t?")


def kv_cache_bytes(given):
    """given as in source_digit -> [[the bytes the KV cache holds after that step]]: every token read so far keeps a
    key and a value row of d_k numbers in every head of every layer."""
    raise NotImplementedError("kv_cache_bytes: tokens × layers × heads × (d_k + d_k) × bytes per number")


def step_dot_products(given):
    """given as in source_digit -> [[query–key dot products of that step with the KV cache, and recomputing every row]]."""
    raise NotImplementedError("step_dot_products: one query row against n keys, or n rows against n keys, per head and layer")


def sinusoid_entry(given):
    """given [[d, p, p′, entry, pair]]: a width d, a query's position p and a key's p′ (the tokens before each),
    an entry (counted from 1) and a pair r (counted from 1) -> [[that entry of the sinusoidal position vector PE at p]].
    Pair r holds entries 2r − 1 (a sine) and 2r (a cosine) of the angle p·ω, ω = 10000^(−2(r − 1)/d), in radians."""
    raise NotImplementedError("sinusoid_entry: sin or cos of p·10000^(−2(r − 1)/d) for the entry's pair r")


def rope_pair(given, q):
    """given as in sinusoid_entry, q (1, d) a query -> [[the two entries of q's pair r turned by RoPE to position p]]:
    (a, b) -> (a cos θ − b sin θ, a sin θ + b cos θ) with θ = p·10000^(−2(r − 1)/d)."""
    raise NotImplementedError("rope_pair: turn pair r of q by its angle p·ω")


def rope_score(given, q, k):
    """given as in sinusoid_entry, q and k (1, d) -> [[q̂ · k̂]]: the query turned to position p, the key to p′,
    every pair r by its own angle; their dot product, not divided by √d."""
    raise NotImplementedError("rope_score: turn q to p and k to p′ (or q by p − p′ alone), then the dot product")


def kv_heads_read(given):
    """given [[query heads, key/value heads, layers, d_k, tokens n, bytes per number]]: a layer whose query heads share
    key/value heads (grouped-query attention) -> [[the key/value head each query head reads, one entry per query head]],
    both counted from 1; a group's query heads are neighbours."""
    raise NotImplementedError("kv_heads_read: query head g reads key/value head ⌈g / (query heads / key/value heads)⌉")


def grouped_kv_cache(given):
    """given as in kv_heads_read -> [[numbers the KV cache keeps per token, its bytes after n tokens]]: every token keeps
    a key and a value row of d_k numbers for each key/value head (not each query head) of every layer."""
    raise NotImplementedError("grouped_kv_cache: layers × key/value heads × (d_k + d_k), then × n × bytes per number")


# ---------------------------------------------------------------- the checker (no need to read on)

CASES = json.loads("{}")  # the page's variants, written in by the site's build


def compare(got, expected):
    """None if `got` matches `expected` within TOLERANCE, else what is wrong, in words."""
    if got is None:
        return "returned None (forgot to return?)"
    try:
        got = np.asarray(got)
    except (TypeError, ValueError) as exc:
        return f"returned something that is not an array of numbers ({exc})"
    if got.dtype.kind not in "iuf":  # not real numbers: complex, text, booleans, objects
        return f"returned an array of {got.dtype} ({type(got.flat[0]).__name__ if got.size else 'empty'}), expected real numbers"
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:  # before any copy: a huge broadcast view must not be materialised
        return f"returned shape {got.shape}, expected {expected.shape}"
    got = got.astype(float)
    bad = ~(np.abs(got - expected) <= TOLERANCE)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        return f"entry ({i + 1}, {j + 1}) is {got[i, j]:.6g}, expected {expected[i, j]:.6g}"
    return None


def arrays(inputs):
    return {name: np.asarray(value, dtype=bool if name == "mask" else float) for name, value in inputs.items()}


STEPS = [
    ("scale_scores(Q, K)", "scale_scores"),
    ("soften_rows(S)", "soften_rows"),
    ("soften_rows(S, mask)", "soften_rows"),
    ("weighted_sum(A, V)", "weighted_sum"),
    ("attention_end_to_end(X, W_Q, W_K, W_V, mask)", "attention_end_to_end"),
    ("value_gradient(A, V, dO)", "value_gradient"),
    ("score_gradient(A, V, dO)", "score_gradient"),
    ("source_digit(given)", "source_digit"),
    ("kv_cache_bytes(given)", "kv_cache_bytes"),
    ("step_dot_products(given)", "step_dot_products"),
    ("sinusoid_entry(given)", "sinusoid_entry"),
    ("rope_pair(given, q)", "rope_pair"),
    ("rope_score(given, q, k)", "rope_score"),
    ("kv_heads_read(given)", "kv_heads_read"),
    ("grouped_kv_cache(given)", "grouped_kv_cache"),
]


def check_step(title, function):
    """-> (passed, message) for one step over all its variants."""
    cases = CASES[title]
    failures = []
    for case in cases:
        try:
            got = function(**arrays(case["inputs"]))
        except NotImplementedError:
            return False, "not implemented yet"
        except (Exception, SystemExit) as exc:  # the reader's code, even sys.exit(): report it, check the rest
            failures.append(f"{case['id']}: raised {type(exc).__name__}: {exc}")
            continue
        try:
            problem = compare(got, case["expected"])
        except (Exception, SystemExit) as exc:  # reading the answer runs the reader's code too (__array__, ...)
            problem = f"checking what it returned raised {type(exc).__name__}: {exc}"
        if problem:
            failures.append(f"{case['id']}: {problem}")
    if failures:
        return False, f"{len(cases) - len(failures)}/{len(cases)} variants pass; first failure: {failures[0]}"
    return True, f"{len(cases)}/{len(cases)} variants pass"


def main():
    print(f"Checking your functions on the Problems page's variants (tolerance {TOLERANCE:g}).\n")
    results = [check_step(title, globals()[name]) for title, name in STEPS]
    width = max(len(title) for title, _ in STEPS)
    for (title, _), (passed, message) in zip(STEPS, results):
        print(f"{'PASS' if passed else 'FAIL'}  {title:<{width}}  {message}")
    passed = sum(ok for ok, _ in results)
    print(f"\n{passed} of {len(STEPS)} steps pass.")
    return 0 if passed == len(STEPS) else 1


if __name__ == "__main__":
    sys.exit(main())
