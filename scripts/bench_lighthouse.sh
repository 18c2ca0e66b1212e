#!/usr/bin/env bash
# Lighthouse 12.2.3 (mobile preset: its default) on a page of the built site, served on 127.0.0.1 under
# /attention-heatmap/ and gzip-compressed, as GitHub Pages serves it, driving the system Chromium.
#
#   scripts/bench_lighthouse.sh [page]        (default: demo/; build the site first: make site)
#
# Lighthouse is installed on first use into .cache/lighthouse (git-ignored), pinned with npm i -E.
# Targets: performance >= 95, accessibility, best practices and SEO 100. The JSON report is kept in
# .cache/lighthouse/report.json; the script exits non-zero when a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."

PAGE="${1:-demo/}"
TOOL_DIR=.cache/lighthouse
LIGHTHOUSE="$TOOL_DIR/node_modules/.bin/lighthouse"
PYTHON="${PYTHON:-.venv/bin/python}"
export CHROME_PATH="${CHROMIUM:-/usr/bin/chromium}"

test -f site/index.html || { echo "site/ is not built: run make site" >&2; exit 1; }
if [ ! -x "$LIGHTHOUSE" ]; then
    mkdir -p "$TOOL_DIR"
    test -f "$TOOL_DIR/package.json" || echo '{"private": true}' > "$TOOL_DIR/package.json"
    (cd "$TOOL_DIR" && npm i -E lighthouse@12.2.3 --no-audit --no-fund --silent)
fi

# Like GitHub Pages: the site under its sub-path, text gzip-compressed when the browser accepts it.
PORT_FILE="$(mktemp)"
"$PYTHON" - "$PORT_FILE" <<'PY' &
import functools, gzip, http.server, os, sys
PREFIX = "/attention-heatmap/"
TEXT = (".html", ".css", ".js", ".json", ".svg", ".xml", ".txt")
class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real host
    def translate_path(self, path):
        return super().translate_path("/" + path[len(PREFIX):] if path.startswith(PREFIX) else "/__none__")
    def do_GET(self):
        path = self.translate_path(self.path.split("?")[0])
        if os.path.isdir(path) and self.path.split("?")[0].endswith("/"):
            path = os.path.join(path, "index.html")
        if not (path.endswith(TEXT) and os.path.isfile(path) and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().do_GET()
        body = gzip.compress(open(path, "rb").read(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory="site"))
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null; rm -f "$PORT_FILE"' EXIT
for _ in $(seq 50); do [ -s "$PORT_FILE" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$PORT_FILE")/attention-heatmap/$PAGE"

"$LIGHTHOUSE" "$URL" --quiet --output=json --output-path="$TOOL_DIR/report.json" \
    --only-categories=performance,accessibility,best-practices,seo \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync"

"$PYTHON" - "$TOOL_DIR/report.json" "$URL" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
targets = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
print(f"Lighthouse {report['lighthouseVersion']}, {report['configSettings']['formFactor']}, {sys.argv[2]}")
print(f"{'category':<16}{'score':>7}{'target':>8}{'score / target':>16}")
missed = []
for key, target in targets.items():
    score = round(report["categories"][key]["score"] * 100)
    print(f"{key:<16}{score:>7}{target:>8}{score / target:>16.2f}")
    if score < target:
        missed.append(key)
        for audit in report["categories"][key]["auditRefs"]:
            result = report["audits"][audit["id"]]
            if audit["weight"] and result["score"] is not None and result["score"] < 1:
                print(f"    {audit['id']}: {result['title']} ({result.get('displayValue', result['score'])})")
metrics = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index")
print("  ".join(f"{m} {report['audits'][m]['displayValue']}" for m in metrics))
sys.exit(1 if missed else 0)
PY
