"""How long one of our scripts keeps the main thread busy while a page loads, in two built sites side by side.

    .venv/bin/python scripts/bench_page_tasks.py OLD_SITE NEW_SITE [--page real-heads/] [--script real-heads.js]
        [--loads 7]

Each site is served under /attention-heatmap/ as GitHub Pages serves it; the page is loaded alternately from
one and the other, each time in a fresh context emulating a phone as Lighthouse's mobile preset does (412 x 823,
1.75 device pixels per CSS pixel, the viewport meta honoured) with the CPU slowed 4x (CDP's
Emulation.setCPUThrottlingRate), recorded with a Chromium trace until 4 s after --script has loaded. For each
load: the longest run of --script (the trace's AnimationFrame::Script::Execute spans, which the Long Animation
Frames API reads, and its function calls), and the longest main-thread task (RunTask) holding one. A script run
under 5 ms has no Execute span: only its function calls count. A promise's continuation names no script in the
trace, so the third measure is the browser tests' own (tests/browser/test_load_budget.py): the longest run of
any script of ours, from the Long Animation Frames API in the page, counting a callback of a kind ours use
when it names no source. Prints each load, the medians and their ratio.

Build OLD_SITE from the commit to compare with (`git worktree add`, then `mkdocs build --site-dir`).
"""
import argparse
import json
import statistics
import sys
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lighthouse import serve  # noqa: E402  (gzip-compressed under PREFIX, as GitHub Pages serves)

# A phone as Lighthouse's mobile preset emulates it. Only with the viewport meta honoured (is_mobile) does asking
# for the window's width make Chromium lay out the page at once.
PHONE = {"width": 412, "height": 823}
MOBILE = dict(viewport=PHONE, device_scale_factor=1.75, is_mobile=True, has_touch=True)
CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute"]

# Long animation frames, each script's share, recorded from before the page's first script runs.
WATCH_SCRIPTS = """
window.__aihScripts = [];
new PerformanceObserver((list) => {
  for (const frame of list.getEntries()) {
    for (const script of frame.scripts) {
      window.__aihScripts.push([script.sourceURL, script.invokerType, script.invoker, script.duration]);
    }
  }
}).observe({ type: "long-animation-frame", buffered: true });
"""

# Whose script ran: ours is under /javascripts/ or /widgets/ (the theme's under /assets/); a callback Chromium names no
# source for counts as ours too, to be safe, when it is of a kind our scripts use (a timer, a promise
# continuation, an IntersectionObserver). They use no requestAnimationFrame; the theme's go unnamed.
OURS = ("TimerHandler:setTimeout", "IntersectionObserverCallback", "Promise.", "Response.json.then")


def longest_script_of_ours(scripts):
    """The longest of our scripts' runs among `scripts` (window.__aihScripts, which WATCH_SCRIPTS fills):
    -> (file, invoker, ms)."""
    ours = [(urlparse(url).path.rsplit("/", 1)[-1], invoker, round(ms)) for url, kind, invoker, ms in scripts
            if (("/javascripts/" in url or "/widgets/" in url) and "/assets/" not in url)
            or (not url and invoker.startswith(OURS))]
    return max(ours, key=lambda script: script[2], default=("", "", 0))


def script_runs(events, script):
    """[(start, duration, pid, tid)] in µs of each run of `script` in the trace's events."""
    def mentions(event):
        return script in json.dumps(event.get("args", {}))

    runs = [(e["ts"], e["dur"], e["pid"], e["tid"]) for e in events
            if e.get("ph") == "X" and e["name"] in ("FunctionCall", "EvaluateScript") and mentions(e)]
    # begin/end pairs; an id is reused, so each begin ends at the next end of its id
    marks = sorted((e for e in events if e["name"] == "AnimationFrame::Script::Execute" and e.get("ph") in ("b", "e")),
                   key=lambda e: e["ts"])
    for k, begin in enumerate(marks):
        if begin["ph"] == "b" and mentions(begin):
            end = next((e for e in marks[k + 1:] if e["ph"] == "e" and e.get("id2") == begin.get("id2")), None)
            if end:
                runs.append((begin["ts"], end["ts"] - begin["ts"], begin["pid"], begin["tid"]))
    return runs


def longest(events, script):
    """(the longest run of `script`, the longest task holding a run of it), in ms."""
    runs = script_runs(events, script)
    tasks = [(e["ts"], e["dur"], e["pid"], e["tid"]) for e in events if e.get("ph") == "X" and e["name"] == "RunTask"]

    def task_of(run):
        ts, dur, pid, tid = run
        return max((d for t, d, p, i in tasks if (p, i) == (pid, tid) and t <= ts and t + d >= ts + dur), default=dur)

    return max((r[1] for r in runs), default=0) / 1000, max(map(task_of, runs), default=0) / 1000


def load(browser, url, script):
    from playwright.sync_api import TimeoutError  # noqa: PLC0415

    context = browser.new_context(**MOBILE)
    try:
        page = context.new_page()
        page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
        page.add_init_script(WATCH_SCRIPTS)
        browser.start_tracing(page=page, categories=CATEGORIES)
        page.goto(url, wait_until="networkidle", timeout=120_000)
        try:
            page.wait_for_function(f"() => performance.getEntriesByType('resource').some((r) => "
                                   f"r.name.endsWith('/{script}'))", timeout=60_000)
        finally:
            page.wait_for_timeout(4000)
            events = json.loads(browser.stop_tracing())["traceEvents"]
        return *longest(events, script), longest_script_of_ours(page.evaluate("window.__aihScripts"))[2]
    except TimeoutError:
        raise SystemExit(f"{url} never loaded {script}") from None
    finally:
        context.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--page", default="real-heads/")
    parser.add_argument("--script", default="real-heads.js")
    parser.add_argument("--loads", type=int, default=7)
    args = parser.parse_args()
    for site in (args.old, args.new):
        if not (site / args.page / "index.html").is_file():
            parser.error(f"{site} has no {args.page}index.html: build it first")

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
    from chromium import CHROMIUM_ARGS, chromium_executable  # noqa: PLC0415
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    sites = {name: serve(site)[1] for name, site in (("old", args.old), ("new", args.new))}
    results = {name: [] for name in sites}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        for k in range(args.loads):
            for name, url in sites.items():
                run, task, ours = load(browser, url + args.page, args.script)
                results[name].append((run, task, ours))
                print(f"load {k + 1} {name}: longest run of {args.script} {run:6.1f} ms, in a task of {task:6.1f} ms; "
                      f"longest script of ours {ours:4d} ms", flush=True)
        browser.close()
    medians = {name: [statistics.median(r[i] for r in rows) for i in (0, 1, 2)] for name, rows in results.items()}
    print(f"\n{args.page} at load, CPU 4x slower, median of {args.loads} loads each, side by side:")
    print(f"{'':4s} {'longest run of ' + args.script:>34s} {'longest task holding one':>26s} "
          f"{'longest script of ours':>24s}")
    for name, (run, task, ours) in medians.items():
        print(f"{name:4s} {run:31.1f} ms {task:23.1f} ms {ours:21.0f} ms")
    for i, what in ((1, "longest task"), (2, "longest script of ours")):
        old, new = medians["old"][i], medians["new"][i]
        if old:
            print(f"new/old, {what}: {new:.1f}/{old:.1f} = {new / old:.2f}")


if __name__ == "__main__":
    main()
