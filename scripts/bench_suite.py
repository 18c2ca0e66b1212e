"""How long the test suite takes, before and after: `make check` and `make test` in fresh clones of two commits,
side by side on this machine.

    python3 scripts/bench_suite.py [--before 222ef05] [--after HEAD] [--only before|after] [--check-only] [--keep]
    make bench-suite [BEFORE=<commit>] [AFTER=<commit>] [SUITE_FLAGS=--check-only]

Each commit is cloned from this repository into a temporary folder (committed work only: the working tree's
changes are not in a clone). In each clone, untimed, `make site .venv/.test-installed` sets up the .venv, the npm
tooling, generated/ and site/, as a fresh clone would have them after `make site`. Then, timed, one clone after
the other (never both at once): `make check` (where the commit's Makefile has it) and `make test`. Each is
measured as wall seconds and as the machine's busy CPU seconds over the run (/proc/stat; run it on an otherwise
idle machine): Chromium, which the browser tests drive, does most of the work, and its processes are not all
reaped by make's, so make's own CPU time misses most of it. The suite is CPU-bound on two cores: wall time
follows CPU time. --check-only skips `make test`, which takes up to half an hour a commit. --only measures
one of the two, for a before that takes over an hour; its figures are then not side by side with the other's.

The table gives each commit's times, the tests each run passed, and after / before. Not a test: nothing here
runs in `make test`.
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "222ef05"  # main before the tiers (issue 42)


def git(*args, cwd=ROOT):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def clone(commit, folder):
    """A clone of this repository at `commit` (a full hash) in `folder`."""
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(folder)], check=True)
    git("checkout", "--quiet", commit, cwd=folder)


def busy_cpu():
    """The CPU seconds this machine has spent busy since boot, all processes (/proc/stat: user, nice, system,
    irq, softirq, steal); where there is no /proc, this process's waited-for children's."""
    try:
        fields = Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()[1:]
    except OSError:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(value) for value in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def make(target, tree, log):
    """Run `make target` in `tree`, its output appended to `log`: (wall s, CPU s, exit code, last output line)."""
    env = {key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    cpu, start = busy_cpu(), time.perf_counter()
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"\n$ make {target}   # in {tree}\n")
        out.flush()
        code = subprocess.run(["make", *target.split()], cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL).returncode
    wall, cpu = time.perf_counter() - start, busy_cpu() - cpu
    lines = [line for line in Path(log).read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    return wall, cpu, code, lines[-1] if lines else ""


def has_target(tree, target):
    return re.search(rf"^{re.escape(target)}:", (tree / "Makefile").read_text(encoding="utf-8"), re.M) is not None


def summary(line):
    """pytest's closing counts ("2675 passed, 3 skipped"), without the time."""
    found = re.findall(r"\d+ (?:passed|failed|skipped|errors?|deselected|xfailed|xpassed)", line)
    return ", ".join(found) or line.strip("= ")[:40]


def measure(name, commit, folder, check_only, log):
    print(f"{name} {commit[:10]}: cloning and setting up (make site .venv/.test-installed, untimed)…", flush=True)
    clone(commit, folder)
    _, _, code, last = make("site .venv/.test-installed", folder, log)
    if code:
        sys.exit(f"bench_suite: make site failed for {name} ({commit[:10]}): {last}; see {log}")
    results = {}
    for target in ["check"] + ([] if check_only else ["test"]):
        if not has_target(folder, target):
            results[target] = None
            continue
        print(f"{name} {commit[:10]}: make {target}…", flush=True)
        wall, cpu, code, last = make(target, folder, log)
        results[target] = (wall, cpu, code, summary(last))
    return results


def cell(result, index):
    if result is None:
        return "—"
    wall, cpu, code, counts = result
    return [f"{wall:,.0f} s", f"{cpu:,.0f} s", f"{counts}{'' if code == 0 else f' (exit {code})'}"][index]


def ratio(before, after, index):
    if before is None or after is None or not before[index]:
        return "—"
    return f"{after[index] / before[index]:.2f}"


def table(commits, results):
    rows = [("", f"before {commits['before'][:7]}", f"after {commits['after'][:7]}", "after / before")]
    for target in dict.fromkeys(target for by_target in results.values() for target in by_target):
        before, after = results.get("before", {}).get(target), results.get("after", {}).get(target)
        for index, what in enumerate(("wall", "CPU", "tests")):
            rows.append((f"make {target}  {what}", cell(before, index), cell(after, index),
                         ratio(before, after, index) if what != "tests" else ""))
    widths = [max(len(row[k]) for row in rows) for k in range(4)]
    return "\n".join("  ".join(text.ljust(width) if k == 0 else text.rjust(width) for k, (text, width)
                               in enumerate(zip(row, widths))) for row in rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BEFORE, help=f"the commit to compare against (default: {BEFORE})")
    parser.add_argument("--after", default="HEAD", help="the commit measured (default: HEAD)")
    parser.add_argument("--only", choices=("before", "after"), help="measure one of the two commits alone")
    parser.add_argument("--check-only", action="store_true", help="time make check alone, not make test")
    parser.add_argument("--keep", action="store_true", help="keep the clones (their paths are printed)")
    args = parser.parse_args(argv)
    commits = {name: git("rev-parse", "--verify", f"{ref}^{{commit}}") for name, ref in
               (("before", args.before), ("after", args.after))}
    work = Path(tempfile.mkdtemp(prefix="bench-suite-"))
    log = work.with_suffix(".log")  # beside the clones, so it outlives them
    print(f"bench_suite: clones in {work}, make's output in {log}")
    try:
        results = {name: measure(name, commit, work / name, args.check_only, log) for name, commit in commits.items()
                   if args.only in (None, name)}
        print()
        print(table(commits, results))
        if any(result and result[2] for by_target in results.values() for result in by_target.values()):
            print(f"\nA run failed: its time is not the suite's. See {log}")
            return 1
        return 0
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
