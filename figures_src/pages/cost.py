"""Cost (docs/cost.md): the n × n table's memory against the sequence length, computed and measured."""
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

from decimal import Decimal

import numpy as np

import attention
from models.smollm.model import CACHE_ITEMSIZE  # float32, as the browser keeps the cache

from ..engine import Example, Figure, Snippets, Words
from ..engine.errors import BuildError
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH
from ..engine.text import Shown, as_many, by_hand, is_tie, latex_number, latex_vector, num, table
from ..engine.words import listed
from . import sentences

WORDS = Words("words/cost.md")
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
    return WORDS.line("cost-memory-caption", d_k=D_K, window=WINDOW, block=BLOCK, granularity=GRANULARITY // 1024)


def memory_claims(data):
    """What the page says about the sizes: each doubling of n makes the full table 4 times bigger (as n²), the
    window's band grows as n once n is past the window, and the chunked path's block stays the same."""
    full, window, chunked, n = (np.asarray(data[k]) for k in ("full", "window", "chunked", "n"))
    if not (full[1:] == 4 * full[:-1]).all():
        raise BuildError("cost-memory: the page says the full table grows fourfold with each doubling of n")
    past = n >= WINDOW
    if not (window[past][1:] == 2 * window[past][:-1]).all():
        raise BuildError("cost-memory: the page says the window's band grows as n")
    if not (chunked == chunked[-1]).all():
        raise BuildError("cost-memory: the page says the chunked path's block stays the same whatever n is")


def memory_alt(data):
    memory_claims(data)
    return WORDS.line("cost-memory-alt", shortest=str(data["n"][0]), longest=str(data["n"][-1]),
                      full=byte_size(data["full"][-1]), window=byte_size(data["window"][-1]),
                      chunked=byte_size(data["chunked"][-1]))


def byte_size(b):
    b = float(b)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "bytes" else f"{b:.1f} {unit}".replace(".0 ", " ")
        b /= 1024


def kib(b):
    """Bytes that are whole KiB (the measured peaks, rounded down to GRANULARITY), printed exactly: "1,164 KiB", so a
    ratio of two of them follows from what the page prints (1.1 MiB / 324 KiB did not give the 3.6× beside it)."""
    if int(b) % 1024:
        raise BuildError(f"cost-memory: {b} bytes is not a whole number of KiB, and would print rounded")
    return f"{int(b) // 1024:,} KiB"


def memory_table(data):
    measured = dict(zip(data["measured_n"].tolist(), zip(data["measured_full"], data["measured_chunked"])))
    rows = []
    for n, f, w, c in zip(data["n"], data["full"], data["window"], data["chunked"]):
        mf, mc = measured.get(int(n), ("", ""))
        rows.append([int(n), *(Shown(int(b), byte_size(b)) for b in (f, w, c)),
                     *(Shown(int(b), kib(b)) if b != "" else Shown("", "—") for b in (mf, mc))])
    # the CSV's header names its unit
    bytes_ = lambda label: Shown(WORDS.line("cost-memory-table/in-bytes", column=label), label)  # noqa: E731
    return {
        "caption": WORDS.line("cost-memory-table"),
        "columns": ["n", *map(bytes_, [WORDS.line("cost-memory-table/full-column"),
                                        WORDS.line("cost-memory-table/window-column", window=WINDOW),
                                        WORDS.line("cost-memory-table/block-column", block=BLOCK),
                                        WORDS.line("cost-memory-table/measured-attend-column"),
                                        WORDS.line("cost-memory-table/measured-chunked-column")])],
        "rows": rows,
    }


def memory_render(data, ax):
    n = data["n"]
    ax.plot(n, data["full"], marker="o", markersize=3, label=WORDS.line("cost-memory/full-legend"))
    ax.plot(n, data["window"], marker="^", markersize=3, label=WORDS.line("cost-memory/window-legend", window=WINDOW))
    ax.plot(n, data["chunked"], marker="s", markersize=3, label=WORDS.line("cost-memory/chunked-legend", block=BLOCK))
    ax.scatter(data["measured_n"], data["measured_full"], s=40, facecolors="none", edgecolors="#0072B2",
               label=WORDS.line("cost-memory/measured-attend-legend"))
    ax.scatter(data["measured_n"], data["measured_chunked"], s=40, facecolors="none", edgecolors="#009E73",
               marker="D", label=WORDS.line("cost-memory/measured-chunked-legend"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(n[::3], labels=[f"{int(v):,}" for v in n[::3]])
    ticks = 2.0 ** np.arange(14, 39, 8)
    ax.set_yticks(ticks, labels=[byte_size(t) for t in ticks])
    ax.set_xlabel(WORDS.line("cost-memory/x-axis"))
    ax.set_ylabel(WORDS.line("cost-memory/y-axis"))
    ax.figure.legend(loc="outside lower center", frameon=False)  # below: the plot keeps a phone's width
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def exact_ratio(a, b):
    """a / b for two printed integers, when it is a whole number (the page writes it as one): a BuildError otherwise."""
    if a % b:
        raise BuildError(f"cost-memory: {a:,} / {b:,} is not a whole number, and the page prints it as one")
    return a // b


def memory_snippets(data):
    memory_claims(data)
    rows, previous = [], None
    for n, cost in zip(data["doubling_n"], data["doubling"]):
        if previous is not None and cost["score_entries"] != 4 * previous["score_entries"]:
            raise BuildError(f"cost-memory: the page says doubling n makes the table four times bigger; at n = {n} "
                             f"it has {cost['score_entries']:,} entries against {previous['score_entries']:,}")
        ratio = "—" if previous is None else f"{cost['score_entries'] / previous['score_entries']:g}×"
        rows.append([f"{n:,}", ratio, f"{cost['score_entries']:,}", byte_size(cost["score_bytes"])])
        previous = cost
    doubling = table(["n", WORDS.line("cost-memory-doubling/previous-column"),
                      WORDS.line("cost-memory-doubling/entries-column"),
                      WORDS.line("cost-memory-doubling/bytes-column")],
                     rows)
    first, last = data["doubling"][0], data["doubling"][-1]
    doubling += "\n" + WORDS.fill(
        "cost-memory-doubling", first_macs=f"{first['qk_macs']:,}", first_n=data["doubling_n"][0],
        last_macs=f"{last['qk_macs']:,}", last_n=data["doubling_n"][-1],
        work=exact_ratio(last["qk_macs"], first["qk_macs"]),
        length=exact_ratio(data["doubling_n"][-1], data["doubling_n"][0])) + "\n"
    measured = table(
        ["n", "attend", "attend_chunked", WORDS.line("cost-memory-measured/ratio-column")],
        [[f"{int(n):,}", kib(f), kib(c), f"{f / c:.1f}×"]  # f / c is the ratio of the printed KiB: both are whole KiB
         for n, f, c in zip(data["measured_n"], data["measured_full"], data["measured_chunked"])],
    )
    last = -1
    sentence = WORDS.fill("cost-memory-longest", longest=f"{int(data['n'][last]):,}",
                          full=byte_size(data["full"][last]), window=WINDOW,
                          window_bytes=byte_size(data["window"][last]),
                          chunked=byte_size(data["chunked"][last]))
    return {"doubling": doubling, "measured": measured, "longest": sentence}


# ---------------------------------------------------------------- online softmax, worked through

ONLINE_BLOCK = 3  # keys per block: the running sentence's five keys in two blocks, 3 and 2


def online_query(scaled, block_size):
    """The query whose running maximum grows most from the first block of keys to the second, so the
    rescaling has something to do; a build error if no row's maximum grows."""
    growth = scaled[:, block_size:2 * block_size].max(axis=1) - scaled[:, :block_size].max(axis=1)
    i = int(np.argmax(growth))
    if growth[i] <= 0:
        raise BuildError("ex-online-softmax: no query's maximum grows in the second block; pick other blocks")
    return i


def online_blocks(s, V, block_size):
    """One query's online softmax, the way `attend_chunked` walks its keys (attention/attend.py, _attend_block):
    s (n_k,) its scaled scores, V (n_k, d_v) -> one dict per block: keys, block_max, running_max, rescale
    (e^(old max − new max)), exponentials e^(s_j − running max), denominator and acc after the block."""
    running_max, denominator, acc = -np.inf, 0.0, np.zeros(V.shape[1])
    blocks = []
    for start in range(0, len(s), block_size):
        keys = list(range(start, min(start + block_size, len(s))))
        block_max = float(s[keys].max())
        new_max = max(running_max, block_max)
        rescale = float(np.exp(running_max - new_max))  # 0 before the first block (e^−∞)
        e = np.exp(s[keys] - new_max)
        denominator = denominator * rescale + e.sum()
        acc = acc * rescale + e @ V[keys]
        running_max = new_max
        blocks.append({"keys": keys, "block_max": block_max, "running_max": new_max, "rescale": rescale,
                       "exponentials": e, "denominator": float(denominator), "acc": acc.copy()})
    return blocks


def online_example():
    example = sentences.self_attention_example(sentences.RUNNING)
    steps = example["steps"]
    i = online_query(steps["scaled_scores"], ONLINE_BLOCK)
    blocks = online_blocks(steps["scaled_scores"][i], steps["V"], ONLINE_BLOCK)
    example["outputs"]["out"] = attention.attend_chunked(steps["Q"], steps["K"], steps["V"], block_size=ONLINE_BLOCK)
    return {**example, "query": i, "block_size": ONLINE_BLOCK, "blocks": blocks}


def exact_text(value, digits):
    """`value` (a Decimal known exactly) printed with `digits` decimals, refusing a tie a reader could round either
    way; -> (text, the Decimal a reader reads)."""
    if is_tie(value, digits):
        raise BuildError(f"ex-online-softmax: {value} printed with {digits} decimals is a tie")
    rounded = value.quantize(Decimal(1).scaleb(-digits))
    return num(rounded, digits), rounded


def online_by_hand(example, exp_digits):
    """The walk through as a reader redoes it from the printed numbers: scores (3 decimals, exact), exponentials
    (`exp_digits`), values (1 decimal, exact); products and sums exact, the rescaled sum and vector to 8 decimals."""
    i, steps = example["query"], example["steps"]
    s = [by_hand(x, 3)[1] for x in steps["scaled_scores"][i]]
    V = [[by_hand(x, 1)[1] for x in row] for row in steps["V"]]
    walk, denominator, acc = [], None, None
    for block in example["blocks"]:
        m = max(s[j] for j in block["keys"]) if denominator is None else max(walk[-1]["m"], *(s[j] for j in block["keys"]))
        step = {"keys": block["keys"], "m": m, "block_max": max(s[j] for j in block["keys"])}
        if denominator is not None:
            step["rescale"] = by_hand(np.exp(float(walk[-1]["m"] - m)), 4)
            r = step["rescale"][1]
            step["denominator_rescaled"] = exact_text(denominator * r, 8)
            step["acc_rescaled"] = [exact_text(a * r, 8) for a in acc]
            denominator, acc = step["denominator_rescaled"][1], [a[1] for a in step["acc_rescaled"]]
        step["e"] = [by_hand(np.exp(float(s[j] - m)), exp_digits) for j in block["keys"]]
        step["ev"] = [[e[1] * v for v in V[j]] for e, j in zip(step["e"], block["keys"])]
        block_sum = sum(e[1] for e in step["e"])
        block_acc = [sum(row[c] for row in step["ev"]) for c in range(len(V[0]))]
        step["block_sum"], step["block_acc"] = block_sum, block_acc
        denominator = block_sum if denominator is None else denominator + block_sum
        acc = block_acc if acc is None else [a + b for a, b in zip(acc, block_acc)]
        step["denominator"], step["acc"] = denominator, acc
        walk.append(step)
    out = [a / denominator for a in acc]
    return {"s": s, "V": V, "walk": walk, "out": out}


def online_snippets(example):
    tokens, i = example["tokens"], example["query"]
    chunked = example["outputs"]["out"][i]
    for exp_digits in range(4, 9):  # the fewest decimals whose walk lands on the printed output
        hand = online_by_hand(example, exp_digits)
        if all(num(h, 4) == num(c, 4) and not is_tie(h, 4) for h, c in zip(hand["out"], chunked)):
            break
    else:
        raise BuildError("ex-online-softmax: the printed walk does not reach attend_chunked's output to 4 decimals")
    ev_digits = exp_digits + 1
    d_v = len(hand["V"][0])
    parts = {}
    split = example["blocks"][1]["keys"][0]
    printed = [latex_number(x, 3) for x in hand["s"]]
    scores = ", ".join(printed[:split]) + " \\mid " + ", ".join(printed[split:])
    library_sum = example["blocks"][0]["denominator"] * example["blocks"][1]["rescale"]
    parts["setup"] = WORDS.fill("ex-online-softmax-setup", token=tokens[i], row=i + 1, block_size=example["block_size"],
                                scores=scores, exp_digits=exp_digits, library_sum=num(library_sum, 8))
    for b, step in enumerate(hand["walk"]):
        rows = []
        for j, e, ev in zip(step["keys"], step["e"], step["ev"]):
            rows.append([f"**{tokens[j]}**", num(hand["s"][j], 3), e[0], *(num(x, ev_digits) for x in ev)])
        rows.append([WORDS.line("ex-online-softmax-block/sum-row"), "", f"**{num(step['block_sum'], exp_digits)}**",
                     *(f"**{num(x, ev_digits)}**" for x in step["block_acc"])])
        columns = [WORDS.line("ex-online-softmax-block/key-column"), "$\\tilde{s}_j$",
                   f"$e^{{\\tilde{{s}}_j - {num(step['m'], 3).replace('−', '-')}}}$",
                   *(WORDS.line("ex-online-softmax-block/entry-column", entry=c + 1) for c in range(d_v))]
        keys = step["keys"]
        where = WORDS.line("ex-online-softmax-block/keys" if len(keys) > 2 else
                           "ex-online-softmax-block/two-keys" if len(keys) == 2 else "ex-online-softmax-block/key",
                           first=keys[0] + 1, **({"last": keys[-1] + 1} if len(keys) > 1 else {}))
        lead = WORDS.line("ex-online-softmax-block/first-lead" if b == 0 else "ex-online-softmax-block/next-lead")
        parts[f"block{b + 1}"] = (WORDS.fill("ex-online-softmax-block", block=b + 1, keys=where,
                                             tokens=listed([tokens[j] for j in keys], "comma"), lead=lead,
                                             maximum=num(step["m"], 3)) + "\n\n" + table(columns, rows))
    first, second = hand["walk"]
    r_text, _ = second["rescale"]
    total_terms = [second["denominator_rescaled"][0], *(e[0] for e in second["e"])]
    parts["rescale"] = WORDS.fill(
        "ex-online-softmax-rescale", block_max=num(second["block_max"], 3), old_max=num(first["m"], 3),
        new_max=num(second["m"], 3), rescale=r_text, old_sum=num(first["denominator"], exp_digits),
        rescaled_sum=second["denominator_rescaled"][0], terms=" + ".join(total_terms),
        total=num(second["denominator"], 8))
    rows = []
    for c in range(d_v):
        rows.append([f"{c + 1}", num(first["acc"][c], ev_digits), second["acc_rescaled"][c][0],
                     num(second["block_acc"][c], ev_digits), num(second["acc"][c], 8), num(hand["out"][c], 4),
                     num(chunked[c], 4)])
    parts["vector"] = table([WORDS.line("ex-online-softmax-vector/entry-column"),
                             WORDS.line("ex-online-softmax-vector/first-column"), f"× {r_text}",
                             WORDS.line("ex-online-softmax-vector/adds-column"),
                             WORDS.line("ex-online-softmax-vector/sum-column"),
                             f"÷ {num(second['denominator'], 8)} ≈", "attend_chunked"], rows)
    parts["result"] = WORDS.fill("ex-online-softmax-result", token=tokens[i], out=latex_vector(chunked, 4),
                                 block_size=example["block_size"])
    return parts


EX_ONLINE = Example("ex-online-softmax", title=WORDS.line("ex-online-softmax-title"),
                    data=online_example, snippets=online_snippets)


# ---------------------------------------------------------------- sparse patterns as masks

SPARSE_N = 16
SPARSE_WINDOW = 4
SPARSE_STRIDE = 4
SPARSE_GLOBAL = (0,)
SPARSE_LONG = (4096, 256, 64)  # n, window, stride for the counts at a realistic length


# Each sparse pattern beside the full table of its own kind: an encoder's bidirectional pattern against every
# pair (n²), a decoder's causal one against the causal table (every key up to the query's own, n(n+1)/2).
SPARSE_BASELINE = {"local + global": "full", "strided": "causal"}
# each pattern's name as the page writes it: its section of words/cost.md
PATTERN_NAMES = {"full": "cost-sparse/full", "local + global": "cost-sparse/local-global",
                 "causal": "cost-sparse/causal", "strided": "cost-sparse/strided"}


def pattern_name(pattern):
    return WORDS.line(PATTERN_NAMES[pattern])


def sparse_masks(n, window, stride):
    """{name: bool (n, n)}: every pair; a local band of `window` keys on each side plus global tokens (an
    encoder's pattern); every pair of the causal past (a decoder's full table); the causal past in a window of
    `stride` keys plus every stride-th key (a decoder's sparse pattern). A BuildError if a pattern allows a pair
    that the full table it is compared with does not: the comparison would not be like with like."""
    band = attention.sliding_window_mask(n, window)
    masks = {
        "full": np.ones((n, n), dtype=bool),
        "local + global": band | band.T | attention.global_mask(n, SPARSE_GLOBAL),
        "causal": attention.causal_mask(n),
        "strided": attention.sliding_window_mask(n, stride) | attention.strided_mask(n, stride),
    }
    for name, baseline in SPARSE_BASELINE.items():
        if (masks[name] & ~masks[baseline]).any():
            raise BuildError(f"cost-sparse: the {name} pattern allows pairs that the {baseline} table does not, "
                             "so it cannot be compared with it")
    if masks["causal"].sum() != n * (n + 1) // 2:
        raise BuildError(f"cost-sparse: the causal table over {n} tokens has {masks['causal'].sum()} pairs, not n(n+1)/2")
    return masks


def sparse_data():
    small = sparse_masks(SPARSE_N, SPARSE_WINDOW, SPARSE_STRIDE)
    n, window, stride = SPARSE_LONG
    long = {name: int(mask.sum()) for name, mask in sparse_masks(n, window, stride).items()}
    return {"masks": small, "counts": {name: int(mask.sum()) for name, mask in small.items()}, "long": long}


def sparse_caption(data):
    counts = data["counts"]
    return WORDS.line("cost-sparse-caption", n=SPARSE_N, full=counts["full"], neighbours=SPARSE_WINDOW - 1,
                      global_token=SPARSE_GLOBAL[0] + 1, local=counts["local + global"], causal=counts["causal"],
                      stride=SPARSE_STRIDE, strided=counts["strided"])


def sparse_alt(data):
    counts = data["counts"]
    return WORDS.line("cost-sparse-alt", patterns=listed([
        WORDS.line("cost-sparse-alt/pattern", name=pattern_name(name), allowed=counts[name], pairs=counts[baseline],
                   baseline=pattern_name(baseline))
        for name, baseline in SPARSE_BASELINE.items()], "semicolon"))


def sparse_table(data):
    n, window, stride = SPARSE_LONG
    rows = []
    for name in data["counts"]:
        baseline = SPARSE_BASELINE.get(name)
        share = data['long'][name] / data['long'][baseline] if baseline else None
        kind = (WORDS.line("cost-sparse-table/causal") if "causal" in (name, baseline) else
                WORDS.line("cost-sparse-table/bidirectional"))
        rows.append([pattern_name(name), kind,
                     Shown(int(data['counts'][name]), f"{data['counts'][name]:,}"),
                     Shown(int(data['long'][name]), f"{data['long'][name]:,}"),
                     Shown(share, WORDS.line("cost-sparse-table/share", share=f"{share:.1%}",
                                                  baseline=pattern_name(baseline)))
                     if baseline else Shown("", "—")])
    return {
        "caption": WORDS.line("cost-sparse-table"),
        "columns": [WORDS.line("cost-sparse-table/pattern-column"), WORDS.line("cost-sparse-table/kind-column"),
                    f"n = {SPARSE_N}", f"n = {n:,}",
                    Shown(WORDS.line("cost-sparse-table/share-column-csv", n=f"{n:,}"),
                          WORDS.line("cost-sparse-table/share-column", n=f"{n:,}"))],
        "rows": rows,
    }


def sparse_render(data, fig):
    axes = fig.subplots(2, len(data["masks"]) // 2).flat  # bidirectional on top, causal below
    colour = np.array([0.0, 0.447, 0.698, 1.0])  # Okabe-Ito blue; forbidden pairs stay transparent
    for ax, (name, mask) in zip(axes, data["masks"].items()):
        image = np.zeros(mask.shape + (4,))
        image[mask] = colour
        ax.imshow(image, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_linewidth(0.6)
        baseline = SPARSE_BASELINE.get(name)  # the count above the panel, on the title's second line: a label
        count = (WORDS.line("cost-sparse/panel-share", allowed=data["counts"][name], pairs=data["counts"][baseline])
                 if baseline else  # under a top panel crowded the title of the one below it
                 WORDS.line("cost-sparse/panel-scores", allowed=data["counts"][name]))
        ax.set_title(f"{pattern_name(name)}\n{count}", fontsize=10)


def sparse_snippets(data):
    n, window, stride = SPARSE_LONG
    long = data["long"]
    return {"long": WORDS.fill(
        "cost-sparse-long", n=f"{n:,}", neighbours=window - 1, stride=stride, full=f"{long['full']:,}",
        local=f"{long['local + global']:,}", local_share=f"{long['local + global'] / long['full']:.1%}",
        causal=f"{long['causal']:,}", strided=f"{long['strided']:,}",
        strided_share=f"{long['strided'] / long['causal']:.1%}")}


# ---------------------------------------------------------------- the KV cache and where n² takes over

# (name, layers, d_model, heads, context length, source): the sizes the papers give; the source is the section of
# words/cost.md that cites the paper
MODELS = (
    ("GPT-2 small", 12, 768, 12, 1024, "cost-models-sources/gpt-2-small"),
    ("Llama 2 7B", 32, 4096, 32, 4096, "cost-models-sources/llama-2-7b"),
    ("GPT-3 175B", 96, 12288, 96, 2048, "cost-models-sources/gpt-3-175b"),
)
KV_ITEMSIZE = 2  # 16-bit floats, as models are usually run


def crossover(d_model, n_heads):
    """The smallest n at which the two attention products of `multi_head_cost` do at least the
    multiply-adds of its four projections (doubling, then halving the interval)."""
    def over(n):
        cost = attention.multi_head_cost(n, d_model, n_heads)
        return cost["attention_macs"] >= cost["projection_macs"]
    high = 1
    while not over(high):
        high *= 2
    low = high // 2  # over(low) is False (or low = 0)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if over(mid) else (mid, high)
    return high


def models_data():
    rows = []
    for name, layers, d_model, heads, context, source in MODELS:
        d_k = d_model // heads
        per_token = layers * attention.attention_cost(1, d_k, n_heads=heads, itemsize=KV_ITEMSIZE)["kv_bytes_per_token"]
        cache = layers * attention.attention_cost(context, d_k, n_heads=heads, itemsize=KV_ITEMSIZE)["kv_cache_bytes"]
        n_star = crossover(d_model, heads)
        at = attention.multi_head_cost(n_star, d_model, heads)
        full = attention.multi_head_cost(context, d_model, heads)  # a whole context window
        rows.append({"name": name, "layers": layers, "d_model": d_model, "heads": heads, "d_k": d_k, "context": context,
                     "source": WORDS.line(source), "per_token": per_token, "cache": cache, "crossover": n_star,
                     "projection_macs": at["projection_macs"], "attention_macs": at["attention_macs"],
                     "context_projection_macs": full["projection_macs"], "context_attention_macs": full["attention_macs"]})
    return {"models": rows}


def takeover_sentence(by_width):
    """Where the smallest model's two kinds of work meet, against its own context; checked: they are equal there, the
    products are the larger part one token later, and every model's context stops short of its meeting point."""
    small = by_width[0]
    n, context = small["crossover"], small["context"]
    after = attention.multi_head_cost(n + 1, small["d_model"], small["heads"])
    if not (small["attention_macs"] == small["projection_macs"] and after["attention_macs"] > after["projection_macs"]):
        raise BuildError(f"cost-models: the page says {small['name']}'s two kinds of work are equal at {n:,} tokens and "
                         "attention's products the larger part past it")
    if not all(m["context"] < m["crossover"] for m in by_width):
        raise BuildError("cost-models: the page says every model's context stops short of where the two meet; "
                         + ", ".join(f"{m['name']}: {m['context']:,} against {m['crossover']:,}" for m in by_width))
    share = small["context_attention_macs"] / small["context_projection_macs"]
    return WORDS.fill("cost-models-takeover", model=small["name"], n=f"{n:,}", context=f"{context:,}",
                      attention_macs=f"{small['context_attention_macs']:,}",
                      projection_macs=f"{small['context_projection_macs']:,}", share=num(share, 2)) + "\n"


def models_snippets(data):
    models = data["models"]
    model = WORDS.line("cost-models/model-column")
    sizes = table([model, WORDS.line("cost-models-sizes/layers-column"), "$d_{\\text{model}}$",
                   WORDS.line("cost-models-sizes/heads-column"), "$d_k$",
                   WORDS.line("cost-models-sizes/context-column")],
                  [[m["name"], str(m["layers"]), f"{m['d_model']:,}", str(m["heads"]), str(m["d_k"]), f"{m['context']:,}"]
                   for m in models])
    kv = table([model, WORDS.line("cost-models-kv/per-token-column"), WORDS.line("cost-models-kv/context-column")],
               [[m["name"], byte_size(m["per_token"]), byte_size(m["cache"])] for m in models])
    cross = table([model, "$d_{\\text{model}}$", WORDS.line("cost-models-crossover/meet-column"),
                   WORDS.line("cost-models-crossover/projections-column"),
                   WORDS.line("cost-models-crossover/products-column")],
                  [[m["name"], f"{m['d_model']:,}", f"{m['crossover']:,}", f"{m['projection_macs']:,}",
                    f"{m['attention_macs']:,}"] for m in models])
    by_width = sorted(models, key=lambda m: m["d_model"])
    if [m["crossover"] for m in by_width] != sorted(m["crossover"] for m in models):
        raise BuildError("cost-models: the page says a wider model gets further before its table takes over")
    ratio = {m["crossover"] / m["d_model"] for m in models}
    rule = (WORDS.line("cost-models-rule/same", ratio=f"{ratio.pop():g}") if len(ratio) == 1 else
            WORDS.line("cost-models-rule/differs"))
    return {
        "sizes": sizes,
        "kv": kv,
        "crossover": cross,
        "rule": WORDS.fill("cost-models-rule", rule=rule),
        "takeover": takeover_sentence(by_width),
        "sources": WORDS.fill("cost-models-sources", sources=listed(
            [WORDS.line("cost-models-sources/model", model=m["name"], source=m["source"]) for m in models], "semicolon")),
    }


# ---------------------------------------------------------------- a real model's cache: grouped key/value heads

SMOLLM_LENGTHS = (1, 128, 1024)  # and the model's whole context


def smollm_cache_data():
    """SmolLM2-135M's KV cache at a few lengths, from its GGUF's metadata (models.smollm.model.load_config):
    with its own key/value heads, and as if each query head had its own."""
    from models.smollm import model  # noqa: PLC0415: only this item reads the model file

    config = model.load_config()
    lengths = sorted({*SMOLLM_LENGTHS, config.context})
    rows = []
    for n in lengths:
        grouped, full = config.cache_numbers(n), config.cache_numbers(n, n_kv_heads=config.n_heads)
        # the library's count, per layer, times the layers, must be the model's own
        for heads, numbers in ((config.n_kv_heads, grouped), (config.n_heads, full)):
            counted = config.n_layers * attention.attention_cost(n, config.d_k, n_heads=heads,
                                                                 itemsize=CACHE_ITEMSIZE)["kv_cache_bytes"]
            if counted != numbers * CACHE_ITEMSIZE:
                raise BuildError(f"cost-smollm: attention_cost gives {counted:,} bytes for {heads} key/value heads "
                                 f"at n = {n:,}, the model's count {numbers * CACHE_ITEMSIZE:,}")
        rows.append({"n": n, "numbers": grouped, "bytes": grouped * CACHE_ITEMSIZE,
                     "full_numbers": full, "full_bytes": full * CACHE_ITEMSIZE})
    return {"name": model.MODEL_NAME, "layers": config.n_layers, "heads": config.n_heads,
            "kv_heads": config.n_kv_heads, "d_k": config.d_k, "group": config.group, "context": config.context,
            "file_bytes": model.gguf_path().stat().st_size,
            "per_token": config.cache_numbers(1), "per_token_full": config.cache_numbers(1, n_kv_heads=config.n_heads),
            "rows": rows}


def smollm_cache_snippets(data):
    per_token, per_token_full = data["per_token"], data["per_token_full"]
    layers, heads, kv_heads, d_k, group = (data[key] for key in ("layers", "heads", "kv_heads", "d_k", "group"))
    if not (per_token == layers * kv_heads * 2 * d_k and per_token_full == layers * heads * 2 * d_k
            and heads == group * kv_heads and per_token_full == group * per_token):
        raise BuildError("cost-smollm: the page says the cache per token is layers · key/value heads · 2 · d_k, and "
                         "that one key/value head per query head would make it the group size times larger")
    for row in data["rows"]:
        if not (row["numbers"] == row["n"] * per_token and row["full_bytes"] == group * row["bytes"]):
            raise BuildError(f"cost-smollm: at n = {row['n']:,} the cache is not n times the cache of one token")
    last = data["rows"][-1]
    if last["n"] != data["context"]:
        raise BuildError("cost-smollm: the table's last row is the model's whole context")
    if not last["bytes"] > data["file_bytes"]:
        raise BuildError("cost-smollm: the page says the grouped cache at the whole context outgrows the model's file")
    both = lambda b: f"{b:,} ({byte_size(b)})"  # noqa: E731: exact, then readable
    columns = [WORDS.line("cost-smollm-table/n-column"),
               WORDS.line("cost-smollm-table/numbers-column", per_token=f"{per_token:,}"),
               WORDS.line("cost-smollm-table/bytes-column", itemsize=CACHE_ITEMSIZE),
               WORDS.line("cost-smollm-table/full-column", heads=heads)]
    rows = [[f"{row['n']:,}", f"{row['numbers']:,}", both(row["bytes"]), both(row["full_bytes"])]
            for row in data["rows"]]
    return {
        "setting": WORDS.fill("cost-smollm-setting", name=data["name"], layers=layers, heads=heads, kv_heads=kv_heads,
                              d_k=d_k, group=group, per_token=f"{per_token:,}", per_token_full=f"{per_token_full:,}",
                              itemsize=CACHE_ITEMSIZE, table_itemsize=KV_ITEMSIZE,
                              bits=8 * CACHE_ITEMSIZE, table_bits=8 * KV_ITEMSIZE,
                              bytes=f"{per_token * CACHE_ITEMSIZE:,}",
                              bytes_full=f"{per_token_full * CACHE_ITEMSIZE:,}"),
        "table": table(columns, rows),
        "verdict": WORDS.fill("cost-smollm-verdict", context=f"{data['context']:,}", bytes=f"{last['bytes']:,}",
                              size=byte_size(last["bytes"]), full=f"{last['full_bytes']:,}",
                              full_size=byte_size(last["full_bytes"]), as_many=as_many(group), group=group,
                              heads=heads, kv_heads=kv_heads, file_size=byte_size(data["file_bytes"]),
                              file_mb=f"{num(data['file_bytes'] / 1e6, 1)} MB"),
    }


def notebook_cells():
    models = {name: (layers, d_model, heads, context) for name, layers, d_model, heads, context, _ in MODELS}
    return [
        *sentences.notebook_cells("RUNNING"),
        # the table's size
        markdown(WORDS.fill("nb-doubling", d_k=D_K)),
        code(f"""
            D_K, ITEMSIZE = {D_K!r}, {ITEMSIZE!r}  # d_k, and the bytes of a 32-bit float
            for n in (1024, 2048, 4096, 8192):
                cost = attention.attention_cost(n, D_K, itemsize=ITEMSIZE)
                print(f"n = {{n:>5,}}: {{cost['score_entries']:>11,}} entries, {{cost['score_bytes']:>11,}} bytes, "
                      f"{{cost['qk_macs']:>14,}} multiply-adds for Q Kᵀ")"""),
        markdown(WORDS.fill("nb-growth")),
        code("""
            lengths = 2 ** np.arange(8, 17)  # n = 256 … 65,536
            table = [attention.attention_cost(int(n), D_K, itemsize=ITEMSIZE)["score_bytes"] for n in lengths]
            fig, ax = plt.subplots(figsize=(5.6, 3.4))
            ax.plot(lengths, table, marker="o", markersize=3, label="the whole score table (n²)")
            ax.plot(lengths, lengths * 2 * D_K * ITEMSIZE, marker="s", markersize=3, label="K and V (2 n d_k)")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log", base=2)
            ax.set_xlabel("n (tokens)")
            ax.set_ylabel("bytes (32-bit floats)")
            ax.legend(frameon=False)
            plt.show()"""),
        markdown(WORDS.fill("nb-block")),
        code(f"""
            BLOCK = {BLOCK!r}  # B
            for n in (1024, 8192):
                print(f"n = {{n:>5,}}: the whole table {{attention.attention_cost(n, D_K, itemsize=ITEMSIZE)['score_bytes']:>11,}} bytes, "
                      f"one B × B block {{BLOCK * BLOCK * ITEMSIZE:,}} bytes")"""),
        # online softmax
        markdown(WORDS.fill("nb-online", block=ONLINE_BLOCK)),
        code(f"""
            from figures_src.engine.errors import BuildError  # what the page's functions raise if the data stops fitting

            ONLINE_BLOCK = {ONLINE_BLOCK!r}  # B: keys per block
            tokens = list(RUNNING.tokens)
            steps = self_attention_example(RUNNING)["steps"]
            scaled, V = steps["scaled_scores"], steps["V"]  # s̃ (n, n) and V (n, d_v)
            scaled"""),
        markdown(WORDS.fill("nb-online-query")),
        source(online_query),
        code("""
            i = online_query(scaled, ONLINE_BLOCK)
            print(f"query {i + 1} of the page ({tokens[i]!r}; row {i} in Python) - its scaled scores:", scaled[i])"""),
        markdown(WORDS.fill("nb-online-blocks")),
        source(online_blocks),
        code("""
            blocks = online_blocks(scaled[i], V, ONLINE_BLOCK)
            for b, block in enumerate(blocks):
                keys = block["keys"]
                print(f"block {b + 1}: keys {[k + 1 for k in keys]} ({' '.join(tokens[k] for k in keys)}; "
                      f"indices {keys[0]} to {keys[-1]} in Python)")
                print(f"    s̃_max {round(block['running_max'], 4)}, rescale {round(block['rescale'], 4)}, "
                      f"exponentials {np.round(block['exponentials'], 4)}, ℓ {round(block['denominator'], 4)}, "
                      f"o {block['acc']}")"""),
        markdown(WORDS.fill("nb-online-divide")),
        code("""
            last = blocks[-1]
            row = last["acc"] / last["denominator"]  # o / ℓ
            whole, _ = attention.attend(steps["Q"], steps["K"], V)  # from the whole table
            assert np.allclose(row, whole[i], rtol=0, atol=1e-12), "o / ℓ is the row computed from the whole table"
            print("o / ℓ =", row, " the whole table's row:", whole[i])"""),
        markdown(WORDS.fill("nb-online-example", block=ONLINE_BLOCK)),
        source(online_example),
        code("""
            import types

            # the sentence and the functions above, under the name the page's module calls them by
            sentences = types.SimpleNamespace(RUNNING=RUNNING, self_attention_example=self_attention_example)
            online = online_example()
            assert online["query"] == i and len(online["blocks"]) == len(blocks), "the example follows the query above"
            assert np.allclose(online["outputs"]["out"], whole, rtol=0, atol=1e-12), \\
                "attend_chunked gives what attend gives on the whole table"
            online["outputs"]["out"]"""),
        # the KV cache
        markdown(WORDS.fill("nb-cache")),
        source(byte_size),
        code(f"""
            KV_ITEMSIZE = {KV_ITEMSIZE!r}  # 16-bit floats
            MODELS = {models!r}  # layers, d_model, h, context length
            for name, (layers, d_model, h, context) in MODELS.items():
                d_k = d_model // h
                one_layer = attention.attention_cost(context, d_k, n_heads=h, itemsize=KV_ITEMSIZE)
                print(f"{{name}}: d_k = {{d_k}}, {{byte_size(layers * one_layer['kv_bytes_per_token'])}} per token, "
                      f"{{byte_size(layers * one_layer['kv_cache_bytes'])}} for a context of {{context:,}} tokens")"""),
    ]


ITEMS = [
    Figure("cost-memory", title=WORDS.line("cost-memory-title"),
           data=memory_data, render=memory_render, caption=memory_caption, alt=memory_alt, table=memory_table,
           snippets=memory_snippets, size=(PHONE_WIDTH, 5.0)),
    EX_ONLINE,
    Figure("cost-sparse", title=WORDS.line("cost-sparse-title"),
           data=sparse_data, render=sparse_render, caption=sparse_caption, alt=sparse_alt, table=sparse_table,
           snippets=sparse_snippets, size=(PHONE_WIDTH, 4.0)),
    Snippets("cost-models", data=models_data, snippets=models_snippets),
    Snippets("cost-smollm", data=smollm_cache_data, snippets=smollm_cache_snippets),
    notebook("cost.md", notebook_cells, examples={EX_ONLINE: "online"}),
]


if __name__ == "__main__":  # measure_in_fresh_process runs this module on its own
    print(json.dumps(measure()))
