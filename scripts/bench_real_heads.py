"""Benchmark: the numpy encoder (models/minilm/) against transformers' BertModel on the CPU, same run.

    .venv/bin/python scripts/bench_real_heads.py [--repeats 200]

One forward pass of all-MiniLM-L6-v2 on the 16-token coreference sentence, returning every head's
weights (output_attentions=True for transformers, eager attention). Both sides are warmed up, then timed
alternately, and the medians are compared. torch is set to the thread count numpy's BLAS uses.
"""
import argparse
import ctypes
import os
import platform
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from models.minilm import data, encode
from models.minilm.model import load_model

SENTENCE = data.SENTENCES[0]


def _openblas(action):
    """numpy's bundled OpenBLAS function `scipy_openblas_<action>_num_threads64_` (None if not found)."""
    libs = Path(np.__file__).parent.with_name("numpy.libs")
    for lib in sorted(libs.glob("libscipy_openblas*.so")):
        blas = ctypes.CDLL(str(lib))
        for symbol in (f"scipy_openblas_{action}_num_threads64_", f"scipy_openblas_{action}_num_threads"):
            if hasattr(blas, symbol):
                return getattr(blas, symbol)
    return None


def numpy_blas_threads():
    """How many threads numpy's BLAS runs, asked through its own API (None if not found)."""
    get = _openblas("get")
    return int(get()) if get else None


def set_numpy_blas_threads(n):
    set_ = _openblas("set")
    if set_ is None:
        raise SystemExit("--threads: cannot find numpy's OpenBLAS to set its thread count")
    set_(ctypes.c_int(n))


def median_ms(samples):
    return float(np.median(samples)) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--threads", type=int, help="pin numpy's BLAS and torch to this many threads")
    args = parser.parse_args()
    if args.threads:
        set_numpy_blas_threads(args.threads)

    import torch
    import transformers
    from transformers import BertModel

    threads = numpy_blas_threads() or os.cpu_count()
    torch.set_num_threads(threads)
    model = load_model()
    tokens, ids = model.tokenize(SENTENCE.text)
    hf = BertModel.from_pretrained(str(model.folder), attn_implementation="eager", local_files_only=True).eval()
    ids_torch = torch.as_tensor(ids[None])

    def run_numpy():
        return encode(model.params, model.config, ids)

    def run_torch():
        with torch.inference_mode():
            return hf(input_ids=ids_torch, output_attentions=True)

    for _ in range(args.warmup):
        run_numpy()
        run_torch()
    ours, theirs = [], []
    for _ in range(args.repeats):  # alternate, so a busy moment on the machine hits both sides
        start = time.perf_counter()
        run_numpy()
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        run_torch()
        theirs.append(time.perf_counter() - start)

    check = np.abs(run_numpy().weights - torch.stack(run_torch().attentions, dim=1)[0].numpy()).max()
    print(f"sentence: {SENTENCE.text!r} ({len(tokens)} tokens)")
    print(f"numpy {np.__version__} (BLAS threads: {numpy_blas_threads()}), torch {torch.__version__} "
          f"(threads: {torch.get_num_threads()}), transformers {transformers.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    print(f"repeats: {args.repeats} each, after {args.warmup} warm-up runs; max |weight difference| = {check:.2e}")
    print(f"{'':26}{'median':>10}{'p10':>10}{'p90':>10}")
    for name, samples in (("numpy (models.minilm)", ours), ("transformers (eager)", theirs)):
        p10, p90 = (float(np.percentile(samples, q)) * 1e3 for q in (10, 90))
        print(f"{name:26}{median_ms(samples):>8.2f}ms{p10:>8.2f}ms{p90:>8.2f}ms")
    print(f"ratio numpy / transformers: {median_ms(ours) / median_ms(theirs):.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
