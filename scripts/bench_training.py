"""Benchmark: the CPU time of the training the Watch it learn page runs at build time.

Runs exactly what the build runs, through the page's own data functions: the main run (learning-history and
ex-learning-checkpoints share it) and the √d_k experiment (learning-scale), each once, with one BLAS thread
as in the build. Prints the CPU seconds (time.process_time) of each and their total, against the 10 s budget.

    .venv/bin/python scripts/bench_training.py
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from figures_src.pages import learning  # noqa: E402

BUDGET = 10.0  # seconds of CPU for all the training in a build


def cpu_seconds(function):
    start = time.process_time()
    function()
    return time.process_time() - start


def main():
    main_run = cpu_seconds(learning.main_run)
    experiment = cpu_seconds(learning.experiment)
    total = main_run + experiment
    print(f"main run ({learning.MAIN.steps} steps, d_k = {learning.MAIN.d_k}):  {main_run:6.2f} s CPU")
    print(f"√d_k experiment ({2 * len(learning.SEEDS)} runs of {learning.WIDE_STEPS} steps, d_k = {learning.WIDE_D_K}): "
          f"{experiment:6.2f} s CPU")
    print(f"total: {total:.2f} s CPU, {total / BUDGET:.0%} of the {BUDGET:.0f} s budget")


if __name__ == "__main__":
    main()
