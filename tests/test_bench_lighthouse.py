"""scripts/bench_lighthouse.py's copies of the site for --content-cost (each keeps everything but what it takes
out, so the differences between their scores are what that part costs), its page selection and its table.
(The scores themselves are a benchmark, never a test.)"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import bench_lighthouse as bench  # noqa: E402

OURS = """<html><head><link rel="stylesheet" href="../assets/ours.css"></head><body><header>our header</header>
<article class="md-content__inner md-typeset">
<h1>Scores</h1><figure><svg width="10" height="10" class="aih-svg" viewBox="0 0 10 10"><rect/></svg>
<figcaption>The caption stays.</figcaption></figure><table><tr><td>1</td></tr></table>
</article><script src="../assets/ours.js"></script></body></html>"""
BARE = """<html><head></head><body><article class="md-content__inner md-typeset">
<h1>Scores</h1><p>--8&lt;-- "figure.md"</p>
</article></body></html>"""


def site(folder, pages):
    for path, html in pages.items():
        (folder / path).mkdir(parents=True, exist_ok=True)
        (folder / path / "index.html").write_text(html, encoding="utf-8")
    return folder


def test_without_figures_takes_out_the_inline_svg_and_nothing_else(tmp_path):
    ours = site(tmp_path / "site", {"scores": OURS})
    html = (bench.without_figures(ours, tmp_path) / "scores" / "index.html").read_text(encoding="utf-8")
    assert "<svg" not in html
    assert html == OURS.replace(bench.FIGURE_SVG.search(OURS).group(0), "")
    assert (ours / "scores" / "index.html").read_text(encoding="utf-8") == OURS, "the built site was changed"


def test_shell_only_keeps_our_page_around_the_bare_pages_article(tmp_path):
    ours = site(tmp_path / "site", {"scores": OURS, "embed/ex-scores": OURS})
    bare = site(tmp_path / "bare", {"scores": BARE})
    copy = bench.shell_only(ours, bare, tmp_path)
    html = (copy / "scores" / "index.html").read_text(encoding="utf-8")
    assert bench.ARTICLE.search(html).group(0) == bench.ARTICLE.search(BARE).group(0)
    before, after = OURS.split('<article class="md-content__inner md-typeset">')[0], OURS.split("</article>")[1]
    assert html.startswith(before) and html.endswith(after), "our shell around the article was changed"
    assert "<table>" not in html and "<svg" not in html
    # A page the bare build does not have is left as it is (and the benchmark does not measure its copies).
    assert (copy / "embed" / "ex-scores" / "index.html").read_text(encoding="utf-8") == OURS


def test_only_selects_the_pages_whose_path_has_one_of_the_words(tmp_path):
    ours = site(tmp_path / "site", {".": OURS, "scores": OURS, "softmax": OURS, "cite": OURS,
                                    "embed/ex-scores": OURS, "embed/ex-other": OURS, "print": OURS})
    assert bench.pages(ours, [""]) == ["", "cite/", "embed/ex-scores/", "scores/", "softmax/"]
    assert bench.pages(ours, ["soft", "cite"]) == ["cite/", "softmax/"]


def test_the_chinese_editions_pages_are_measured_and_selected_like_the_english_ones(tmp_path):
    """Lighthouse holds on zh pages as on en pages (issue 60): the zh edition's pages are in the list, its print
    edition is not, one of its embed pages is; `--only zh/qkv` picks the one page, `--only qkv` both twins."""
    ours = site(tmp_path / "site", {".": OURS, "qkv": OURS, "print": OURS, "embed/ex-scores": OURS,
                                    "zh": OURS, "zh/qkv": OURS, "zh/print": OURS, "zh/embed/ex-scores": OURS,
                                    "zh/embed/ex-other": OURS})
    assert bench.pages(ours, [""]) == ["", "embed/ex-scores/", "qkv/", "zh/", "zh/embed/ex-scores/", "zh/qkv/"]
    assert bench.pages(ours, ["zh/qkv"]) == ["zh/qkv/"]
    assert bench.pages(ours, ["qkv"]) == ["qkv/", "zh/qkv/"]


def test_each_copy_of_a_page_takes_each_place_in_turn():
    copies = ["built", "without figures", "shell", "bare page"]
    orders = [bench.rotated(copies, run) for run in range(len(copies))]
    assert orders[0] == copies, "the first run keeps the table's order"
    assert all(sorted(order) == sorted(copies) for order in orders), "every copy is measured on every run"
    for place in range(len(copies)):
        assert sorted(order[place] for order in orders) == sorted(copies), f"place {place + 1} is not shared"
    assert bench.rotated(["built"], 2) == ["built"]


def test_a_row_shows_each_runs_score_beside_the_medians():
    runs = [{"performance": perf, "tbt": tbt, "dom": 900, "bytes": kb * 1024, "accessibility": a11y,
             "best-practices": 100, "seo": 100} for perf, tbt, kb, a11y in
            ((95, 200, 120, 100), (88, 450, 121, 100), (97, 150, 119, 96))]
    cells = [cell.strip() for cell in bench.row("learning/", runs, bare_bytes=100 * 1024).split("|")[1:-1]]
    header = [cell.strip() for cell in bench.HEADER.splitlines()[0].split("|")[1:-1]]
    assert dict(zip(header, cells)) == {
        "page": "learning/", "perf": "95", "each run": "95 88 97", "TBT ms": "200", "DOM": "900",
        "KB at load": "120.0", "Δ KB over bare": "20.0", "a11y": "96", "best pr.": "100", "SEO": "100"}
    assert len(header) == len(bench.HEADER.splitlines()[1].split("|")[1:-1]), "the rule under the header"
