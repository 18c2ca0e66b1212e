"""The built site read as a learner reads it, with pencil and paper: everything counts from 1, and every
printed chain of arithmetic follows from the numbers it prints (tests/by_hand.py says what "follows" means).

The site is the session's shared build (tests/conftest.py).
"""
import json
import math
import re
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import pytest

import by_hand
from by_hand import NUMBER, follows, number
from figures_src.engine.text import num

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(built_site):
    """The shared site/ (tests/conftest.py): make site's build, brought up to date once per session."""
    return built_site


class PageText(HTMLParser):
    """A page as a reader sees it: its text outside code, scripts and templates (SVG text included, since
    figures print numbers and labels), and its tables as rows of cell texts."""

    SKIPPED = {"script", "style", "code", "pre", "template"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skipping, self.parts, self.tables, self.cell = 0, [], [], None

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag in ("p", "li", "div", "br", "tr", "h1", "h2", "h3", "figcaption", "text", "title"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.SKIPPED:
            self.skipping -= 1
        elif tag in ("td", "th") and self.cell is not None and self.tables and self.tables[-1]:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None
            self.parts.append(" | ")

    def handle_data(self, data):
        if self.skipping:
            return
        self.parts.append(data)
        if self.cell is not None:
            self.cell.append(data)

    @property
    def text(self):
        return re.sub(r"[ \t]+", " ", "".join(self.parts))


def read(site, path):
    parser = PageText()
    parser.feed((site / path).read_text())
    return parser


def pages(site):
    return sorted(p.relative_to(site) for p in site.glob("**/index.html") if p.parent.name != "404")


def examples(site):
    return {p.stem: json.loads(p.read_text()) for p in (site / "examples").glob("*.json")}


# ---------------------------------------------------------------- one numbering

ZERO_BASED = [
    r"\b(?:row|column|head|layer|query|key|token|position)s? 0\b(?!\.\d)",  # "row 0", "head 0"
    r"\b(?:layers|heads|rows|columns) 0\s*[–-]",  # "layers 0–5"
    r"[A-Za-z][₀]",  # q₀, s₀
    r"\bh0\b|\bh0·",  # a head's column label
]


def test_nothing_a_reader_sees_counts_from_zero(site):
    found = []
    for path in pages(site):
        text = read(site, path).text
        for pattern in ZERO_BASED:
            found += [(str(path), m.group(0), text[max(0, m.start() - 60):m.end() + 20]) for m in re.finditer(pattern, text)]
    assert not found, found


def test_a_row_or_column_named_with_its_token_is_that_token_counted_from_1(site):
    """“on” (row 4): the prose's numbers point at the token a reader finds there, counting from 1."""
    every = examples(site)
    checked = 0
    for path in pages(site):
        if path.parts[0] in ("print", "embed"):  # every page's text again (print) or a heatmap alone (embed)
            continue
        page_examples = [e for e in every.values() if e["page"] == f"{path.parent}/".lstrip("./") or
                         (str(path.parent) == "." and e["page"] == "")]
        token_lists = [e["tokens"] for e in page_examples if "tokens" in e]
        text = read(site, path).text
        for token, _, index in re.findall(r"“([^”]+)” \((row|column) (\d+)\)", text):
            assert any(int(index) <= len(t) and t[int(index) - 1] == token for t in token_lists), (path, token, index)
            checked += 1
    assert checked >= 4, "the scores, output and masks pages name rows and columns by token"


def test_home_says_once_how_the_site_counts(site):
    text = read(site, Path("index.html")).text
    assert text.count("counted from 1") == 1
    assert re.search(r"code counts\s+from 0", text) and "JSON" in text


# ---------------------------------------------------------------- every printed chain by hand

SUM_CHAIN = re.compile(rf"((?:\(?{NUMBER}\)? \+ )+\(?{NUMBER}\)?) = ({NUMBER})")
PRODUCT_CHAIN = re.compile(rf"(?<![\d.])((?:{NUMBER} × )+{NUMBER}) = ({NUMBER})")


def text_chains(text):
    """'a + b + (−c) = d' and 'a × b × … = d' written out in the prose (a product from its first factor)."""
    for m in SUM_CHAIN.finditer(text):
        terms = re.findall(rf"\(?({NUMBER})\)?", m.group(1))
        yield m.group(0), sum(number(t) for t in terms), m.group(2)
    for m in PRODUCT_CHAIN.finditer(text):
        yield m.group(0), math.prod(number(t) for t in re.findall(NUMBER, m.group(1))), m.group(2)


def plain(cell):
    return cell.replace("*", "").strip()


def softmax_table(rows, masked_column):
    """key | s_j | [masked] | e^(s_j − max s) | w_j | [−w ln w]: each column from the printed one before it."""
    body, total = rows[1:-1], rows[-1]
    s_column = 2 if masked_column else 1
    allowed = [r for r in body if r[s_column] != "−∞"]
    top = max(number(r[s_column]) for r in allowed)
    e_col, w_col = s_column + 1, s_column + 2
    for r in body:
        if r[s_column] == "−∞":
            assert (r[e_col], r[w_col]) == ("0", "0"), r
            continue
        assert follows(by_hand.exp(number(r[s_column]) - top), r[e_col]), r
    exp_total = sum(number(r[e_col]) for r in body)
    assert follows(exp_total, plain(total[e_col])), total
    for r in body:
        if r[s_column] != "−∞":
            assert follows(number(r[e_col]) / number(plain(total[e_col])), r[w_col]), (r, total)
    assert follows(sum(number(r[w_col]) for r in body), plain(total[w_col])), total
    if len(rows[0]) > w_col + 1:  # −w ln w and the entropy
        for r in body:
            w = number(r[w_col])
            assert follows(-w * by_hand.ln(w), r[w_col + 1]), r
        assert follows(sum(number(r[w_col + 1]) for r in body), plain(total[w_col + 1])), total


def dot_table(rows):
    """entry | q | k | product, then the sum."""
    body, total = rows[1:-1], rows[-1]
    for r in body:
        assert follows(number(r[1]) * number(r[2]), r[3]), r
    assert follows(sum(number(r[3]) for r in body), plain(total[3])), total


def weighted_sum_table(rows, values):
    """key | w_j | w_j v_j1 ...: each product from the printed weight and the printed value, then the sums."""
    body, total = rows[1:-1], rows[-1]
    for r, v in zip(body, values):
        for c, cell in enumerate(r[2:]):
            assert follows(number(r[1]) * v[c], cell), (r, v)
    for c in range(1, len(rows[0])):
        assert follows(sum(number(r[c]) for r in body), plain(total[c])), (c, total)


def projection_table(rows):
    """c | (x)(w) + ... | q: entry c of a query from its printed products."""
    for r in rows[1:]:
        pairs = re.findall(rf"\(({NUMBER})\)\(({NUMBER})\)", r[1])
        assert pairs, r
        assert follows(sum(number(a) * number(b) for a, b in pairs), plain(r[2])), r


def test_every_printed_chain_checks_out_by_hand(site):
    checked = []
    every = examples(site)
    for path in pages(site):
        page = read(site, path)
        for chain, exact, result in text_chains(page.text):
            assert follows(exact, result), (str(path), chain)
            checked.append(chain)
        for rows in page.tables:
            header = [plain(h) for h in rows[0]] if rows else []
            if not header:
                continue
            if header[0] == "entry" and header[-1] == "product":
                dot_table(rows)
            elif header[0].startswith("key") and "masked" in header:
                softmax_table(rows, masked_column=True)
            elif header[0].startswith("key") and "ln" in header[-1]:
                softmax_table(rows, masked_column=False)
            elif header[0].startswith("key") and len(header) > 2 and header[2].startswith("wjvj"):
                V = every["ex-output"]["steps"]["V"]  # printed on the page to one decimal, exactly
                weighted_sum_table(rows, [[Decimal(str(round(x, 1))) for x in v] for v in V])
                assert all(abs(x - round(x, 1)) < 1e-12 for v in V for x in v)
            elif header[:2] == ["c", "products, added"]:
                projection_table(rows)
            else:
                continue
            checked.append(f"{path}: table {header}")
    tables = [c for c in checked if "table" in c]
    assert len(tables) >= 5, checked  # the dot product, two softmax rows, the masked row, the weighted sum...
    assert any("×" in c for c in checked) and any("+" in c for c in checked), checked


def test_the_checker_catches_the_chains_the_issue_found():
    """−0.37 × 1/√4 printed as −0.18 is a tie read one way; 0.0789 / 1.1328 is 0.0697, not 0.0696."""
    assert not follows(number("−0.37") / 2, "−0.18")
    assert follows(number("−0.37") / 2, "−0.185")
    assert not follows(number("0.0789") / number("1.1328"), "0.0696")
    assert not follows(sum(number(x) for x in ["−0.0293", "0.0224", "−0.0756", "−0.1361", "−0.0117"]), "−0.2302")


# ---------------------------------------------------------------- the defects a careful reader found

def test_the_shapes_figure_calls_q_kt_the_scores(site):
    page = read(site, Path("output/index.html"))
    shapes = next(rows for rows in page.tables if rows and [plain(h) for h in rows[0]] == ["product", "left", "right", "result"])
    assert shapes[1][0] == "Q · Kᵀ" and shapes[1][3].startswith("scores:"), shapes[1]
    assert shapes[2][0] == "weights · V", shapes[2]
    assert "turn them into the weights" in page.text


def test_masks_state_both_pytorch_conventions(site):
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", (site / "masks/index.html").read_text()))  # code included
    assert "same convention as PyTorch" not in text
    assert "scaled_dot_product_attention" in text and "MultiheadAttention" in text
    assert "key_padding_mask" in text and "blocked" in text


def test_multi_head_defines_head_g_and_does_not_overclaim(site):
    every = examples(site)
    text = read(site, Path("multi-head/index.html")).text
    assert "cost nothing extra" not in text
    assert "Head g is attention on its own columns" in re.sub(r"\s+", " ", text)
    assert "score tables take memory in proportion to" in re.sub(r"\s+", " ", text)
    n, d_v = len(every["ex-multi-head"]["tokens"]), len(every["ex-multi-head"]["steps"]["V"][0][0])
    assert f"itsoutputisn×dv={n}×{d_v}" in re.sub(r"\s+", "", text)


def test_home_names_the_value_vectors_and_the_second_sentence(site):
    text = re.sub(r"\s+", " ", read(site, Path("index.html")).text)
    assert "averaging the other tokens' vectors" not in text and "same sentence runs through the pages" not in text
    assert "value vectors" in text and "its own included" in text
    assert " ".join(examples(site)["ex-demo"]["tokens"]) in text


def test_scaling_defines_the_delta_and_explains_the_small_dk_slopes_from_its_own_numbers(site):
    page = read(site, Path("scaling/index.html"))
    text = re.sub(r"\s+", " ", page.text)
    assert "Kronecker delta" in text
    table = next(rows for rows in page.tables if rows and "scaled by 1/√dₖ" in [plain(h) for h in rows[0]])
    higher = [int(r[0]) for r in table[1:] if float(r[1]) > float(r[2])]
    assert f"For dₖ = {higher[0]} to {higher[-1]} the unscaled slope is the higher one" in text
    peak = max(table[1:], key=lambda r: float(r[1]))
    assert f"where the slope peaks ({peak[1]})" in text


def test_one_transpose_glyph(site):
    """An upright superscript T everywhere (ᵀ in text, <mtext>T</mtext> in formulas), never ⊤."""
    for path in pages(site):
        raw = (site / path).read_text()
        assert "⊤" not in raw and "&#x022A4;" not in raw.upper().replace("&#X", "&#x"), path


def test_every_scaled_score_cell_follows_from_its_printed_raw_score(site):
    """A scaled-score heatmap's cells (its SVG and its table) are the printed raw score over √dₖ, to the
    digits shown and never an exact tie rounded one way (0.415 as 0.41 beside 0.675 as 0.68)."""
    every = examples(site)
    figures = 0
    for path in pages(site):
        html = (site / path).read_text()
        for figure in re.finditer(r'<figure [^>]*id="fig-([\w-]+)" data-example="([\w-]+)" data-quantity="scaled_scores".*?</figure>',
                                  html, flags=re.S):
            name, example = figure.group(1), every[figure.group(2)]
            raw, root = example["steps"]["scores"], Decimal(example["d_k"]).sqrt()
            svg = dict(((int(i), int(j)), text) for i, j, text in re.findall(
                rf'id="{name}-value-(\d+)-(\d+)"[^>]*>(?:\s*<text[^>]*>)?([^<]*)</text>', figure.group(0)))
            table = re.search(rf'<table class="aih-numbers" id="{name}-table">.*?</table>', figure.group(0), flags=re.S)
            rows = [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr><th scope=\"row\">.*?</tr>", table.group(0))]
            assert len(svg) == len(raw) * len(raw[0]) and len(rows) == len(raw), name
            for i, row in enumerate(raw):
                for j, s in enumerate(row):
                    if s is None or rows[i][j] == "−∞":
                        continue
                    digits = next(d for d in (2, 3, 4) if abs(s * 10**d - round(s * 10**d)) < 1e-6 or d == 4)
                    exact = number(num(s, digits)) / root  # the raw score as the readout prints it, over √dₖ
                    assert follows(exact, svg[i, j]), (name, i, j, num(s), svg[i, j])
                    assert follows(exact, rows[i][j]), (name, i, j, num(s), rows[i][j])
            figures += 1
    assert figures >= 3, figures  # scores, demo, causal mask


# ---------------------------------------------------------------- notation

PLAIN_SUBSCRIPT = by_hand.PLAIN_SUBSCRIPT


def test_no_symbol_a_reader_sees_is_written_with_an_underscore(site):
    """Outside code, a page (its prose, tables, captions, problems and figures' SVG text, titles and
    descriptions) writes dₖ, W<sub>Q</sub> or MathML, never d_k, W_O, q_i · k_j or ∂w_i/∂s_j."""
    assert PLAIN_SUBSCRIPT.search("x d_k y") and PLAIN_SUBSCRIPT.search("XW_Q") and PLAIN_SUBSCRIPT.search("∂w_i/∂s_j")
    assert not PLAIN_SUBSCRIPT.search("attend_chunked, split_heads, dₖ, W<sub>Q</sub>")
    found = []
    for path in pages(site):
        text = read(site, path).text
        found += [f"{path}: …{text[max(0, m.start() - 30):m.end() + 20]}…" for m in PLAIN_SUBSCRIPT.finditer(text)]
    assert not found, found[:20]


def drawn_strings(tree, source):
    """[(where, text)]: every string an axis label, title, legend label or text drawn on a figure is made of, in
    one page module. A label filled from the page's words file (`WORDS.line("section", ...)`, WORDS bound to
    `Words("words/<page>.md")` in the module or imported from a sibling) counts as the section's text, found at its
    line in that file."""
    import ast

    from figures_src.engine.words import parse

    drawing = {"set_xlabel", "set_ylabel", "set_title", "text", "suptitle", "annotate"}

    def bound(tree):
        return {target.id: node.value.args[0].value for node in tree.body
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", None) == "Words"
                for target in node.targets}

    words = bound(tree)
    for node in tree.body:  # a package's modules share one Words: `from .committed import WORDS`
        sibling = (source.parent / f"{node.module}.py"
                   if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module else None)
        if sibling and sibling.exists():
            theirs = bound(ast.parse(sibling.read_text()))
            words.update({alias.asname or alias.name: theirs[alias.name] for alias in node.names if alias.name in theirs})
    found = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            continue
        strings = [a for a in call.args if call.func.attr in drawing]
        strings += [k.value for k in call.keywords if k.arg == "label"]
        for node in strings:
            named = set()
            for part in ast.walk(node):
                if (isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute)
                        and getattr(part.func.value, "id", None) in words and part.args
                        and isinstance(part.args[0], ast.Constant)):
                    file = words[part.func.value.id]
                    named.add(part.args[0])
                    found.append((f"{file}, section {part.args[0].value}",
                                  parse(ROOT / file, file)[part.args[0].value]))
            found += [(f"{source.relative_to(ROOT)}:{constant.lineno}", constant.value) for constant in ast.walk(node)
                      if isinstance(constant, ast.Constant) and isinstance(constant.value, str)
                      and constant not in named]
    return found


def test_figure_labels_typeset_their_symbols_with_mathtext():
    """In the figures' sources, every axis label, title, legend label and text drawn on a figure writes a
    subscripted symbol as mathtext ($d_k$) or in Unicode (dₖ), never as plain d_k; a label kept in a words file
    is read there."""
    import ast

    checked, plain, from_words = 0, [], 0
    for source in sorted((ROOT / "figures_src" / "pages").rglob("*.py")):
        for where, text in drawn_strings(ast.parse(source.read_text()), source):
            checked += 1
            from_words += where.startswith("words/")
            outside_math = text.split("$")[::2]
            if any(PLAIN_SUBSCRIPT.search(part) for part in outside_math):
                plain.append(f"{where}: {text!r}")
    assert checked > 30, checked
    assert from_words, "a label filled from a words file is checked in that file, not skipped as its section's name"
    assert not plain, plain
