"""What attention costs: the n × n score table and the multiply-adds around it."""
from ._checks import positive_int


def attention_cost(n, d_k, d_v=None, n_heads=1, itemsize=4):
    """Size of the score table and work of the two products, for one sequence of length n.

    -> dict: score_entries = n_heads·n², score_bytes = score_entries·itemsize,
    qk_macs = n_heads·n²·d_k (Q Kᵀ), av_macs = n_heads·n²·d_v (weights · V). Doubling n quadruples all four.
    A decoder that generates one token at a time keeps every earlier token's key and value instead of
    recomputing them (the KV cache): kv_bytes_per_token = n_heads·(d_k + d_v)·itemsize, and
    kv_cache_bytes = n·kv_bytes_per_token for the n tokens so far; these grow with n, not n².
    """
    n = positive_int("n", n)
    d_k = positive_int("d_k", d_k)
    d_v = d_k if d_v is None else positive_int("d_v", d_v)
    n_heads = positive_int("n_heads", n_heads)
    itemsize = positive_int("itemsize", itemsize)
    entries = n_heads * n * n
    return {
        "score_entries": entries,
        "score_bytes": entries * itemsize,
        "qk_macs": entries * d_k,
        "av_macs": entries * d_v,
        "kv_bytes_per_token": n_heads * (d_k + d_v) * itemsize,
        "kv_cache_bytes": n * n_heads * (d_k + d_v) * itemsize,
    }


def multi_head_cost(n, d_model, n_heads):
    """Parameters and multiply-adds of one multi-head attention layer with d_k = d_model / n_heads.

    -> dict: d_k, params (W_Q, W_K, W_V, W_O: 4·d_model², whatever n_heads is),
    projection_macs (4·n·d_model²), attention_macs (QKᵀ and weights·V over all heads: 2·n²·d_model),
    total_macs.
    """
    n = positive_int("n", n)
    d_model = positive_int("d_model", d_model)
    n_heads = positive_int("n_heads", n_heads)
    if d_model % n_heads:
        raise ValueError(f"d_model = {d_model} is not divisible by n_heads = {n_heads}")
    d_k = d_model // n_heads
    per_head = attention_cost(n, d_k, n_heads=n_heads)
    projection_macs = 4 * n * d_model * d_model
    attention_macs = per_head["qk_macs"] + per_head["av_macs"]
    return {
        "d_k": d_k,
        "params": 4 * d_model * d_model,
        "projection_macs": projection_macs,
        "attention_macs": attention_macs,
        "total_macs": projection_macs + attention_macs,
    }
