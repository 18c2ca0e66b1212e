"""The built site's text as a newcomer reads it (issue 40): Home lists every page of the nav, says which
numbers are made up and where the real ones are, and no page claims the made-up matrices were trained.

Reads the site/ that `make site` built (it never builds one itself).
"""
import json
import re
import xml.etree.ElementTree as ElementTree
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from figures_src.engine import BuildError
from figures_src import registry
from figures_src.engine import site as site_module
from figures_src.pages import index

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(built_site):
    """The shared site/ (tests/conftest.py)."""
    return built_site


class Links(HTMLParser):
    """The links (href, text) of the first ordered list after the heading with id `heading`."""

    def __init__(self, heading):
        super().__init__(convert_charrefs=True)
        self.heading, self.state, self.links, self.href = heading, "before", [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.state == "before" and tag == "h2" and attrs.get("id") == self.heading:
            self.state = "heading"
        elif self.state == "heading" and tag == "ol":
            self.state = "list"
        elif self.state == "list" and tag == "a":
            self.href = attrs["href"]
            self.links.append([self.href, ""])

    def handle_endtag(self, tag):
        if self.state == "list" and tag == "ol":
            self.state = "done"
        elif tag == "a":
            self.href = None

    def handle_data(self, data):
        if self.state == "list" and self.href is not None:
            self.links[-1][1] += data


def text(path):
    """A page's text without tags (MathML's characters included), spaces collapsed."""
    html = re.sub(r"<(script|style|template)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&amp;", "&").split())


# ---------------------------------------------------------------- Home's list of pages (item 5)

def test_homes_list_of_pages_is_the_nav_but_home(site):
    parser = Links("the-pages")
    parser.feed((site / "index.html").read_text(encoding="utf-8"))
    listed = [(href, title.strip()) for href, title in parser.links]
    nav = [(page.markdown.removesuffix(".md") + "/", page.title) for page in registry.nav() if page.markdown != "index.md"]
    assert listed == nav
    assert ("learning/", "Watch it learn") in listed and ("your-sentence/", "Your sentence") in listed


def test_every_nav_page_has_a_one_line_description_on_home(site):
    home = text(site / "index.html")
    for page in index.pages_data():
        assert page["description"][1:] in home, page


@pytest.mark.parametrize("description, shown", [
    ("SmolLM2-135M writes in your browser.", "SmolLM2-135M writes in your browser."),
    ("RoPE turns queries and keys.", "RoPE turns queries and keys."),
    ("IDs, downloads and how to rebuild everything.", "IDs, downloads and how to rebuild everything."),
    ("GPT-2 and its heads.", "GPT-2 and its heads."),
    ("A tiny decoder writes digits.", "a tiny decoder writes digits."),
    ("Softmax turns scores into weights.", "softmax turns scores into weights."),
])
def test_homes_list_keeps_the_case_of_a_name_after_the_colon(description, shown):
    assert index.lead(description) == shown, \
        "a description starts lower-case after Home's colon unless its first word has a capital or a digit after its " \
        "first letter (SmolLM2, RoPE): a name keeps its spelling"


def test_a_nav_page_without_a_description_fails_the_build(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_url: !ENV [SITE_URL, 'x']\nnav:\n  - Home: index.md\n"
                                         "  - Scores: scores.md\n", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("---\ndescription: Home.\n---\n\n# Home\n", encoding="utf-8")
    (tmp_path / "docs" / "scores.md").write_text("# Scores\n", encoding="utf-8")
    monkeypatch.setattr(index, "ROOT", tmp_path)
    monkeypatch.setattr(registry, "MKDOCS", tmp_path / "mkdocs.yml")
    monkeypatch.setattr(site_module, "MKDOCS", tmp_path / "mkdocs.yml")  # docs_path: the page in the language built
    registry._nav.cache_clear()  # the nav is read once per process: read this one, then the real one again
    try:
        with pytest.raises(BuildError, match=r"docs/scores.md: give the page a one-line `description:`"):
            index.pages_data()
    finally:
        registry._nav.cache_clear()


def test_home_names_the_page_whose_real_model_has_its_own_sentences(site):
    """Two real models now (the MiniLM encoder, SmolLM2 that writes): the running-sentence paragraph names by its
    page the one with three sentences of its own, instead of "the real model"."""
    html = (site / "index.html").read_text(encoding="utf-8")
    (item,) = [li for li in re.findall(r"<li>(.*?)</li>", html, flags=re.S) if "One sentence runs through" in li]
    assert "the real model its own" not in item and 'href="real-heads/"' in item, \
        "Home's running-sentence paragraph names Attention in a real model (real-heads/) as the page with its own sentences"


def test_homes_notation_says_h_counts_query_heads(site):
    home = text(site / "index.html")
    assert "number of (query) heads" in home and "number of heads" not in home.replace("number of (query) heads", ""), \
        "with h_kv in the notation table, h is the number of (query) heads"


# ---------------------------------------------------------------- what is made up, what is real (item 6)

def test_home_says_early_that_the_running_example_is_made_up_and_links_the_real_pages(site):
    html = (site / "index.html").read_text(encoding="utf-8")
    paragraph = re.search(r'<p id="made-up">(.*?)</p>', html, flags=re.S)
    assert paragraph, "Home has no paragraph #made-up"
    assert "made up" in paragraph.group(1) and "not learned" in paragraph.group(1)
    links = set(re.findall(r'href="([^"]+)"', paragraph.group(1)))
    assert {"learning/", "real-heads/", "your-sentence/"} <= links
    assert html.index('id="made-up"') < html.index('id="how-to-read-this-site"'), "said before the reading guide"


def test_no_page_says_the_made_up_matrices_were_learned(site):
    for page in ("qkv", "scores", "demo"):
        found = re.findall(r"[^.]*\b(?:the model|were|was) (?:learned|trained)[^.]*", text(site / page / "index.html"))
        assert not found, (page, found)
    assert 'href="../#made-up"' in (site / "qkv" / "index.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------- one symbol, one meaning (item 2)

MATH = re.compile(r"<math\b.*?</math>", flags=re.S)
TILDE = "\u0303"  # s̃, S̃: a combining tilde, as the site writes the scaled scores in plain text


def math_text(element):
    """MathML as plain text that keeps what tells symbols apart: x_i, x^T, and a tilde over a letter (S̃)."""
    tag = element.tag.rsplit("}", 1)[-1]
    parts = [math_text(child) for child in element]
    if tag in ("mi", "mn", "mo", "mtext"):
        return (element.text or "").strip()
    if tag == "msub":
        return f"{parts[0]}_{parts[1]}"
    if tag == "msup":
        return f"{parts[0]}^{parts[1]}"
    if tag == "msubsup":
        return f"{parts[0]}_{parts[1]}^{parts[2]}"
    if tag == "mover" and parts[1] in ("~", "˜"):
        return parts[0] + TILDE
    if tag == "mfrac":
        return f"({parts[0]})/({parts[1]})"
    if tag == "msqrt":
        return f"√({''.join(parts)})"
    return "".join(parts)


class Reading(HTMLParser):
    """A page's text as a reader meets it, templates (the readout's words) and SVG labels included, code left
    out: a subscript as _x and a superscript as ^x, an empty one (a slot the script fills) as _ij and ^x."""

    SKIPPED = {"script", "style", "code", "pre"}
    BLOCKS = {"p", "li", "div", "br", "tr", "td", "th", "h1", "h2", "h3", "figcaption", "caption", "text", "title",
              "summary", "legend", "label", "option"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skipping, self.parts, self.empty = 0, [], []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag in ("sub", "sup"):
            self.parts.append("_" if tag == "sub" else "^")
            self.empty.append((tag, len(self.parts)))
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.SKIPPED:
            self.skipping -= 1
        elif tag in ("sub", "sup") and self.empty:
            kind, at = self.empty.pop()
            if at == len(self.parts):  # nothing inside: a slot
                self.parts.append("ij" if kind == "sub" else "x")

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def reading(path):
    """The text of a built page, its MathML turned into text first (tests/test_reader_text.py::math_text)."""
    def as_text(match):
        element = ElementTree.fromstring(match.group(0))
        return f"<span>{escape(math_text(element))}</span>"

    parser = Reading()
    parser.feed(MATH.sub(as_text, path.read_text(encoding="utf-8")))
    return re.sub(r"[ \t\u00a0]+", " ", "".join(parser.parts))


# Each old meaning, as the text wrote it: A is the table of weights (a_ij), S the raw scores (s_ij), S̃ the
# scaled ones (s̃_ij), and W only a projection (W_Q, W_K, W_V, W_O). Issue 54: m is the mask (m_ij) and the row's
# largest score s̃_max, L the loss and N the digits, w a window's width, O = AV the output, g a head, i a query,
# η GELU's output on block/, B chunked attention's block size, ℓ and o the online softmax's running sums.
# Steps of training count from 1 (learning/ once had a history 0 … 119 beside a checkpoint “after 120 steps”).
OLD_MEANINGS = {
    "dW for the weights' gradient (it is dA; dW_Q, dW_K, dW_V, dW_O are the projections')": r"\bdW(?!_[QKVO])",
    "Wₒ (the formulas write W_O)": r"Wₒ",
    "S defined as the scaled scores": r"(?<![A-Za-z])S ?= ?Q ?K ?\^?[Tᵀ] ?[·⋅] ?scale",
    "the weights written W": r"(?<![A-Za-z_])W ?= ?softmax|(?<![A-Za-z_])W ?[·⋅]? ?V(?![A-Za-z_])|(?<![A-Za-z_])W ?⊙|"
                            r"⊙ ?W(?![A-Za-z_])|(?<![A-Za-z_])W ?\^?[Tᵀ] ?dO",
    "a weight written w (w is a window's width; a weight is a_ij)": r"(?<![A-Za-z])w_[ijl]|wᵢ|wⱼ|(?<![A-Za-z_])w\s*=\s*[01]\s*\.",
    "the softmax of s (it takes s̃)": r"(?<![A-Za-z])e\^\(?s(?![A-Za-z" + TILDE + "])",
    "s masked to −∞ (the scaled score s̃ is)": r"(?<![A-Za-z])s_\S+ = −∞",
    "s as a score times the scale": r"(?<![A-Za-z])s_\S+ = \S* ?× ",
    "s called the scaled score": r"(?<![A-Za-z])s(?:_\S+)? (?:is|are) the scaled",
    "m for the row's largest score (m_ij is the mask; the largest score is s̃_max)":
        r"(?<![A-Za-z_])m(?= ?=[^=]| moves)|[−-] ?m(?![A-Za-z0-9_])|(?:maximum|so far) m(?![A-Za-z_])|"
        r"(?<![A-Za-z_])m_(?:old|new)",
    "L for the number of digits (L is the loss; the digits are N)":
        r"(?<![A-Za-z_-])L(?= ?[−-] ?t(?![A-Za-z])| digits|\s+t\s+layers|\s+number of source digits)",
    "S_ij for a raw score (the notation table writes s_ij)": r"(?<![A-Za-z])S_ij",
    "Out for the output (the notation table writes O = AV)": r"(?<![A-Za-z])Out ?=",
    "i for a head (i counts queries; the heads are counted by g)":
        r"(?<![A-Za-z])head_i(?![A-Za-z])|\b[Hh]ead i\b|(?<![A-Za-z])[QKV](?:_i|ᵢ)(?![A-Za-z_])",
    "the row's largest score written max s̃ (Home writes s̃_max)": r"(?<![A-Za-z_])max ?s" + TILDE + r"(?!_)",
    "b for chunked attention's block size (b is a learned bias; the block size is B)":
        r"(?<![A-Za-z_])b ?× ?b(?![A-Za-z_])|(?:queries|keys) b at a time",
    "b for a vector added to the values (b is a learned bias)": r"vector b ?=|moves by (?:exactly |n · )?b\b",
    "k for the sparse pattern's stride (k is a key)": r"every k ?-?th\b",
    "g for GELU's output (g counts the heads, head_g; GELU's output is η)":
        r"(?<![A-Za-z_])g(?:_(?:c|\d+))? ?=? ?(?:GELU|u_?c?Φ)|(?<![A-Za-z_])g ?: ?GELU|(?<![A-Za-z_])g_\d|"
        r"(?<![A-Za-z_])u, ?g(?![A-Za-z_])|=g ?W_2|= g W_2",
    "a training step counted from 0 (readers count steps from 1; a checkpoint is the steps done, “after 0 steps”)":
        r"\b[Ss]teps? 0(?![.,]?\d)|\b[Ss]teps? \d+(?:, \d+)+(?: and \d+)? of training|\b[Ss]tep-0\b",
}


def built_pages(site):
    return sorted(p for p in site.rglob("index.html") if "assets" not in p.parts and p.parent.name != "404")


def problem_texts(site):
    """The words of the problem sets' JSON (prompts, captions, column labels, hints), one string a line: the page
    may build a set from it when the reader opens it."""
    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)

    return {path: "\n".join(strings(json.loads(path.read_text(encoding="utf-8"))))
            for path in sorted((site / "problems").glob("*.json"))}


def test_no_page_uses_a_symbol_in_its_old_meaning(site):
    """One symbol, one meaning, on every page (print/, readouts' templates, figures' SVG and the problems' JSON
    included): see OLD_MEANINGS for the meanings each symbol no longer has."""
    pages = built_pages(site)
    assert any(p.parent.name == "print" for p in pages) and len(pages) > 15
    found = []
    texts = {**{path: reading(path) for path in pages}, **problem_texts(site)}
    for path, text in texts.items():
        for meaning, pattern in OLD_MEANINGS.items():
            found += [(str(path.relative_to(site)), meaning, text[max(0, m.start() - 40):m.end() + 30])
                      for m in re.finditer(pattern, text)]
    assert not found, "one symbol, one meaning, as Home's notation table gives it:\n" + "\n".join(map(str, found))


def notation_table(site):
    """Home's notation table as (symbol, what it is) pairs, the MathML as plain text (math_text)."""
    def plain(html):
        html = MATH.sub(lambda match: math_text(ElementTree.fromstring(match.group(0))), html)
        return " ".join(re.sub(r"<[^>]+>", "", html).split())

    html = (site / "index.html").read_text(encoding="utf-8")
    start = html.index('id="notation"')
    body = html[start:html.index("<h2", start)]  # its tables: the first pages' symbols, then the later pages' (collapsed)
    cells = [re.findall(r"<td>(.*?)</td>", row, flags=re.S) for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)]
    return [(plain(row[0]), plain(row[1])) for row in cells if row]


# The meanings issue 54 found sharing a symbol, each with its own: the symbol, and words its row must hold.
OWN_SYMBOLS = {
    "m_ij": "the mask", "s̃_max": "largest scaled score of a row", "L": "the loss", "N": "number of source digits",
    "A=softmax(S̃)": "attention weights", "w": "width of a sliding window", "O=AV": "the output", "head_g": "head g",
    "B": "block size of chunked attention", "ℓ": "running sum", "o": "running weighted sum of the value rows",
}


def test_the_notation_table_gives_each_meaning_its_own_symbol(site):
    rows = notation_table(site)
    symbols = [symbol for symbol, _ in rows]
    assert len(rows) > 20 and len(symbols) == len(set(symbols)), f"one row per symbol in Home's notation table: {symbols}"
    for symbol, words in OWN_SYMBOLS.items():
        meanings = [meaning for listed, meaning in rows if listed == symbol]
        assert len(meanings) == 1 and words in meanings[0], (
            f"Home's notation table lists {symbol} once, as {words!r} (one meaning per symbol): {meanings}")


def test_the_reading_sees_the_symbols_the_pages_use(site):
    """The guard above reads what it should: the new symbols, in MathML, prose and the readout's template."""
    home, softmax, demo = (reading(site / page / "index.html") for page in (".", "softmax", "demo"))
    assert "S=QK^T" in home and f"S{TILDE}=S/√(d_k)" in home and f"A=softmax(S{TILDE})" in home
    assert f"a_ij=(e^s{TILDE}_ij)/(∑_l=1^ne^s{TILDE}_il)" in softmax
    assert f"s{TILDE}_ij = × " in demo and "a_ij = e^" in demo and "s_ij = q_ij · k_ij" in demo
    assert f"a_ij = e^s{TILDE} − s{TILDE}_max / Σ e^s{TILDE} − s{TILDE}_max, with s{TILDE}_max = " in demo
    scores, output, multi_head, cost = (reading(site / page / "index.html") for page in ("scores", "output", "multi-head", "cost"))
    assert "S=QK^T,s_ij=q_i·k_j" in scores and "O=softmax(" in output and "(a_j = 0." in output
    assert "head_g=softmax(Q_gK_g^T/√(d_k))V_g" in multi_head and f"e^s{TILDE}_j−s{TILDE}_max" in cost


# ---------------------------------------------------------------- a cell with a decimal more (item 11)

def test_a_grid_with_3_decimal_cells_says_why_in_its_caption(site):
    """Scaled scores over √4 end in 5 at the third decimal; cell() prints those with 3 decimals, beside cells
    with 2. The caption says so, naming one such cell, and a grid without one says nothing."""
    from figures_src.engine.text import cell, tie_note

    assert tie_note([[1.88, 0.335]]) == ("Cells show 2 decimals, or 3 where 2 would round a value that lies "
                                        "exactly halfway, as 0.335.") and cell(0.335) == "0.335"
    assert tie_note([[1.88, 0.33, float("-inf")]]) == ""
    html = (site / "scores" / "index.html").read_text(encoding="utf-8")
    figure = html[html.index('id="fig-scores-scaled"'):]
    caption = re.search(r"<figcaption>(.*?)</figcaption>", figure, flags=re.S).group(1)
    shown = re.search(r"as (−?\d+\.\d{3})\.$", caption)
    assert shown, caption
    assert f">{shown.group(1)}<" in figure[:figure.index("</figure>")], "the cell it names is in the figure"
    raw = (site / "scores" / "index.html").read_text(encoding="utf-8")
    assert "Cells show" not in re.search(r'id="fig-scores-heatmap".*?<figcaption>(.*?)</figcaption>', raw, flags=re.S).group(1)


# ---------------------------------------------------------------- proofreading of Home, qkv/, scaling/, softmax/

def page_text(site, page):
    return text(site / page / "index.html")


def figure_html(site, page, name):
    html = (site / page / "index.html").read_text(encoding="utf-8")
    start = html.index(f'id="fig-{name}"')
    return html[start:html.index("</figure>", start)]


@pytest.mark.parametrize("page", ["scaling", "print"])
def test_the_scale_slider_is_above_the_heatmap_and_its_claim_is_the_datas(site, page):
    """Item 1 and 3: the slider sits above the grid; at its right end not every row reaches 1."""
    from figures_src.pages import scaling

    words = page_text(site, page)
    assert "slider under this heatmap" not in words and "slider above this heatmap" in words
    assert "piles onto" not in words
    data = scaling.slider_data()
    assert data["multiplier"] == 10, "the heatmap's slider (docs/widgets/heatmap/template.html) runs from 10^-1 to 10^1"
    reach = [t for t, w in zip(data["tokens"], data["top_pushed"]) if w >= 0.995]
    assert reach and len(reach) < len(data["tokens"])
    assert f"the most peaked rows, {' and '.join(f'“{t}”' for t in reach)}, reach 1" in words


def test_the_slider_sentence_fails_the_build_when_the_data_stops_backing_it():
    from figures_src.pages import scaling

    data = scaling.slider_data()
    with pytest.raises(BuildError, match="every row leans further"):
        scaling.slider_snippets({**data, "top_pushed": data["top"]})
    with pytest.raises(BuildError, match="some rows reach 1"):
        scaling.slider_snippets({**data, "top_pushed": data["top_pushed"] * 0 + 0.999})


@pytest.mark.parametrize("page", ["scaling", "print"])
def test_the_softmax_slope_is_written_within_one_row(site, page):
    """Item 4: i is the query row (Home); the Jacobian of one row runs over its keys j and l."""
    words = page_text(site, page)
    assert "∂aᵢ/∂s̃ⱼ" not in words and "aᵢ(δᵢⱼ − aⱼ)" not in words
    assert "within one row, ∂aⱼ/∂s̃ₗ = aⱼ(δⱼₗ − aₗ)" in words and "Average largest |∂aⱼ/∂s̃ₗ| within a row" in words
    assert "The softmax works within one row" in words


def test_the_scaling_recap_names_its_own_slider(site):
    """Item 12."""
    words = page_text(site, "scaling")
    assert "slider on the Softmax page and in the demo" not in words
    assert "the scale slider above this page's heatmap of the running sentence" in words


def test_the_token_vectors_columns_are_numbered_like_q_k_v(site):
    """Item 5: x₁ … xₙ are the tokens (Home), so X's columns are 1 … d_model, as Q's, K's and V's are."""
    html = (site / "qkv" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<th[^>]*>token</th>\s*<th[^>]*>1</th>", html)
    assert not re.search(r"<th[^>]*>x\d</th>", html)


def test_home_says_what_the_gradient_code_names_are_and_what_values_are(site):
    """Items 6 and 13."""
    words = page_text(site, ".")
    assert "dW is d A , the gradient with respect to the weights A (not a projection)" in words
    assert "dS is d S ~ , the gradient with respect to the scaled scores" in words
    assert ("averaging the value vectors of all tokens, its own included (a value is one more learned "
            "projection of a token)") in words


def test_the_step_tables_entropy_total_says_why_it_differs_from_the_exact_one(site):
    """Item 7: the −a ln a column is worked from the printed a_j (every chain checks out by hand), so the
    page says so where its total differs from the row's entropy at full precision."""
    import json
    from decimal import Decimal

    from figures_src.pages import softmax

    example = json.loads((site / "examples" / "ex-softmax.json").read_text())
    words = page_text(site, "softmax")
    for snippet in ("peaked", "flat"):
        table = (ROOT / "generated" / "snippets" / f"ex-softmax-{snippet}.md").read_text(encoding="utf-8")
        rows = [line.split("|")[1:-1] for line in table.splitlines() if line.startswith("| **")]
        weights = [Decimal(r[3].strip()) for r in rows[:-1]]
        terms = [Decimal(r[4].strip().replace("−", "-")) for r in rows[:-1]]
        total = Decimal(rows[-1][4].strip(" *"))
        assert sum(terms) == total
        assert all(t == (-w * w.ln()).quantize(Decimal("0.0001")) for t, w in zip(terms, weights))
        exact = example["steps"]["entropy"][softmax.peaked_and_flat(example)[snippet == "flat"]]
        if f"{exact:.4f}" != str(total):
            assert (f"The last column is worked from the printed a j , so its total, {total}, differs slightly "
                    f"from the entropy at full precision, {exact:.4f}.") in words
    assert "0.1398" in words and "0.1396" in words


def test_a_figure_table_with_a_3_decimal_cell_says_why_under_it(site):
    """Item 8: softmax/'s table of the two rows prints −2.905 beside 2-decimal cells."""
    figure = figure_html(site, "softmax", "softmax-rows")
    after = figure[figure.index('id="softmax-rows-table"'):]
    assert ">−2.905<" in after
    assert re.search(r"</table></div>\s*<p class=\"aih-table-note\">Cells show 2 decimals, or 3 where 2 would "
                     r"round a value that lies exactly halfway, as −?\d+\.\d{3}\.</p>", after)


@pytest.mark.parametrize("page, name", [(".", "home-weights"), ("scaling", "scaling-weights"), ("softmax", "softmax-rows")])
def test_rounded_weights_say_a_printed_row_may_miss_1(site, page, name):
    """Item 11: "on"'s weights print as 0.99 in all; the caption where they first show says so."""
    from figures_src.engine.text import rounding_note

    assert rounding_note([[0.5, 0.5], [0.25, 0.75]], ["a", "b"]) == ""
    assert rounding_note([[0.333, 0.333, 0.334]], ["a"]).endswith("the row of “a” adds up to 0.99.")
    assert rounding_note([[0.5, 0.5], [0.333, 0.333]], ["h", "h"]).endswith("row 2, of “h”, adds up to 0.66."), (
        "a row whose label another row shares is named by its number too")
    caption = re.search(r"<figcaption>(.*?)</figcaption>", figure_html(site, page, name), flags=re.S).group(1)
    assert caption.endswith("Weights are printed to 2 decimals, so a printed row need not add up to exactly 1: "
                            "the row of “on” adds up to 0.99.")
