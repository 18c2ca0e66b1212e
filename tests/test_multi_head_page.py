"""multi-head/ read with pencil and paper (issue 54, item 4): the matrices the heads are computed from are printed,
every head's table follows from them, the concatenated heads times the printed W_O give the printed output, the
batched layout's shapes are the arrays', and its heads are torch's scaled_dot_product_attention on 4-D inputs.

The site is the session's shared build (tests/conftest.py).
"""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from by_hand import follows, number
from figures_src.engine.text import PUBLISHED_TOLERANCE
from test_by_hand import read
from test_reader_text import reading

PAGE = Path("multi-head/index.html")


@pytest.fixture(scope="module")
def page(built_site):
    return read(built_site, PAGE)


@pytest.fixture(scope="module")
def example(built_site):
    return json.loads((built_site / "examples" / "ex-multi-head.json").read_text())


def tables_with_header(page, first, *, labels=None):
    """The page's tables whose header row starts with `first` (and, if given, whose other headers are `labels`),
    in the order they appear, as {"columns", "rows": {label: [cells]}}."""
    found = []
    for rows in page.tables:
        if rows and rows[0] and rows[0][0] == first and (labels is None or rows[0][1:] == labels):
            found.append({"columns": rows[0][1:], "rows": {row[0]: row[1:] for row in rows[1:]}})
    return found


def decimals_of(table):
    return [[number(cell) for cell in cells] for cells in table["rows"].values()]


def head_labels(n_heads, d_k):
    return [f"h{h + 1}·{c + 1}" for h in range(n_heads) for c in range(d_k)]


@pytest.fixture(scope="module")
def printed(page, example):
    """Every table of the example as the page prints it."""
    n_heads, d_k = example["n_heads"], example["d_k"]
    d_model = n_heads * d_k
    labels = head_labels(n_heads, d_k)
    plain = [str(c + 1) for c in range(d_model)]
    by_token = tables_with_header(page, "token", labels=plain)
    W = tables_with_header(page, "row", labels=labels)
    W_O = [t for t in tables_with_header(page, "row", labels=plain) if list(t["rows"]) == labels]
    concat = tables_with_header(page, "token", labels=labels)
    slices = [t for t in tables_with_header(page, "token") if t["columns"] in
              [labels[h * d_k:(h + 1) * d_k] for h in range(n_heads)]]
    assert len(by_token) >= 2, "multi-head/ prints X (token × 1…d_model) before its output"
    assert len(W) == 3, "multi-head/ prints W_Q, W_K and W_V, their columns labelled by head (h1·1 …), in that order"
    assert len(W_O) == 1, "multi-head/ prints W_O, one row per concatenated column (h1·1 …)"
    assert len(concat) == 1 and len(slices) == 3 * n_heads, "the concatenated heads, and each head's Q_g, K_g, V_g"
    return {
        "X": decimals_of(by_token[0]), "out": decimals_of(by_token[-1]), "out_text": list(by_token[-1]["rows"].values()),
        "W_Q": decimals_of(W[0]), "W_K": decimals_of(W[1]), "W_V": decimals_of(W[2]), "W_O": decimals_of(W_O[0]),
        "concat": decimals_of(concat[0]), "concat_text": list(concat[0]["rows"].values()),
        "slices": [decimals_of(t) for t in slices],  # Q of head 1, of head 2, …, then K, then V
    }


def matmul(A, B):
    return [[sum(a * B[k][c] for k, a in enumerate(row)) for c in range(len(B[0]))] for row in A]


def columns(M, start, stop):
    return [row[start:stop] for row in M]


def heatmap_cells(built_site, head):
    html = (built_site / PAGE).read_text()
    table = re.search(rf'<table class="aih-numbers" id="multi-head-h{head}-table">(.*?)</table>', html, flags=re.S).group(1)
    return [re.findall(r"<td>([^<]*)</td>", row) for row in re.findall(r"<tr><th scope=\"row\">.*?</tr>", table)]


def test_the_printed_matrices_are_the_example_and_the_cut_is_said(printed, example, page):
    for name in ("X", "W_Q", "W_K", "W_V", "W_O"):
        assert np.array_equal(np.array(printed[name], dtype=float), example["inputs"][name]), \
            f"the page prints {name} exactly (integers, one-decimal numbers): a reader redoes the heads from it"
    text = re.sub(r"\s+", " ", page.text)
    assert "The two views are the same numbers" in text, "the page says the per-head matrices and the one matrix are the same numbers"


def test_every_head_table_follows_from_the_printed_matrices(printed, example, built_site):
    """Head g's weights (its heatmap's cells), Q_g, K_g, V_g (the batched slices) and its columns of the
    concatenated table, redone from the printed X and W's, agree with what is printed, to the printed digits."""
    n_heads, d_k = example["n_heads"], example["d_k"]
    X = printed["X"]
    projected = {name: matmul(X, printed[f"W_{name}"]) for name in "QKV"}  # exact: integers times one-decimal numbers
    scale = 1 / np.sqrt(d_k)
    for h in range(n_heads):
        Q, K, V = (columns(projected[name], h * d_k, (h + 1) * d_k) for name in "QKV")
        for k, M in enumerate((Q, K, V)):
            assert printed["slices"][k * n_heads + h] == M, \
                f"slice {h + 1} of the batch's {'QKV'[k]} is X times head {h + 1}'s columns of W_{'QKV'[k]}"
        scores = np.array([[float(sum(a * b for a, b in zip(q, key))) for key in K] for q in Q]) * scale
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        cells = heatmap_cells(built_site, h)
        for i, row in enumerate(cells):
            for j, text in enumerate(row):
                assert follows(weights[i, j], text), f"head {h + 1}'s weight ({i + 1}, {j + 1}) printed {text}, " \
                                                     f"redone from the printed matrices {weights[i, j]:.5f}"
        out = weights @ np.array(V, dtype=float)
        for i, row in enumerate(printed["concat_text"]):
            for c in range(d_k):
                text = row[h * d_k + c]
                assert follows(out[i, c], text), f"head {h + 1}'s output ({i + 1}, {c + 1}) printed {text}, redone {out[i, c]:.5f}"


def test_the_output_follows_from_the_printed_concatenation_and_W_O(printed):
    """The printed chain concat · W_O = output checks by hand: the exact product of the printed numbers,
    rounded as the output is printed, is the printed output (never an exact tie)."""
    product = matmul(printed["concat"], printed["W_O"])
    for i, row in enumerate(printed["out_text"]):
        for c, text in enumerate(row):
            assert follows(product[i][c], text), \
                f"output ({i + 1}, {c + 1}) printed {text}, but the printed concatenation times W_O gives {product[i][c]}"


def shapes_in(text):
    return [tuple(int(x) for x in s.split(",")) for s in re.findall(r"\(([\d, ]+)\)", text)]


def test_the_batched_layout_writes_every_shape(page, example):
    """The batched section's table: each step's shape is the shape numpy gives that step for a batch of one."""
    table = next(rows for rows in page.tables if rows and rows[0] == ["step", "code", "shape"])
    X = np.asarray(example["inputs"]["X"])[None]  # (1, n, d_model)
    batch, n, d_model = X.shape
    heads, d_k = example["n_heads"], example["d_k"]
    P = X @ np.asarray(example["inputs"]["W_Q"])
    cut = P.reshape(batch, n, heads, d_k)
    Q = cut.swapaxes(1, 2)
    S = Q @ Q.swapaxes(-1, -2)
    Y = S @ Q
    back = Y.swapaxes(1, 2)
    merged = back.reshape(batch, n, d_model)
    W = (d_model, d_model)
    expected = [[X.shape], [X.shape, W, P.shape], [cut.shape], [Q.shape], [Q.shape, Q.swapaxes(-1, -2).shape, S.shape],
                [S.shape], [S.shape, Q.shape, Y.shape], [back.shape], [merged.shape], [merged.shape, W, merged.shape]]
    assert [shapes_in(row[2]) for row in table[1:]] == expected, \
        "the batched layout goes (batch, n, d_model) -> (batch, n, heads, d_k) -> (batch, heads, n, d_k) and back, shape by shape"


def test_the_batched_heads_are_torch_sdpa_on_4d_inputs(example):
    """torch's view + transpose, scaled_dot_product_attention on (1, heads, n, d_k), transpose + view back:
    the page's head outputs and concatenated table, and its output after W_O (within the JSON's rounding of each
    array, PUBLISHED_TOLERANCE of its largest entry)."""
    torch = pytest.importorskip("torch")
    X = torch.tensor(example["inputs"]["X"], dtype=torch.float64)[None]  # (1, n, d_model)
    batch, n, d_model = X.shape
    heads, d_k = example["n_heads"], example["d_k"]
    q, k, v = ((X @ torch.tensor(example["inputs"][f"W_{name}"], dtype=torch.float64))
               .view(batch, n, heads, d_k).transpose(1, 2) for name in "QKV")  # (1, heads, n, d_k)
    y = torch.nn.functional.scaled_dot_product_attention(q, k, v)  # (1, heads, n, d_k)
    np.testing.assert_allclose(y[0].numpy(), example["steps"]["heads"], rtol=0, atol=PUBLISHED_TOLERANCE)
    merged = y.transpose(1, 2).contiguous().view(batch, n, d_model)  # (1, n, d_model)
    np.testing.assert_allclose(merged[0].numpy(), example["steps"]["concat"], rtol=0, atol=PUBLISHED_TOLERANCE)
    out = merged @ torch.tensor(example["inputs"]["W_O"], dtype=torch.float64)
    np.testing.assert_allclose(out[0].numpy(), example["outputs"]["out"], rtol=0, atol=PUBLISHED_TOLERANCE)


def test_home_and_the_page_give_W_Q_the_same_shape(built_site, example):
    """The notation table and multi-head/ say the same: head g has its own W_Q^(g), d_model × d_k, and the one
    d_model × d_model matrix code keeps is the heads' side by side, the same numbers."""
    home = reading(built_site / "index.html")
    start = home.index("W_Q^(g)") if "W_Q^(g)" in home else 0
    row = re.sub(r"\n+", " | ", home[start:home.index("Q=XW_Q", start)]) if start else ""  # the row's cells
    assert "d_model×d_k" in row.replace(" ", ""), "the notation table gives head g's W_Q^(g) as d_model × d_k"
    assert "side by side" in row and "the same numbers" in row, "…and says the one matrix is the heads' side by side"
    page = reading(built_site / PAGE)
    d_model, d_k = len(example["inputs"]["W_Q"]), example["d_k"]
    assert re.search(rf"W_Q\^\(g\) ?, ?W_K\^\(g\) ?and ?W_V\^\(g\) ?, each ?{d_model}×{d_k}", page), \
        "the page gives each head its own W_Q^(g), d_model × d_k, as the notation table does"
    assert "side by side" in page and "The two views are the same numbers" in page


def test_split_heads_counts_heads_with_g_as_the_page_does():
    """multi-head/ includes split_heads' docstring; on that page h is the number of heads and g a head's index."""
    import attention  # noqa: PLC0415
    doc = attention.split_heads.__doc__
    assert "Head g (counted from 0 in code) gets columns g·d_k … (g+1)·d_k − 1." in doc, \
        "split_heads' docstring numbers a head g (h is the number of heads on multi-head/), counted from 0 in code"
    assert not re.search(r"Head h\b|\bh·d_k", doc)


def test_the_page_and_home_name_the_stacked_and_the_per_head_matrices(built_site, example):
    """The proofreader's items 7 and 9 (issue 54): Home gives multi-head/'s W_Q as the stacked d_model × h·d_k
    matrix; the recap gives each head its own W_Q^(g); cross-attention names qkv/'s matrices with their shape;
    PyTorch is "they"; multi_head_attention is the whole layer; each of the six slice tables says which it is."""
    home = reading(built_site / "index.html")
    row = home[home.index("learned projections to queries"):home.index("learned projection to values")]
    assert "Multi-head attention" in row and "d_model×hd_k" in row.replace(" ", ""), \
        "Home's W_Q row says that on multi-head/ W_Q is every head's W_Q^(g) side by side, d_model × h·d_k"
    page = reading(built_site / PAGE)
    recap = page[page.index("Recap"):]
    assert re.search(r"Each head has its own W_Q\^\(g\) ?, W_K\^\(g\) ?and W_V\^\(g\)", recap), \
        "the recap gives each head its own W_Q^(g): the page's W_Q is the stacked matrix"
    cross = json.loads((built_site / "examples" / "ex-cross-attention.json").read_text())
    rows, cols = np.shape(cross["inputs"]["W_Q"])
    assert f"through the same {rows}×{cols} W_Q, W_K, W_V as on Queries, keys and values" in page, \
        "cross-attention names the matrices it reuses: qkv/'s, with their shape"
    assert "They keep both as axes" in page and "is the whole layer" in page and "whole table, for" not in page
    html = (built_site / PAGE).read_text(encoding="utf-8")
    batched = html.index('id="the-batched-layout"')
    section = html[html.index("tabbed-set", batched):html.index('id="more-heads')]  # the Q, K and V tabs
    captions = re.findall(r"<p>([^\n]*?)</p>\s*(?:<div[^>]*>)*<table", section)
    plain = [re.sub(r"<[^>]+>|\s", "", unescape_math(c)) for c in captions]
    expected = [f"{name},head{h + 1}" for name in "QKV" for h in range(example["n_heads"])]
    assert plain == expected, f"each of the batched layout's six slice tables is captioned (Q, head 1, …): {plain}"


def unescape_math(html):
    """A caption's text: MathML's characters kept, arithmatex's fallback dropped."""
    return re.sub(r"<annotation[^>]*>.*?</annotation>", "", html, flags=re.S)
