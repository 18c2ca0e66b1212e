"""Benchmark: the CPU time of the training `make train` runs, which tests/test_trained.py runs again in `make test`.

Trains every run the pages declare (figures_src/trained.py: the learning run, the √d_k experiment, the decoder),
each once, with one BLAS thread as `make train` does, and writes nothing. Prints each run's CPU seconds
(time.process_time), how far it lands from the committed data, and the total against the budget.

    .venv/bin/python scripts/bench_training.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from figures_src import trained  # noqa: E402

BUDGET = 60.0  # seconds of CPU for all the training, so the retraining test stays a small part of make test


def main():
    total = 0.0
    for run in trained.runs():
        result, seconds = trained.retrain(run)
        total += seconds
        print(f"{run.name:16} {seconds:6.2f} s CPU   {trained.landed(run.load(), result)}")
    print(f"total: {total:.2f} s CPU, {total / BUDGET:.0%} of the {BUDGET:.0f} s budget")


if __name__ == "__main__":
    main()
