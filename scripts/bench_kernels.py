"""Does the site come out byte for byte the same whichever BLAS kernel computes it?

    .venv/bin/python scripts/bench_kernels.py [--other Sandybridge]

OpenBLAS picks a CPU kernel at start-up, and two kernels round a matrix product differently (around 1e-15 of it).
This builds the whole site twice, each time from scratch in a temporary copy of the working tree (the tree's own
generated/ and site/ are untouched): once with the kernel OpenBLAS picks, once with OPENBLAS_CORETYPE=<--other>.
Both builds run with one BLAS thread (OPENBLAS_NUM_THREADS=1), a fixed SOURCE_DATE_EPOCH (unless one is set) and
otherwise the same environment. A kernel variable you set yourself (OPENBLAS_CORETYPE) is left as it is for the
first build, and said. Then it compares the two site/ trees file by file and prints how many are identical and,
for each file that differs, its path and, for a JSON or CSV file, the largest difference between their numbers.

Exits 1 when the trees differ. It runs in `make bench`, never in the tests or CI: some machines set
OPENBLAS_CORETYPE themselves, and the tests leave it as they find it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = shutil.ignore_patterns(".git", ".venv", "node_modules", "site", "generated", "__pycache__", ".pytest_cache",
                              "*.egg-info", ".cache", ".hypothesis")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def build(tree, site, env):
    """make site's build step in `tree` from scratch: every figure (--force), then the strict site build into `site`."""
    shutil.rmtree(tree / "generated", ignore_errors=True)
    for args in ([sys.executable, "-m", "figures_src.build", "--force"],
                 [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]):
        result = subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"bench_kernels: {' '.join(args[1:4])} failed:\n{result.stderr[-3000:]}")


def files(root):
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}


def largest_difference(old, new):
    """The largest difference between the numbers of two texts, in order, and the pair it is between; None when
    they do not hold the same count of numbers."""
    a, b = NUMBER.findall(old), NUMBER.findall(new)
    if len(a) != len(b):
        return None
    return max(((abs(float(x) - float(y)), x, y) for x, y in zip(a, b)), default=(0.0, "", ""))


def describe(path, old, new):
    if not path.endswith((".json", ".csv")):
        return f"{len(old):,} -> {len(new):,} bytes"
    found = largest_difference(old.decode("utf-8"), new.decode("utf-8"))
    if found is None:
        return "a different count of numbers"
    difference, x, y = found
    return f"largest difference {difference:.3g} ({x} -> {y})" if difference else "same numbers, other text"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", default="Sandybridge", help="the OPENBLAS_CORETYPE of the second build")
    args = parser.parse_args(argv)

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", NO_MKDOCS_2_WARNING="1")
    env.setdefault("SOURCE_DATE_EPOCH", "1700000000")
    own = os.environ.get("OPENBLAS_CORETYPE")
    first = f"OPENBLAS_CORETYPE={own} (set before this ran)" if own else "the kernel OpenBLAS picks"
    builds = [(first, env), (f"OPENBLAS_CORETYPE={args.other}", dict(env, OPENBLAS_CORETYPE=args.other))]
    if own and own.lower() == args.other.lower():
        print(f"bench_kernels: OPENBLAS_CORETYPE is already {own}: both builds use the same kernel")

    with tempfile.TemporaryDirectory(prefix="aih-kernels-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(ROOT, tree, ignore=SKIP)
        (tree / "node_modules").symlink_to(ROOT / "node_modules")  # terser and wabt, installed by npm ci
        sites = []
        for k, (label, build_env) in enumerate(builds):
            start = time.perf_counter()
            sites.append(Path(tmp) / f"site{k}")
            build(tree, sites[-1], build_env)
            print(f"built with {label} in {time.perf_counter() - start:.0f} s")
        old, new = files(sites[0]), files(sites[1])
        differing = []
        for path in sorted(old & new):
            a, b = (sites[0] / path).read_bytes(), (sites[1] / path).read_bytes()
            if a != b:
                differing.append((path, describe(path, a, b)))

    print(f"\n{len(old | new)} files compared: {len(old & new) - len(differing)} identical, {len(differing)} differ, "
          f"{len(old - new)} only in the first build, {len(new - old)} only in the second")
    for path, what in differing:
        print(f"  differs: {path}: {what}")
    for path in sorted(old ^ new):
        print(f"  only in the {'first' if path in old else 'second'} build: {path}")
    return 1 if differing or old != new else 0


if __name__ == "__main__":
    sys.exit(main())
