"""What a reader's browser really fetches of our JavaScript on each page: site.js, and only the widgets that
page shows, within 10 KB gzipped (the shipped files, gzip level 9, as tests/test_js_unit.py counts them).
The in-browser model never loads until the reader asks for it."""
import gzip
from pathlib import Path
from urllib.parse import urlparse

import pytest

SITE = Path(__file__).resolve().parents[2] / "site"
BUDGET_BYTES = 10 * 1024
MODEL = {"your-sentence-app.js", "your-sentence-worker.js", "encoder.js", "wordpiece.js"}
# Not print/: the print edition loads no widget script, not even site.js (hooks/print_edition.py).
PAGES = sorted(p.parent.relative_to(SITE).as_posix() for p in SITE.glob("*/index.html")
               if p.parent.name not in ("assets", "search", "print"))


def gzipped(name):
    return len(gzip.compress((SITE / "javascripts" / name).read_bytes(), 9, mtime=0))


@pytest.mark.parametrize("path", ["", *[p + "/" for p in PAGES]])
def test_a_page_view_fetches_site_js_and_its_own_widgets_within_10_kb(page, site_url, path):
    fetched = []
    page.on("request", lambda request: fetched.append(urlparse(request.url).path))
    page.goto(site_url + path, wait_until="networkidle", timeout=120_000)  # real heads fetches ~2 MB of examples
    ours = sorted({p.rsplit("/", 1)[1] for p in fetched if "/javascripts/" in p and "/assets/" not in p and p.endswith(".js")})
    assert "site.js" in ours, ours
    assert not MODEL & set(ours), f"{path or 'home'} loaded the model's code before the reader asked: {ours}"
    total = sum(gzipped(name) for name in ours)
    assert total <= BUDGET_BYTES, f"{path or 'home'}: {total} bytes of our JavaScript gzipped: {ours}"
    if path == "problems/":
        assert "heatmap.js" not in ours, ours
