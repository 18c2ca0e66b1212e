"""Lighthouse on every page of the built site, and on a bare Material page, in the same run.

    .venv/bin/python scripts/bench_lighthouse.py [--runs 3] [--only WORD ...] [--content-cost] [--zensical]

    --only zh/qkv learning   (the Chinese qkv page, and the English and Chinese learning pages)

Lighthouse 12.2.3 (mobile preset, its default) drives the system Chromium. Both sites are served on
127.0.0.1 under /attention-heatmap/ and gzip-compressed, as GitHub Pages serves them. The bare reference is
`mkdocs build` of the same Markdown with a bare Material config (scripts/bench_site.py's), measured in the
same run so that both see the same machine. Prints one table: page, median performance and each run's score,
TBT, DOM size, bytes transferred at load, and bytes over the bare page; then the other three categories' lowest
scores.
With --content-cost it also measures, in the same runs, two copies of each page: one with its inline SVG
figures taken out, and one with its whole article replaced by the bare build's article for the same Markdown
(our header, navigation, stylesheets and scripts; none of our figures, tables, problems or math); and the
bare build's own page at the same path. A second table then splits each page's gap to its bare page into
what the figures cost, what the rest of the article costs, and what the shell costs.
With --zensical it also builds the same site with Zensical (scripts/zensical_site.py) and measures each page of
that build in the same runs, in the row below MkDocs' ("… zensical").

Lighthouse is installed on first use into .cache/lighthouse (git-ignored), pinned with npm i -E. A benchmark,
not a test: the scores move with the machine's load. The budgets that hold whatever the machine (DOM size,
bytes, long tasks) are checked by the browser tests.
"""
import argparse
import functools
import gzip
import http.server
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_site import SKIP, bare_config  # noqa: E402
from zensical_site import build_zensical  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TOOL_DIR = ROOT / ".cache" / "lighthouse"
LIGHTHOUSE = TOOL_DIR / "node_modules" / ".bin" / "lighthouse"
PREFIX = "/attention-heatmap/"
TEXT = (".html", ".css", ".js", ".json", ".svg", ".xml", ".txt")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync"
EMBED_SAMPLE = "ex-scores"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def install_lighthouse():
    if LIGHTHOUSE.exists():
        return
    TOOL_DIR.mkdir(parents=True, exist_ok=True)
    if not (TOOL_DIR / "package.json").exists():
        (TOOL_DIR / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    subprocess.run(["npm", "i", "-E", "lighthouse@12.2.3", "--no-audit", "--no-fund", "--silent"], cwd=TOOL_DIR, check=True)


def serve(site):
    """Serve `site` under PREFIX, gzip-compressing text as GitHub Pages does. -> (server, base URL)."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def translate_path(self, path):
            return super().translate_path("/" + path[len(PREFIX):] if path.startswith(PREFIX) else "/__none__")

        def do_GET(self):
            url_path = self.path.split("?")[0]
            path = self.translate_path(url_path)
            if os.path.isdir(path) and url_path.endswith("/"):
                path = os.path.join(path, "index.html")
            if not (path.endswith(TEXT) and os.path.isfile(path) and "gzip" in self.headers.get("Accept-Encoding", "")):
                return super().do_GET()
            body = gzip.compress(Path(path).read_bytes(), 6)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"


def lighthouse(url, report):
    env = dict(os.environ, CHROME_PATH=os.environ.get("CHROMIUM") or "/usr/bin/chromium")
    subprocess.run([str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}",
                    f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}"],
                   env=env, check=True, capture_output=True)
    data = json.loads(report.read_text(encoding="utf-8"))
    audits = data["audits"]
    if any(data["categories"][key]["score"] is None for key in CATEGORIES):  # Lighthouse could not score the page
        print(f"bench_lighthouse: {url}: no score ({(data.get('runtimeError') or {}).get('code', 'unknown error')}); "
              "running it again", file=sys.stderr)
        return None
    return {
        **{key: round(data["categories"][key]["score"] * 100) for key in CATEGORIES},
        "tbt": audits["total-blocking-time"]["numericValue"],
        "dom": audits["dom-size"]["numericValue"],
        "bytes": audits["total-byte-weight"]["numericValue"],
        "failed": sorted(ref["id"] for key in CATEGORIES[1:] for ref in data["categories"][key]["auditRefs"]
                         if ref["weight"] and audits[ref["id"]]["score"] is not None and audits[ref["id"]]["score"] < 1),
    }


def build_bare_site(workdir):
    """The bare reference: the same docs/ built with a bare Material config."""
    tree = workdir / "tree"
    shutil.copytree(ROOT, tree, ignore=SKIP)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--config-file", str(bare_config(tree)), "--site-dir",
                    str(workdir / "bare")], cwd=tree, env=env, check=True, capture_output=True)
    return workdir / "bare"


FIGURE_SVG = re.compile(r'<svg [^>]*class="aih-svg".*?</svg>', re.S)
ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">.*?</article>', re.S)


def variant(site, workdir, name, change):
    """A copy of `site` with `change(page_html, relative_path)` applied to every page."""
    copy = workdir / name
    shutil.copytree(site, copy)
    for page in copy.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        page.write_text(change(html, page.relative_to(copy)), encoding="utf-8")
    return copy


def without_figures(site, workdir):
    """Each page with no inline SVG figure (captions, tables and text stay)."""
    return variant(site, workdir, "without-figures", lambda html, _: FIGURE_SVG.sub("", html))


def shell_only(site, bare, workdir):
    """Each page with its article replaced by the bare build's article for the same page: what is left is our
    shell (header, toggle, navigation, table of contents, stylesheets, scripts, CSP)."""

    def change(html, path):
        bare_page = bare / path
        if not bare_page.exists():  # the embed pages: not in the bare build, and not measured in this copy
            return html
        bare_article = ARTICLE.search(bare_page.read_text(encoding="utf-8")).group(0)
        return ARTICLE.sub(lambda _: bare_article, html, count=1)

    return variant(site, workdir, "shell-only", change)


def pages(site, only):
    """Every page a reader browses, in both languages (English at the root, Chinese under zh/: `--only zh/qkv`
    picks one twin, `--only qkv` both), and one embed page for the thirty alike (they differ only in their
    example's numbers). Not print/: the print edition is every page at once, for a printer, and loads no script."""
    found = sorted(p.parent.relative_to(site).as_posix() for p in site.rglob("index.html")
                   if not {"assets", "print", "search"} & set(p.relative_to(site).parts)
                   and (p.parent.parent.name != "embed" or p.parent.name == EMBED_SAMPLE))
    return [("" if p == "." else p + "/") for p in found if any(word in p for word in only)]


def rotated(copies, run):
    """The copies of a page in the order run number `run` measures them: each run starts one further along, so
    over the runs each copy takes each place. In a fixed order the second place was charged 3-6 points: the
    page as built and the page without figures, the same page where it has no figures (cite, problems, qkv,
    your sentence), scored that much lower second, right after the first."""
    start = run % len(copies)
    return copies[start:] + copies[:start]


def measured(url, report, attempts=3):
    """A scored Lighthouse run of `url`, trying again when a run comes back unscored (a busy machine)."""
    for _ in range(attempts):
        result = lighthouse(url, report)
        if result:
            return result
    sys.exit(f"bench_lighthouse: {url}: no score in {attempts} attempts")


def median_of(runs, key):
    return statistics.median(run[key] for run in runs)


HEADER = ("| page                     | perf | each run | TBT ms |   DOM | KB at load | Δ KB over bare "
          "| a11y | best pr. | SEO |\n"
          "| ------------------------ | ---: | -------- | -----: | ----: | ---------: | -------------: "
          "| ---: | -------: | --: |")


def row(page, runs, bare_bytes):
    """A page's line of the table: medians of its runs, and each run's performance score in the order measured
    (on a shared machine they spread over several points: a median of 3 alone hides that), then the lowest
    score of the other three categories."""
    each = " ".join(str(run["performance"]) for run in runs)
    delta = (median_of(runs, "bytes") - bare_bytes) / 1024
    return (f"| {page:<24} | {median_of(runs, 'performance'):4.0f} | {each:<8} | {median_of(runs, 'tbt'):6.0f} | "
            f"{median_of(runs, 'dom'):5.0f} | {median_of(runs, 'bytes') / 1024:10.1f} | {delta:14.1f} | "
            f"{min(r['accessibility'] for r in runs):4d} | {min(r['best-practices'] for r in runs):8d} | "
            f"{min(r['seo'] for r in runs):3d} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="+", default=[""], metavar="WORD",
                        help="only pages whose path contains one of these words")
    parser.add_argument("--content-cost", action="store_true",
                        help="also measure each page without its figures, and with the bare page's article")
    parser.add_argument("--zensical", action="store_true", help="also measure the same site built by Zensical")
    args = parser.parse_args(argv)
    site = ROOT / "site"
    if not (site / "index.html").exists():
        sys.exit("bench_lighthouse: site/ is not built: run make site")
    install_lighthouse()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        bare = build_bare_site(workdir)
        servers = [serve(site), serve(bare)]
        our_url, bare_url = servers[0][1], servers[1][1]
        variants = {}  # suffix of the row -> base URL of that copy of the site
        if args.content_cost:
            for suffix, copy in ((" −figures", without_figures(site, workdir)),
                                 (" shell", shell_only(site, bare, workdir))):
                servers.append(serve(copy))
                variants[suffix] = servers[-1][1]
            variants[" bare"] = bare_url
        if args.zensical:
            servers.append(serve(build_zensical(workdir / "zensical")))
            variants[" zensical"] = servers[-1][1]
        copies = [("", our_url), *variants.items()]
        results = {}
        try:
            for run in range(args.runs):  # pages interleaved with the bare page, run after run
                results.setdefault("(bare Material)", []).append(measured(bare_url, workdir / "report.json"))
                for page in pages(site, args.only):
                    # the embed pages have no bare page to compare with, so no content cost: only as built
                    compared = (bare / page / "index.html").exists()
                    for suffix, url in rotated(copies if compared else copies[:1], run):
                        results.setdefault(f"{page or '/'}{suffix}", []).append(
                            measured(url + page, workdir / "report.json"))
        finally:
            for server, _ in servers:
                server.shutdown()
    bare_bytes = median_of(results["(bare Material)"], "bytes")
    print(f"Lighthouse 12.2.3, mobile, median of {args.runs} runs; load average {os.getloadavg()[0]:.1f} at the end\n")
    print(HEADER)
    for page, runs in results.items():
        print(row(page, runs, bare_bytes))
    failed = {page: sorted({a for r in runs for a in r["failed"]}) for page, runs in results.items()}
    for page, audits in failed.items():
        if audits:
            print(f"  {page}: failing audits outside performance: {', '.join(audits)}")
    if args.content_cost:
        print_content_cost(results, args.only, site)


def print_content_cost(results, only, site):
    """Where each page's points go, from the medians: built → without figures → shell only → bare page."""
    print("\nWhere the points go (median performance). figures = (without figures) − built; rest of article ="
          " shell − (without figures); shell = (bare page) − shell.\n")
    print("| page                     | built | −figures | shell | bare page | figures | rest of article | shell |")
    print("| ------------------------ | ----: | -------: | ----: | --------: | ------: | --------------: | ----: |")
    for page in pages(site, only):
        name = page or "/"
        if name + " bare" not in results:
            continue
        built, no_figures, shell, bare = (median_of(results[name + suffix], "performance")
                                          for suffix in ("", " −figures", " shell", " bare"))
        print(f"| {name:<24} | {built:5.0f} | {no_figures:8.0f} | {shell:5.0f} | {bare:9.0f} | "
              f"{no_figures - built:7.0f} | {shell - no_figures:15.0f} | {bare - shell:5.0f} |")


if __name__ == "__main__":
    main()
