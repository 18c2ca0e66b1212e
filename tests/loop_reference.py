"""Attention written as plain Python loops over lists, with `math` only: no numpy, no vectorisation.

An independent reference for the tests: every number is a sum the way it is written on paper.
Matrices are lists of rows; masks are lists of rows of bools (True = may attend); inputs are
single sequences, without batch dimensions. Each function counts the multiply-adds it performs in
`COUNTER`, so the cost formulas can be checked against work actually done.
"""
import math

COUNTER = {"macs": 0}


def dot(u, v):
    """u · v, counting one multiply-add per term."""
    total = 0.0
    for a, b in zip(u, v, strict=True):
        total += a * b
        COUNTER["macs"] += 1
    return total


def scores(Q, K):
    """(n_q, d_k), (n_k, d_k) -> (n_q, n_k): entry (i, j) is q_i · k_j."""
    return [[dot(q, k) for k in K] for q in Q]


def scaled_scores(Q, K, scale=None):
    """Scores times `scale`, by default 1/√d_k."""
    factor = 1.0 / math.sqrt(len(K[0])) if scale is None else scale
    return [[s * factor for s in row] for row in scores(Q, K)]


def softmax_row(row, allowed=None):
    """One row of weights; masked entries and -inf scores get 0; no allowed key gives all zeros."""
    allowed = [True] * len(row) if allowed is None else allowed
    live = [s for s, ok in zip(row, allowed, strict=True) if ok and s != -math.inf]
    if not live:
        return [0.0] * len(row)
    top = max(live)
    exps = [math.exp(s - top) if ok and s != -math.inf else 0.0 for s, ok in zip(row, allowed, strict=True)]
    total = math.fsum(exps)
    return [e / total for e in exps]


def softmax(S, mask=None):
    """Row by row: (n_q, n_k) -> (n_q, n_k)."""
    return [softmax_row(row, None if mask is None else mask[i]) for i, row in enumerate(S)]


def attend(Q, K, V, mask=None, scale=None):
    """(n_q, d_k), (n_k, d_k), (n_k, d_v) -> (out (n_q, d_v), weights (n_q, n_k))."""
    weights = softmax(scaled_scores(Q, K, scale), mask)
    d_v = len(V[0])
    out = [[dot(w_row, [v[c] for v in V]) for c in range(d_v)] for w_row in weights]
    return out, weights


def matmul(A, B):
    """(n, m) x (m, p) -> (n, p), without counting: projections are not attention's own work."""
    return [[math.fsum(a * B[k][c] for k, a in enumerate(row)) for c in range(len(B[0]))] for row in A]


def split_heads(X, n_heads):
    """(batch, n, d_model) -> (batch, n_heads, n, d_k): entry [b][h][i][c] is X[b][i][h·d_k + c]."""
    d_k = len(X[0][0]) // n_heads
    return [[[[row[h * d_k + c] for c in range(d_k)] for row in x] for h in range(n_heads)] for x in X]


def merge_heads(X):
    """(batch, n_heads, n, d_k) -> (batch, n, n_heads·d_k): row i is head 0's row i, then head 1's, … (code counts from 0)"""
    return [[[value for head in x for value in head[i]] for i in range(len(x[0]))] for x in X]


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, mask=None, b_Q=None, b_K=None, b_V=None, b_O=None):
    """(n, d_model) -> (out (n, d_model), weights (n_heads, n, n)); head h owns columns h·d_k … (h+1)·d_k - 1."""
    def project(W, b):
        Y = matmul(X, W)
        return Y if b is None else [[y + bias for y, bias in zip(row, b, strict=True)] for row in Y]

    Q, K, V = project(W_Q, b_Q), project(W_K, b_K), project(W_V, b_V)
    d_k = len(X[0]) // n_heads
    concat = [[] for _ in X]
    all_weights = []
    for h in range(n_heads):
        cols = range(h * d_k, (h + 1) * d_k)
        head = [[row[c] for c in cols] for row in Q], [[row[c] for c in cols] for row in K], [[row[c] for c in cols] for row in V]
        out, weights = attend(*head, mask)
        all_weights.append(weights)
        for i, row in enumerate(out):
            concat[i].extend(row)
    out = matmul(concat, W_O)
    if b_O is not None:
        out = [[y + bias for y, bias in zip(row, b_O, strict=True)] for row in out]
    return out, all_weights


def row_entropy(row, base=None):
    """-Σ w log w over the positive weights (0·log 0 = 0), in nats or in `base`."""
    h = -math.fsum(w * math.log(w) for w in row if w > 0)
    return h if base is None else h / math.log(base)


def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return [[j <= i for j in range(n_k)] for i in range(n_q)]


def sliding_window_mask(n, window):
    return [[i - window < j <= i for j in range(n)] for i in range(n)]


def strided_mask(n, stride):
    return [[j <= i and (i - j) % stride == 0 for j in range(n)] for i in range(n)]


def global_mask(n, positions):
    return [[i in positions or j in positions for j in range(n)] for i in range(n)]


def padding_mask(lengths, n):
    """One (1, n) mask per sequence: [[[j < length for j]] for each length]."""
    return [[[j < length for j in range(n)]] for length in lengths]


def sinusoidal_positions(n, d, base=10000):
    """Row p: sin and cos of p / base^(2i/d) at entries 2i and 2i + 1, as the original transformer writes it."""
    rows = []
    for p in range(n):
        row = []
        for entry in range(d):
            i = entry // 2
            angle = p / base ** (2 * i / d)
            row.append(math.sin(angle) if entry % 2 == 0 else math.cos(angle))
        rows.append(row)
    return rows


def rope(x, positions, base=10000):
    """Each row x[r] at position positions[r]: pair (x[2i], x[2i + 1]) turned by positions[r] / base^(2i/d)."""
    out = []
    for row, p in zip(x, positions, strict=True):
        d = len(row)
        turned = []
        for i in range(d // 2):
            a, b = row[2 * i], row[2 * i + 1]
            angle = p / base ** (2 * i / d)
            turned += [a * math.cos(angle) - b * math.sin(angle), a * math.sin(angle) + b * math.cos(angle)]
        out.append(turned)
    return out
