"""Benchmark: the your-sentence page in headless Chromium, and its JS forward pass against the numpy encoder.

    .venv/bin/python scripts/bench_your_sentence.py [--repeats 5] [--site PATH]

Serves the built site/ on 127.0.0.1, loads the model once (not timed), then for a 16-token and a 64-token
input times Run -> grid drawn (the page's performance marks "aih-yours-run" and "aih-yours-grid") and Run -> the
strongest head open in the heatmap ("aih-yours-head"), the median of `repeats`, and records the main thread's
long tasks (the browser reports tasks over 50 ms) during those runs. Both are compared with the numpy encoder's
forward pass on the same tokens and the same (dequantized) weights, one BLAS thread, measured in this run: the
ratios are Run -> grid / numpy (the issue's aim: at most 3 for 64 tokens) and the worker's forward / numpy.
--site times another build (say, main's, for a before/after); a page that opens no head after Run shows "-".
"""
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # numpy's BLAS on one thread, before numpy is imported
os.environ["OMP_NUM_THREADS"] = "1"

import argparse
import functools
import http.server
import json
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.minilm.encoder import EncoderParams, encode  # noqa: E402
from models.minilm.model import load_config, model_folder  # noqa: E402
from models.minilm.shipped import dequantize, unpack  # noqa: E402

INPUTS = {
    16: "The animal didn't cross the street because it was too tired.",
    64: "The author who wrote the letters that the editor rejected finally published them herself in a small "
        "magazine, and the readers who found it years later wrote to ask where the rest of the letters had gone, "
        "but nobody at the magazine could remember who had kept them or why they were never printed at all, not even "
        "the editor.",
}


# headless (Playwright's default) without the sandbox, the GPU, or the browser's own background traffic
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def numpy_forward_ms(site, ids, repeats):
    manifest_path = next((site / "models").glob("model.*.json"))
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    blob = (site / manifest["files"]["weights"]).read_bytes()
    config = load_config(model_folder())
    params = EncoderParams.from_state_dict(dequantize(manifest["tensors"], unpack(blob)), config)
    encode(params, config, ids)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        encode(params, config, ids)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site to time (default: site/)")
    args = parser.parse_args()
    site = args.site.resolve()
    if not (site / "your-sentence" / "index.html").exists():
        sys.exit(f"{site} is not built: make site")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/your-sentence/"
    vocabulary = {}
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("CHROMIUM") or shutil.which("chromium"),
                                             args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.evaluate("""() => { window.longTasks = [];
            new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration)))
              .observe({ type: "longtask" }); }""")
        page.fill("#aih-yours-text", "Warm up.")
        page.click("[data-slot=run]")
        page.wait_for_selector("#aih-yours[data-state=done]", timeout=300_000)  # download + first run, not timed
        for size, text in INPUTS.items():
            run_to_grid, run_to_head, forward = [], [], []
            page.evaluate("() => { window.longTasks.length = 0; }")
            for _ in range(args.repeats):
                page.evaluate("() => { performance.clearMarks(); document.getElementById('aih-yours').dataset.state = ''; }")
                page.fill("#aih-yours-text", text)
                page.click("[data-slot=run]")
                page.wait_for_selector("#aih-yours[data-state=done]", timeout=60_000)
                run_to_grid.append(page.evaluate(
                    "() => performance.measure('run', 'aih-yours-run', 'aih-yours-grid').duration"))
                try:
                    page.wait_for_function("() => performance.getEntriesByName('aih-yours-head').length", timeout=10_000)
                    run_to_head.append(page.evaluate(
                        "() => performance.measure('head', 'aih-yours-run', 'aih-yours-head').duration"))
                except PlaywrightTimeout:  # a build whose page opens no head by itself
                    pass
                forward.append(float(page.get_attribute("#aih-yours", "data-forward-milliseconds")))
            tokens = page.inner_text("[data-slot=tokens]").split(" ")
            assert len(tokens) == size, f"the {size}-token input gave {len(tokens)} tokens"
            longest = max(page.evaluate("() => window.longTasks"), default=0)
            if not vocabulary:
                manifest = json.loads(next((site / "models").glob("model.*.json")).read_text(encoding="utf-8"))
                lines = (site / manifest["files"]["vocabulary"]).read_text(encoding="utf-8").split("\n")
                vocabulary = {token: index for index, token in enumerate(lines)}
            ids = np.array([vocabulary[token] for token in tokens])
            numpy_ms = numpy_forward_ms(site, ids, args.repeats)
            rows.append((size, statistics.median(run_to_grid), statistics.median(run_to_head) if run_to_head else None, longest,
                         statistics.median(forward), numpy_ms))
        browser.close()
    server.shutdown()
    print(f"{site}: your-sentence page, headless Chromium, median of {args.repeats}; numpy encoder on 1 BLAS thread")
    print(f"{'tokens':>6}  {'numpy':>7}  {'Run→grid':>9}  {'grid/numpy':>10}  {'Run→head':>9}  {'JS forward':>10}  "
          f"{'forward/numpy':>13}  {'longest main-thread task':>24}")
    for size, grid_ms, head_ms, longest, js_ms, numpy_ms in rows:
        task = f"{longest:.0f} ms" if longest else "none > 50 ms"
        head = f"{head_ms:.0f} ms" if head_ms is not None else "-"
        print(f"{size:>6}  {numpy_ms:>4.0f} ms  {grid_ms:>6.0f} ms  {grid_ms / numpy_ms:>10.1f}  {head:>9}  "
              f"{js_ms:>7.0f} ms  {js_ms / numpy_ms:>13.1f}  {task:>24}")


if __name__ == "__main__":
    main()
