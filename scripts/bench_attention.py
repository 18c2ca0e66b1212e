"""Benchmark: `attend` against PyTorch's scaled_dot_product_attention, and `attend_chunked`'s memory.

For n in {256, 512, 1024, 2048, 4096}, d_k = d_v = 64, float32, one sequence:
  - the median wall time of `attend` (which also returns the n × n weights) and of torch's SDPA on
    the CPU, timed alternately in the same run with the same number of threads, and their ratio;
  - the peak memory traced by tracemalloc of `attend` and of `attend_chunked`, and their ratio.
Targets: attend <= 1.5 × torch's time at n = 2048; attend_chunked's peak <= 1/16 of attend's at n = 4096.

    .venv/bin/python scripts/bench_attention.py [--repeats R] [--block-size B] [--threads T]

Needs torch and threadpoolctl (the test extras). On machines that set OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE for older OpenBLAS builds, a current numpy runs slower with them; to measure numpy at
its best, unset both for this command only: `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python ...`.
The script prints which OpenBLAS kernel it ran with.
"""
import argparse
import os
import statistics
import time
import tracemalloc

import numpy as np
import torch
from threadpoolctl import threadpool_info, threadpool_limits

from attention import attend, attend_chunked

SIZES = (256, 512, 1024, 2048, 4096)
D_K = 64
TIME_TARGET = (2048, 1.5)  # at n = 2048, attend within 1.5 × torch
MEMORY_TARGET = (4096, 1 / 16)  # at n = 4096, attend_chunked within 1/16 of attend


def inputs(n, seed=0):
    """Q, K, V (n, d_k) float32 with N(0, 1) entries."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, D_K), dtype=np.float32) for _ in range(3)]


def median_times(calls, repeats):
    """Median seconds per call for each of `calls`, timed in turn within every repeat (after one warm-up)."""
    for call in calls:
        call()
    times = [[] for _ in calls]
    for _ in range(repeats):
        for call, record in zip(calls, times):
            start = time.perf_counter()
            call()
            record.append(time.perf_counter() - start)
    return [statistics.median(record) for record in times]


def peak_bytes(call):
    """The peak of memory traced by tracemalloc (numpy reports its buffers to it) while `call` runs."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def blas_description():
    """(threads, "openblas <version>, kernel <name>") of the BLAS behind numpy, as threadpoolctl sees it."""
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    if not blas:
        raise RuntimeError("threadpoolctl found no BLAS library behind numpy")
    lib = blas[0]
    return lib["num_threads"], f"{lib['internal_api']} {lib['version']}, kernel {lib.get('architecture', '?')}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed repeats per size (median reported)")
    parser.add_argument("--block-size", type=int, default=128, help="attend_chunked's block of keys")
    parser.add_argument("--threads", type=int, help="threads for both numpy's BLAS and torch (default: numpy's)")
    args = parser.parse_args()

    if args.threads:
        threadpool_limits(limits=args.threads, user_api="blas")
    threads, blas = blas_description()
    torch.set_num_threads(threads)
    env = {name: os.environ.get(name, "unset") for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    print(f"numpy {np.__version__} ({blas}), torch {torch.__version__}; "
          f"threads: {threads} for both (numpy's BLAS, torch.set_num_threads)")
    print(f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']} OPENBLAS_L2_SIZE={env['OPENBLAS_L2_SIZE']}; "
          f"d_k = d_v = {D_K}, float32, median of {args.repeats}, attend_chunked block_size={args.block_size}")
    print(f"load average before the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (other work skews the times)")
    print()
    header = f"{'n':>5} | {'attend ms':>10} {'torch ms':>10} {'ratio':>6} | {'attend MiB':>10} {'chunked MiB':>11} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    results = {}
    for n in SIZES:
        Q, K, V = inputs(n)
        q, k, v = (torch.from_numpy(x) for x in (Q, K, V))
        with torch.inference_mode():
            ours, theirs = median_times([lambda: attend(Q, K, V), lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)], args.repeats)
        # Same answer, or the timing means nothing.
        with torch.inference_mode():
            expected = torch.nn.functional.scaled_dot_product_attention(q, k, v).numpy()
        np.testing.assert_allclose(attend(Q, K, V)[0], expected, rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(attend_chunked(Q, K, V, block_size=args.block_size), expected, rtol=1e-3, atol=1e-4)
        full = peak_bytes(lambda: attend(Q, K, V))
        chunked = peak_bytes(lambda: attend_chunked(Q, K, V, block_size=args.block_size))
        results[n] = (ours / theirs, chunked / full)
        print(f"{n:>5} | {ours * 1e3:>10.2f} {theirs * 1e3:>10.2f} {ours / theirs:>6.2f} | "
              f"{full / 2**20:>10.2f} {chunked / 2**20:>11.2f} {chunked / full:>7.4f}")
    print()
    n, limit = TIME_TARGET
    ratio = results[n][0]
    print(f"time target   n={n}: attend / torch = {ratio:.2f} (target <= {limit}): {'met' if ratio <= limit else 'MISSED'}")
    n, limit = MEMORY_TARGET
    ratio = results[n][1]
    print(f"memory target n={n}: chunked / attend = {ratio:.4f} = 1/{1 / ratio:.0f} (target <= 1/{1 / limit:.0f}): "
          f"{'met' if ratio <= limit else 'MISSED'}")


if __name__ == "__main__":
    main()
