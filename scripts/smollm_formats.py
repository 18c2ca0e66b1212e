"""Which weight format the smollm page ships: each candidate's download and accuracy, side by side.

    .venv/bin/python scripts/smollm_formats.py

The float reference is the GGUF file dequantized exactly, in float64 (models/smollm/reference.py). Every candidate
stores each matrix its own way (the norms stay float32 in all of them) and is read back as the browser reads it:
each value dequantized to float32 (d·q + m rounded once), the whole model run in float32. Printed per format:
- the bytes in all, and the files at most 50,000,000 bytes each (tensors packed in the file's order, a tensor
  larger than a file cut where the file is full): how many, and the largest;
- the largest |Δ logit| against the float64 reference, over every position of the site's prompts and of the 24
  held-out prompts of tests/smollm_strings.py, each followed by the reference's 32-step greedy continuation;
- greedy agreement: on how many prompts the format's greedy decoding writes the reference's 32 tokens. Each
  prompt and its continuation go through the format once; its argmax at every step equal to the continuation's
  next token means greedy decoding writes the same tokens (else: the step where it parts, counted from 1).

The limits (issue 58): at most 100 MB in all, files of at most 50 MB, the same greedy tokens on every site prompt
and on at least 95% of the held-out ones. Formats over 100 MB are measured all the same.
Needs the test extra's transformers only through tests/golden/smollm_greedy.json (the held-out continuations,
checked here against the reference's own argmax); the site's prompts are decoded here.
"""
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from gguf import GGMLQuantizationType  # noqa: E402
from gguf.quants import quantize  # noqa: E402

from models.smollm.model import load_config, metadata, reader  # noqa: E402
from models.smollm.reference import LAYER_TENSORS, Layer, Weights, dequantize, forward, greedy  # noqa: E402
from models.smollm.tokenizer import encode  # noqa: E402
from smollm_strings import PROMPTS  # noqa: E402

try:
    from figures_src.pages.smollm import PRESETS as SITE_PROMPTS  # noqa: E402
except ImportError:  # the page's module is on another branch until it lands: its presets as of then
    SITE_PROMPTS = ["The capital of France is", "Once upon a time, a small robot", "The three primary colours are"]

STEPS = 32
FILE_LIMIT, TOTAL_LIMIT, HELD_OUT_SHARE = 50_000_000, 100_000_000, 0.95
GOLDEN = ROOT / "tests" / "golden" / "smollm_greedy.json"


def as_gguf(values, kind):
    """float values (rows, columns) -> a tensor-like of `kind` ("Q4_1", "Q8_0") that reference.dequantize reads."""
    data = quantize(np.ascontiguousarray(values, dtype=np.float32), GGMLQuantizationType[kind])
    return SimpleNamespace(name=kind, tensor_type=SimpleNamespace(name=kind), data=data)


def gguf_blocks(tensor, exact):
    """(a): the file's own blocks. -> (bytes, float32 values)"""
    return tensor.n_bytes, dequantize(tensor, np.float32)


def requantized(kind):
    def encode_tensor(tensor, exact):
        if tensor.tensor_type.name == kind:
            return gguf_blocks(tensor, exact)
        stored = as_gguf(exact, kind)
        return stored.data.nbytes, dequantize(stored, np.float32)
    return encode_tensor


def float16(tensor, exact):
    return exact.size * 2, exact.astype(np.float16).astype(np.float32)


def int8_rows(tensor, exact):
    """int8 per row: q = round(x / s), s = max |x| of the row / 127, one float32 s per row."""
    scale = np.abs(exact).max(axis=-1, keepdims=True) / 127
    scale[scale == 0] = 1
    q = np.clip(np.rint(exact / scale), -127, 127)
    return exact.size + 4 * exact.shape[0], (q.astype(np.float32) * scale.astype(np.float32))


FORMATS = {
    "(a) the GGUF's own: Q4_1 matrices, Q8_0 embedding": gguf_blocks,
    "(b) Q4_1 everywhere, embedding too": requantized("Q4_1"),
    "(c) Q8_0 everywhere": requantized("Q8_0"),
    "(d) float16": float16,
    "(e) int8 per row": int8_rows,
}


def files(sizes, limit=FILE_LIMIT):
    """Tensor byte counts packed in order into files of at most `limit` -> the files' sizes."""
    packed = [0]
    for size in sizes:
        if packed[-1] + size > limit:
            packed.append(0)
        while size > limit:  # a tensor larger than a file: whole files of it, then the rest
            packed[-1:] = [limit, 0]
            size -= limit
        packed[-1] += size
    return packed


def build(encode_tensor, reference_tensors):
    """-> (bytes of each tensor, float32 Weights as the browser computes with them)."""
    sizes, values = [], {}
    for tensor in reader().tensors:
        exact = reference_tensors[tensor.name]
        if tensor.tensor_type.name == "F32":
            sizes.append(tensor.n_bytes)
            values[tensor.name] = exact.astype(np.float32)
        else:
            size, values[tensor.name] = encode_tensor(tensor, exact)
            sizes.append(size)
    return sizes, values


def weights_of(values, config, eos):
    """{GGUF name: values (rows, columns)} -> Weights (the matrices transposed, as views)."""
    matrix = lambda name: values[name].T  # noqa: E731
    layers = tuple(Layer(**{field: values[f"blk.{index}.{name}.weight"] if field.endswith("norm")
                            else matrix(f"blk.{index}.{name}.weight") for field, name in LAYER_TENSORS.items()})
                   for index in range(config.n_layers))
    return Weights(config=config, embedding=values["token_embd.weight"], layers=layers,
                   output_norm=values["output_norm.weight"], eos=eos)


def agreement(logits, ids, start):
    """The step (from 1) where greedy decoding on these logits parts from ids[start:], or None if it never does."""
    picked = np.argmax(logits[start - 1:-1], axis=-1)
    parted = np.flatnonzero(picked != np.asarray(ids[start:]))
    return int(parted[0]) + 1 if parted.size else None


def main():
    started = time.perf_counter()
    exact = {tensor.name: dequantize(tensor, np.float64) for tensor in reader().tensors}  # the one float64 copy
    config, eos = load_config(), int(metadata("tokenizer.ggml.eos_token_id"))
    reference = weights_of(exact, config, eos)
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["continuations"]
    sets = {"site": SITE_PROMPTS, "held-out": PROMPTS}
    runs = {}  # prompt -> (ids with continuation, prompt length, reference logits)
    for prompt in SITE_PROMPTS + PROMPTS:
        ids = encode(prompt)
        continuation = golden[prompt] if prompt in golden else greedy(reference, ids, STEPS)
        logits = forward(reference, ids + continuation)[0]
        assert agreement(logits, ids + continuation, len(ids)) is None, \
            f"{prompt!r}: the continuation is the reference's greedy one (rerun tests/golden/smollm_greedy.py)"
        runs[prompt] = (ids + continuation, len(ids), logits)
    print(f"{len(SITE_PROMPTS)} site prompts, {len(PROMPTS)} held-out, {STEPS} greedy steps each "
          f"({time.perf_counter() - started:.0f} s)\n", flush=True)
    print("| format | bytes in all | files ≤ 50 MB (largest) | max |Δ logit|, site | max |Δ logit|, held-out | "
          "greedy = reference, site | greedy = reference, held-out | meets all |")
    print("|---|---:|---:|---:|---:|---:|---:|:---:|")
    for label, encode_tensor in FORMATS.items():
        sizes, values = build(encode_tensor, exact)
        weights = weights_of(values, config, eos)
        errors, agreed, parted = {}, {}, {}
        for name, prompts in sets.items():
            errors[name], agreed[name], parted[name] = 0.0, 0, []
            for prompt in prompts:
                ids, start, reference_logits = runs[prompt]
                logits = forward(weights, ids)[0]
                errors[name] = max(errors[name], float(np.abs(logits.astype(np.float64) - reference_logits).max()))
                step = agreement(logits, ids, start)
                agreed[name] += step is None
                if step is not None:
                    parted[name].append(step)
        total, shards = sum(sizes), files(sizes)
        meets = (total <= TOTAL_LIMIT and max(shards) <= FILE_LIMIT and agreed["site"] == len(SITE_PROMPTS)
                 and agreed["held-out"] >= HELD_OUT_SHARE * len(PROMPTS))
        notes = {name: f" (parts at step {', '.join(map(str, sorted(steps)))})" if steps else ""
                 for name, steps in parted.items()}
        print(f"| {label} | {total:,} | {len(shards)} ({max(shards):,}) | {errors['site']:.2e} | {errors['held-out']:.2e} "
              f"| {agreed['site']}/{len(SITE_PROMPTS)}{notes['site']} | {agreed['held-out']}/{len(PROMPTS)}"
              f"{notes['held-out']} | {'yes' if meets else 'no'} |", flush=True)
        del weights, values
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
