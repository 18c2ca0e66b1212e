"""The CPU the build spends running every page's notebook, against the issue's budget of 60 s for the whole set.

    .venv/bin/python scripts/bench_notebooks.py [--jobs 2]

A timing, so a benchmark and never a test. CPU is user plus system time from the operating system's own
accounting, so a busy machine slows the wall clock but hardly the figure.

- Each notebook: its item's data() called here (its page module already imported), which computes the page's
  examples, writes the notebook and runs it on a fresh kernel: this process's CPU plus the kernel's.
- The whole set: every notebook item built from scratch (--force) into a throw-away folder in one
  `python -m figures_src.build --only ...` run, as `make figures` builds them: Python's start, the page modules'
  imports, the examples and every kernel. This is the figure the budget is for.
"""
import argparse
import importlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from figures_src import registry  # noqa: E402
from figures_src.engine.notebooks import NotebookItem  # noqa: E402

BUDGET_S = 60.0


def notebook_items():
    return [item for module in registry.page_modules() for item in importlib.import_module(module).ITEMS
            if isinstance(item, NotebookItem)]


def build(names, out, jobs):
    """(CPU seconds of the build and all it started, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    command = [sys.executable, "-m", "figures_src.build", "--force", "--out", str(out), "--jobs", str(jobs)]
    for name in names:
        command += ["--only", name]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def measured(item):
    """(CPU seconds, data) of building one notebook item here: this process and the kernel it starts."""
    before_self, before_children = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    data = item.data()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime - before_children.ru_utime) + (after.ru_stime - before_children.ru_stime)
    return time.process_time() - before_self + children, data


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    items = notebook_items()
    with tempfile.TemporaryDirectory(prefix="aih-bench-notebooks-") as folder:
        print(f"{'notebook':<34} {'CPU s':>7} {'cells':>6} {'bytes':>9}")
        total = 0.0
        for item in items:
            cpu, data = measured(item)
            total += cpu
            print(f"{item.path:<34} {cpu:7.1f} {data['cells']:6} {len(data['text'].encode()):9,}")
        print(f"{'sum of the notebooks':<34} {total:7.1f}")
        cpu, wall = build([item.name for item in items], Path(folder) / "all", args.jobs)
        print(f"\nthe whole set in one build (--jobs {args.jobs}; with --only into an empty folder the build first asks "
              f"every page what it declares): {cpu:.1f} s CPU, {wall:.1f} s wall")
        print(f"budget {BUDGET_S:.0f} s CPU: the set uses {cpu / BUDGET_S:.2f} of it")


if __name__ == "__main__":
    main()
