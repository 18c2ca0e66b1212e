"""How long the site takes to build, and how many bytes each page adds over a bare Material page.

    .venv/bin/python scripts/bench_site.py [--repeats 3]

Everything runs in a temporary copy of the working tree, so the shared generated/ and site/ are untouched.
Measured in the same run, median of --repeats:

- clean: `python -m figures_src.build` into an empty generated/, then `mkdocs build` (make site's build step);
- no-change rebuild: the same two commands again with nothing changed;
- bare: `mkdocs build` of the same Markdown with a bare Material config (no hooks, no extensions, no extra
  CSS/JS): the floor any MkDocs site pays.

Targets: clean <= 15 s; no-change rebuild <= 2x bare. Page weight: for every page, gzip(our HTML, with its
inline SVG) + gzip(each of our CSS/JS files) - gzip(the bare page's HTML); target <= 60 KB.
"""
import argparse
import gzip
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from figures_src.engine.site import mkdocs_config, nav_entries

ROOT = Path(__file__).resolve().parents[1]
CLEAN_TARGET_S = 15.0
REBUILD_TARGET_RATIO = 2.0
PAGE_TARGET_BYTES = 60 * 1024
SKIP = shutil.ignore_patterns(".git", ".venv", "node_modules", "site", "generated", "__pycache__", ".pytest_cache",
                              "*.egg-info", ".cache", ".hypothesis")


class Timing(tuple):
    """(wall seconds, CPU seconds of the child processes): CPU time barely moves when the machine is busy."""

    def __add__(self, other):
        return Timing((self[0] + other[0], self[1] + other[1]))


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args, cwd):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SOURCE_DATE_EPOCH="1700000000")
    cpu, start = cpu_of_children(), time.perf_counter()
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = Timing((time.perf_counter() - start, cpu_of_children() - cpu))
    if result.returncode != 0:
        sys.exit(f"bench_site: {' '.join(map(str, args))} failed in {cwd}:\n{result.stderr[-3000:]}")
    return elapsed


def build_step(tree, parts):
    """make site's build step: the figures, then the strict site build. Appends both parts to `parts`."""
    figures = run([sys.executable, "-m", "figures_src.build"], tree)
    site = run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", "site"], tree)
    parts.append((figures, site))
    return figures + site


def bare_config(tree):
    """A bare Material config over the same docs/ and nav: no hooks, no Markdown extensions, no extra files."""
    nav = [{title: markdown} for title, markdown in nav_entries(mkdocs_config(tree / "mkdocs.yml"))]
    config = tree / "mkdocs-bare.yml"
    config.write_text(
        "site_name: Attention Is a Heatmap\n"
        "docs_dir: docs\n"
        "theme:\n  name: material\n  font: false\n"
        "plugins:\n  - search\n"
        + yaml.safe_dump({"nav": nav}, allow_unicode=True, sort_keys=False),
        encoding="utf-8",
    )
    return config


def bare_build(tree, config):
    return run([sys.executable, "-m", "mkdocs", "build", "--config-file", str(config), "--site-dir", "site-bare"], tree)


def gz(data):
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def extra_files(tree):
    """Our CSS and JS as published: everything under docs/stylesheets/, docs/javascripts/ and docs/widgets/
    (modules that other modules import included), at its path in site/."""
    return sorted(tree / "site" / p.relative_to(tree / "docs")
                  for folder in ("stylesheets", "javascripts", "widgets")
                  for p in (tree / "docs" / folder).rglob("*")
                  if p.suffix in (".css", ".js"))


def page_weights(tree):
    """[(page, ours, bare, added)] in gzipped bytes."""
    assets = sum(gz(p.read_bytes()) for p in extra_files(tree))
    rows = []
    for page in sorted((tree / "site").rglob("index.html")):
        rel = page.relative_to(tree / "site")
        if "assets" in rel.parts:
            continue
        bare_page = tree / "site-bare" / rel
        ours = gz(page.read_bytes()) + assets
        bare = gz(bare_page.read_bytes()) if bare_page.exists() else 0
        rows.append((rel.parent.as_posix() + "/" if rel.parent.as_posix() != "." else "/", ours, bare, ours - bare))
    return rows, assets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    clean, rebuild, bare, clean_parts, rebuild_parts = [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="aih-bench-") as tmp:
        for k in range(args.repeats):
            tree = Path(tmp) / f"tree{k}"
            shutil.copytree(ROOT, tree, ignore=SKIP)
            (tree / "node_modules").symlink_to(ROOT / "node_modules")  # terser, for finish/scripts.py
            config = bare_config(tree)
            clean.append(build_step(tree, clean_parts))
            rebuild.append(build_step(tree, rebuild_parts))
            bare.append(bare_build(tree, config))
        weights, assets = page_weights(tree)

    wall = [statistics.median(t[0] for t in xs) for xs in (clean, rebuild, bare)]
    cpu = [statistics.median(t[1] for t in xs) for xs in (clean, rebuild, bare)]
    c, r, b = wall
    load = os.getloadavg()[0]
    print(f"Site build, median of {args.repeats} runs ({os.cpu_count()} cores; load average {load:.1f} at the end)\n")
    print(f"| {'step':<44} | {'wall s':>7} | {'CPU s':>6} | {'wall runs':<20} | {'target':<14} | {'ok':<3} |")
    print(f"| {'-' * 44} | {'-' * 6}:| {'-' * 5}:| {'-' * 20} | {'-' * 14} | {'-' * 3} |")
    row = "| {:<44} | {:>7.2f} | {:>6.2f} | {:<20} | {:<14} | {:<3} |"
    runs = lambda xs: " ".join(f"{x[0]:.2f}" for x in xs)  # noqa: E731
    print(row.format("clean: figures + mkdocs build --strict", c, cpu[0], runs(clean), f"<= {CLEAN_TARGET_S:.0f} s",
                     "yes" if c <= CLEAN_TARGET_S else "NO"))
    print(row.format("no-change rebuild: figures + mkdocs build", r, cpu[1], runs(rebuild),
                     f"<= {REBUILD_TARGET_RATIO:.0f}x bare", "yes" if r <= REBUILD_TARGET_RATIO * b else "NO"))
    print(row.format("bare mkdocs build (same Markdown, Material)", b, cpu[2], runs(bare), "", ""))
    for label, parts in (("clean", clean_parts), ("no-change", rebuild_parts)):
        figures = statistics.median(p[0][0] for p in parts), statistics.median(p[0][1] for p in parts)
        site = statistics.median(p[1][0] for p in parts), statistics.median(p[1][1] for p in parts)
        print(f"  {label:<10} figures {figures[0]:6.2f} s wall {figures[1]:6.2f} s CPU;"
              f"  mkdocs build {site[0]:5.2f} s wall {site[1]:5.2f} s CPU")
    print(f"\nno-change rebuild / bare: {r / b:.2f}x wall, {cpu[1] / cpu[2]:.2f}x CPU;  "
          f"clean / bare: {c / b:.2f}x wall, {cpu[0] / cpu[2]:.2f}x CPU")

    print(f"\nBytes each page adds over a bare Material page (gzip -9; our CSS+JS = {assets / 1024:.1f} KB)\n")
    print(f"| {'page':<14} | {'ours KB':>8} | {'bare KB':>8} | {'added KB':>8} | {'ok':<3} |")
    print(f"| {'-' * 14} | {'-' * 7}:| {'-' * 7}:| {'-' * 7}:| {'-' * 3} |")
    for page, ours, bare_bytes, added in weights:
        print(f"| {page:<14} | {ours / 1024:>8.1f} | {bare_bytes / 1024:>8.1f} | {added / 1024:>8.1f} | "
              f"{'yes' if added <= PAGE_TARGET_BYTES else 'NO':<3} |")
    worst = max(w[3] for w in weights)
    print(f"\nlargest addition: {worst / 1024:.1f} KB (target <= {PAGE_TARGET_BYTES // 1024} KB)")
    ok = c <= CLEAN_TARGET_S and r <= REBUILD_TARGET_RATIO * b and worst <= PAGE_TARGET_BYTES
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
