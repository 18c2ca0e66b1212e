"""Cost (docs/cost.md): the n × n table's memory against the sequence length, computed and measured."""
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np

import attention

from ..engine import Figure
from ..engine.style import PHONE_WIDTH
from ..engine.text import table

PAGE = "cost.md"
D_K = 64
ITEMSIZE = 4  # float32
WINDOW = 512
BLOCK = 128
SEED = 5
LENGTHS = 2 ** np.arange(8, 18)  # 256 … 131072 (computed sizes)
MEASURED = 2 ** np.arange(8, 11)  # 256 … 1024, measured (larger n only takes longer to show the same slope)
# Measured peaks are rounded down to whole 4 KiB: tracemalloc also counts a few hundred bytes of Python
# objects, and those differ between Python versions (321.1 KiB on 3.11 was 321 KiB on 3.12). Today's peaks
# sit at least 1 KiB away from a multiple of 4 KiB (tests/test_pipeline.py checks the margin).
GRANULARITY = 4096


def peak_bytes(fn, *args, **kwargs):
    """Peak bytes numpy allocated while `fn` ran (tracemalloc sees numpy's buffers): deterministic for
    a fixed workload, numpy version and code path."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def measure():
    """Peak bytes of attend and attend_chunked on seeded float32 inputs, one n after another."""
    rng = np.random.default_rng(SEED)
    warm = rng.standard_normal((8, D_K)).astype(np.float32)
    attention.attend(warm, warm, warm)  # first calls fill one-off caches of numpy and Python; not measured
    attention.attend_chunked(warm, warm, warm, block_size=4)
    measured = {"attend": [], "attend_chunked": []}
    for n in MEASURED:
        Q, K, V = (rng.standard_normal((int(n), D_K)).astype(np.float32) for _ in range(3))
        measured["attend"].append(peak_bytes(attention.attend, Q, K, V))
        measured["attend_chunked"].append(peak_bytes(attention.attend_chunked, Q, K, V, block_size=BLOCK))
    return measured


def measure_in_fresh_process():
    """`measure()` in a new interpreter: numpy's small-buffer cache and the allocator then start from the
    same state every time, so the peaks (and the figure) are the same from build to build."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    result = subprocess.run([sys.executable, "-m", __name__], cwd=Path(__file__).resolve().parents[2], env=env,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def rounded_down(peaks):
    """Peak bytes rounded down to whole GRANULARITY bytes: what the page prints does not depend on the Python."""
    return [int(b) // GRANULARITY * GRANULARITY for b in peaks]


def memory_data():
    full = np.array([attention.attention_cost(int(n), D_K, itemsize=ITEMSIZE)["score_bytes"] for n in LENGTHS])
    window = LENGTHS * np.minimum(WINDOW, LENGTHS) * ITEMSIZE  # the band a sliding-window kernel computes
    chunked = np.minimum(BLOCK, LENGTHS) ** 2 * ITEMSIZE  # one block × block piece of the table at a time
    measured = measure_in_fresh_process()
    measured_full, measured_chunked = (rounded_down(measured[name]) for name in ("attend", "attend_chunked"))
    doubling = [attention.attention_cost(int(n), D_K, itemsize=ITEMSIZE) for n in (1024, 2048, 4096, 8192)]
    return {
        "n": LENGTHS, "full": full, "window": window, "chunked": chunked,
        "measured_n": MEASURED, "measured_full": np.array(measured_full), "measured_chunked": np.array(measured_chunked),
        "doubling_n": [1024, 2048, 4096, 8192], "doubling": doubling,
    }


def memory_caption(data):
    return (
        f"Bytes of score table per head and sequence, float32, dₖ = {D_K}, log–log. Lines: computed sizes of the "
        f"largest score array — the whole n × n table, a band of {WINDOW} keys per query, one {BLOCK} × {BLOCK} block "
        f"at a time. Markers: peak memory measured with tracemalloc while attention.attend and "
        f"attention.attend_chunked ran, rounded down to whole {GRANULARITY // 1024} KiB."
    )


def memory_alt(data):
    return (
        f"Log-log plot of bytes against n from {data['n'][0]} to {data['n'][-1]}. The full table grows as n², "
        f"reaching {byte_size(data['full'][-1])}; the window's band grows as n, reaching {byte_size(data['window'][-1])}; "
        f"the chunked path's block of scores stays at {byte_size(data['chunked'][-1])} whatever n is."
    )


def byte_size(b):
    b = float(b)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "bytes" else f"{b:.1f} {unit}".replace(".0 ", " ")
        b /= 1024


def memory_table(data):
    measured = dict(zip(data["measured_n"].tolist(), zip(data["measured_full"], data["measured_chunked"])))
    rows = []
    for n, f, w, c in zip(data["n"], data["full"], data["window"], data["chunked"]):
        mf, mc = measured.get(int(n), ("", ""))
        rows.append([int(n), byte_size(f), byte_size(w), byte_size(c), byte_size(mf) if mf != "" else "—", byte_size(mc) if mc != "" else "—"])
    return {
        "caption": "Score memory per head and sequence",
        "columns": ["n", "full table", f"window {WINDOW}", f"block {BLOCK}²", "measured attend", "measured chunked"],
        "rows": rows,
    }


def memory_render(data, ax):
    n = data["n"]
    ax.plot(n, data["full"], marker="o", markersize=3, label="full n × n table")
    ax.plot(n, data["window"], marker="^", markersize=3, label=f"sliding window ({WINDOW} keys)")
    ax.plot(n, data["chunked"], marker="s", markersize=3, label=f"chunked ({BLOCK} × {BLOCK} block)")
    ax.scatter(data["measured_n"], data["measured_full"], s=40, facecolors="none", edgecolors="#0072B2",
               label="measured: attend")
    ax.scatter(data["measured_n"], data["measured_chunked"], s=40, facecolors="none", edgecolors="#009E73",
               marker="D", label="measured: attend_chunked")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(n[::3], labels=[f"{int(v):,}" for v in n[::3]])
    ticks = 2.0 ** np.arange(14, 39, 8)
    ax.set_yticks(ticks, labels=[byte_size(t) for t in ticks])
    ax.set_xlabel("sequence length $n$")
    ax.set_ylabel("bytes")
    ax.figure.legend(loc="outside lower center", frameon=False)  # below: the plot keeps a phone's width
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def memory_snippets(data):
    rows, previous = [], None
    for n, cost in zip(data["doubling_n"], data["doubling"]):
        ratio = "—" if previous is None else f"{cost['score_entries'] / previous['score_entries']:g}×"
        rows.append([f"{n:,}", ratio, f"{cost['score_entries']:,}", byte_size(cost["score_bytes"])])
        previous = cost
    doubling = table(["n", "× previous", "entries $n^2$", "bytes"], rows)
    first, last = data["doubling"][0], data["doubling"][-1]
    doubling += (
        f"\nThe multiply-adds of $QK^{{\\text{{T}}}}$ grow the same way: {first['qk_macs']:,} at $n = {data['doubling_n'][0]}$, "
        f"{last['qk_macs']:,} at $n = {data['doubling_n'][-1]}$ — "
        f"{last['qk_macs'] // first['qk_macs']} times the work for {data['doubling_n'][-1] // data['doubling_n'][0]} "
        "times the length.\n"
    )
    measured = table(
        ["n", "attend", "attend_chunked", "ratio"],
        [[f"{int(n):,}", byte_size(f), byte_size(c), f"{f / c:.1f}×"]
         for n, f, c in zip(data["measured_n"], data["measured_full"], data["measured_chunked"])],
    )
    last = -1
    facts = {
        "longest": f"{int(data['n'][last]):,}",
        "full_longest": byte_size(data["full"][last]),
        "window_longest": byte_size(data["window"][last]),
        "chunked_longest": byte_size(data["chunked"][last]),
    }
    sentence = (
        f"At n = {facts['longest']} tokens one head's full score table takes {facts['full_longest']}; a window of "
        f"{WINDOW} keys needs {facts['window_longest']} and the chunked path holds {facts['chunked_longest']} of "
        f"scores at a time."
    )
    return {"doubling": doubling, "measured": measured, "longest": sentence}


ITEMS = [
    Figure("cost-memory", title="Memory against sequence length: the full score table, a sliding window, and the chunked path.",
           data=memory_data, render=memory_render, caption=memory_caption, alt=memory_alt, table=memory_table,
           snippets=memory_snippets, size=(PHONE_WIDTH, 5.0)),
]


if __name__ == "__main__":  # measure_in_fresh_process runs this module on its own
    print(json.dumps(measure()))
