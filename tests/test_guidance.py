"""Guidance (issue 15, part A): every page says why it matters and ends with a recap; a heatmap offers only
the controls its page has introduced; the demo's "try this" claims and the conceptual questions' answers,
recomputed independently (plain loops, PyTorch, the library's properties)."""
import math
import re
from pathlib import Path

import numpy as np
import pytest

import attention as A
import loop_reference as loops
from figures_src.engine import BuildError, Figure, example_heatmap
from figures_src.engine.items import CONTROLS
from figures_src.engine.site import nav_entries
from figures_src.engine.text import num, vector
from figures_src.pages import demo, index, scaling, scores, sentences, softmax
from figures_src.pages.problems import html as problems_html
from figures_src.pages.problems.sets import concepts_set

ROOT = Path(__file__).resolve().parents[1]


def nav_pages():
    """The Markdown files in mkdocs.yml's nav, read by the site's one nav reader."""
    return [markdown for _, markdown in nav_entries()]


def test_the_nav_lists_every_page():
    outside = {"print.md"}  # mkdocs.yml's not_in_nav: the print edition, every nav page on one
    assert len(nav_pages()) == len([p for p in (ROOT / "docs").glob("*.md") if p.name not in outside])


def page_lines(page):
    """A page's Markdown lines after its front matter (its `description:`, which Home's list of pages shows). A
    list item's snippet line (indented, `--8<--`: numbers from the build) is folded into its item's line."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    if text.startswith("---\n"):
        text = text[text.index("\n---\n", 4) + 5:].lstrip("\n")
    return text.rstrip("\n").replace("\n  --8<-- ", " --8<-- ").split("\n")


@pytest.mark.parametrize("page", nav_pages())
def test_every_page_opens_with_why_it_matters_and_ends_with_a_three_line_recap(page):
    lines = page_lines(page)
    assert lines[0].startswith("# ") and lines[1] == ""
    assert lines[2].startswith("**Why this matters:** ") and len(lines[2]) > 60, "one line, under the title"
    assert lines[3] == "{ .aih-why }"
    recap = len(lines) - 1 - lines[::-1].index("## Recap")
    assert lines[recap + 1] == "" and len(lines) == recap + 5, "the recap is the page's last section: three lines"
    assert all(line.startswith("- ") and len(line) > 30 for line in lines[recap + 2:])
    assert lines.count("## Recap") == 1


@pytest.mark.parametrize("page", nav_pages())
def test_why_and_recap_cite_no_typed_number(page):
    """A number in them would be typed by hand: they stay in words (a row's budget of 1, a masked weight of 0:
    definitions, not results)."""
    lines = page_lines(page)
    text = re.sub(r'--8<-- "[^"]+"', "", " ".join([lines[2]] + lines[-3:]))  # a snippet's numbers come from the build
    assert set(re.findall(r"(?<![_{\\a-z])\d+(?:\.\d+)?", text)) <= {"0", "1"}, text


# ---------------------------------------------------------------- controls per heatmap


def test_home_shows_the_weights_alone_and_later_pages_add_what_they_introduce():
    home, = [item for item in index.ITEMS if isinstance(item, Figure)]
    assert home.controls == ()
    assert {item.controls for item in scores.ITEMS if isinstance(item, Figure) and item.example} == {("readout",)}
    entropy, = [item for item in softmax.ITEMS if getattr(item, "name", "") == "softmax-entropy"]
    assert {"scale", "softmax", "entropy"} <= set(entropy.controls) and "mask" not in entropy.controls
    slider, = [item for item in scaling.ITEMS if getattr(item, "name", "") == "scaling-weights"]
    assert "scale" in slider.controls and "mask" not in slider.controls, "the scale where the page introduces it"
    assert all(item.controls is None for item in demo.ITEMS if isinstance(item, Figure)), "the demo has them all"


def test_an_unknown_control_is_named_in_the_error():
    with pytest.raises(BuildError, match=r"figure demo-x: unknown controls \['sliders'\]"):
        example_heatmap("demo-x", demo.EX_DEMO, "weights", title="t", caption="c", size=(4, 3), controls=("sliders",))


def test_every_control_the_css_hides_is_in_the_template():
    template = (ROOT / "docs" / "widgets" / "heatmap" / "template.html").read_text(encoding="utf-8")
    css = (ROOT / "docs" / "widgets" / "heatmap" / "heatmap.css").read_text(encoding="utf-8")
    for control in CONTROLS:
        assert f'[data-controls~="{control}"]' in css, control
        if control != "entropy":  # the entropy column is the grid's last; its readout line is marked
            assert f'data-control="{control}"' in template, control
    assert 'data-control="entropy"' in template


def test_the_figure_carries_its_controls():
    from figures_src.engine.figures import render_figure

    home, = [item for item in index.ITEMS if isinstance(item, Figure)]
    assert 'data-controls=""' in render_figure(home, home.data())[f"fragments/{home.name}.html"].split("\n", 1)[0]


# ---------------------------------------------------------------- the demo's tasks


@pytest.fixture(scope="module")
def tasks():
    data = demo.tasks_data()
    return data, demo.tasks_snippets(data)


def test_demo_tasks_hold_on_the_example_by_plain_loops(tasks):
    data, _ = tasks
    ex = demo.EX_DEMO.compute()
    Q, K, V = (np.asarray(ex["steps"][k]).tolist() for k in "QKV")
    n = len(ex["tokens"])
    out, weights = loops.attend(Q, K, V, scale=ex["scale"])
    flat_weights = [w for row in weights for w in row]
    top = max(range(n * n), key=flat_weights.__getitem__)
    assert (data["top"]["row"], data["top"]["key"]) == divmod(top, n)
    assert data["top"]["weight"] == pytest.approx(flat_weights[top], abs=1e-12)

    entropies = [loops.row_entropy(row) for row in weights]
    even = max(range(n), key=entropies.__getitem__)
    _, sharp = loops.attend(Q, K, V, scale=ex["scale"] * demo.SHARPEST)
    assert data["sharp"]["row"] == even
    assert data["sharp"]["after"] == pytest.approx(max(sharp[even]), abs=1e-12) and data["sharp"]["after"] > 0.95
    assert data["sharp"]["entropy_after"] == pytest.approx(loops.row_entropy(sharp[even]), abs=1e-12)
    _, flat = loops.attend(Q, K, V, scale=ex["scale"] * demo.FLATTEST)
    assert data["flat"]["low"] == pytest.approx(min(map(min, flat))) and data["flat"]["high"] == pytest.approx(max(map(max, flat)))

    _, causal = loops.attend(Q, K, V, mask=loops.causal_mask(n), scale=ex["scale"])
    assert data["causal"]["first"] == [1.0] + [0.0] * (n - 1), "the first row has one choice"
    assert data["causal"]["second"] == pytest.approx(causal[1], abs=1e-12)

    follow = data["follow"]
    distances = [math.dist(out[follow["row"]], v) for v in V]
    assert follow["nearest"] == min(range(n), key=distances.__getitem__) == data["top"]["key"]
    assert follow["out"] == pytest.approx(out[follow["row"]], abs=1e-12)


def test_demo_tasks_print_the_numbers_they_claim(tasks):
    data, text = tasks
    t = data["tokens"]
    listed = text[""]
    assert re.findall(r"^\d+\. ", listed, flags=re.M) == [f"{k}. " for k in range(1, 6)]
    for claim in (num(data["top"]["weight"]), num(data["sharp"]["after"]), num(data["flat"]["low"]),
                  vector(data["follow"]["out"]), f"“{t[data['sharp']['row']]}”", "×10.00", "×0.10"):
        assert claim in listed, claim
    assert " ".join(sentences.RUNNING.tokens) in text["why"] and num(data["running_peak"]) in text["why"]


# ---------------------------------------------------------------- conceptual questions

SET = concepts_set()
QUESTIONS = {q["id"]: q for q in SET["questions"]}


def test_the_conceptual_set_has_at_least_eight_well_formed_questions():
    assert len(QUESTIONS) >= 8
    for q in QUESTIONS.values():
        assert len(q["choices"]) == len(set(q["choices"])) >= 3
        assert 0 <= q["answer"] < len(q["choices"])
    assert len({q["answer"] for q in QUESTIONS.values()}) >= 3, "the right answer is not always in one place"


def running():
    X = sentences.token_vectors(sentences.RUNNING)
    W_Q, W_K, W_V = sentences.projections(sentences.RUNNING)
    return X, W_Q, W_K, W_V, X @ W_Q, X @ W_K, X @ W_V


def test_adding_a_constant_to_a_row_changes_nothing():
    torch = pytest.importorskip("torch")  # a test-only dependency, in CI
    e = QUESTIONS["concepts-01"]["evidence"]
    row = np.array(e["row"])
    np.testing.assert_allclose(A.softmax(row + e["shift"]), A.softmax(row), rtol=0, atol=1e-15)
    np.testing.assert_allclose(e["after"], torch.softmax(torch.tensor(row + e["shift"]), -1).numpy(), atol=1e-15)
    np.testing.assert_allclose(e["before"], e["after"], atol=1e-15)


def test_doubling_the_scores_sharpens_the_row():
    torch = pytest.importorskip("torch")  # a test-only dependency, in CI
    e = QUESTIONS["concepts-02"]["evidence"]
    doubled = torch.softmax(2 * torch.tensor(e["row"]), -1).numpy()
    assert e["largest"][1] == pytest.approx(doubled.max()) and e["largest"][1] > e["largest"][0]
    assert e["entropy"][1] == pytest.approx(loops.row_entropy(doubled.tolist())) and e["entropy"][1] < e["entropy"][0]


def test_equal_scores_give_an_even_row():
    e = QUESTIONS["concepts-03"]["evidence"]
    np.testing.assert_allclose(e["weights"], [1 / e["n"]] * e["n"], rtol=0, atol=1e-15)
    _, _, _, _, _, K, V = running()
    _, weights = loops.attend([[0.0] * K.shape[1]], K.tolist(), V.tolist())
    np.testing.assert_allclose(weights[0], e["weights"], atol=1e-15)


def test_scores_are_asymmetric_because_w_q_and_w_k_differ():
    e = QUESTIONS["concepts-04"]["evidence"]
    X, W_Q, _, _, Q, K, _ = running()
    tokens = list(sentences.RUNNING.tokens)
    S = np.array(loops.scores(Q.tolist(), K.tolist()))
    on, cat = tokens.index("on"), tokens.index("cat")
    assert (e["on_cat"], e["cat_on"]) == pytest.approx((S[on, cat], S[cat, on]))
    assert abs(e["on_cat"] - e["cat_on"]) > 1
    same = np.array(loops.scores((X @ W_Q).tolist(), (X @ W_Q).tolist()))
    np.testing.assert_allclose(same, same.T, atol=1e-12)
    assert e["symmetric_gap"] <= 1e-12


def test_a_fully_masked_row_attends_to_nothing_where_a_plain_softmax_gives_nan():
    torch = pytest.importorskip("torch")  # a test-only dependency, in CI
    e = QUESTIONS["concepts-05"]["evidence"]
    assert e["weights"] == [0.0] * len(e["weights"]) and e["out"] == [0.0] * len(e["out"])
    assert torch.isnan(torch.softmax(torch.full((3,), -math.inf), -1)).all(), "PyTorch gives NaN, as the answer says"


def test_a_mask_of_all_true_changes_nothing():
    torch = pytest.importorskip("torch")  # a test-only dependency, in CI
    e = QUESTIONS["concepts-06"]["evidence"]
    assert e["weights_gap"] == 0 and e["out_gap"] == 0
    _, _, _, _, Q, K, V = running()
    everything = torch.ones(len(Q), len(K), dtype=torch.bool)
    expected = torch.nn.functional.scaled_dot_product_attention(*(torch.tensor(m) for m in (Q, K, V)), attn_mask=everything)
    np.testing.assert_allclose(A.attend(Q, K, V, mask=everything.numpy())[0], expected.numpy(), atol=1e-12)


def test_columns_need_not_add_up_to_one():
    e = QUESTIONS["concepts-07"]["evidence"]
    _, _, _, _, Q, K, V = running()
    _, weights = loops.attend(Q.tolist(), K.tolist(), V.tolist())
    np.testing.assert_allclose(e["column_sums"], np.sum(weights, axis=0), atol=1e-12)
    assert max(e["column_sums"]) > 1.5 and e["column_sums"][e["busiest"]] == max(e["column_sums"])
    np.testing.assert_allclose(e["row_sums"], 1, atol=1e-12)


def test_shifting_every_value_shifts_every_output():
    e = QUESTIONS["concepts-08"]["evidence"]
    np.testing.assert_allclose(e["moved"], np.broadcast_to(e["b"], np.shape(e["moved"])), atol=1e-12)


def test_the_spread_of_a_dot_product_grows_as_root_d_k():
    e = QUESTIONS["concepts-09"]["evidence"]
    assert e["raw_spread"] == pytest.approx(e["root"], rel=0.03)
    assert e["scaled_spread"] == pytest.approx(1, rel=0.03)


def test_the_block_offers_each_question_with_its_choices():
    html = problems_html.concepts_html(SET, "problems/concepts.json")
    for q in QUESTIONS.values():
        assert html.count(f'name="{q["id"]}"') == len(q["choices"])
    assert html.count("<form ") == len(QUESTIONS)


def test_demo_first_task_names_the_cell_by_the_colour_the_reader_sees(tasks, generated):
    """The demo opens on the scaled scores (diverging RdBu_r, the same in both colour schemes): the cell of the
    largest weight is there the one at the scale's dark red end, not a "brightest" one (it is the darkest)."""
    data, text = tasks
    first = text[""].splitlines()[0]
    assert "brightest" not in first and "deepest red" in first
    html = (generated / "fragments" / "demo-scaled-scores.html").read_text(encoding="utf-8")
    assert 'data-quantity="scaled_scores"' in html, "the demo's first grid is the scaled scores"
    scaled = np.asarray(demo.EX_DEMO.compute()["steps"]["scaled_scores"])
    row, key = data["top"]["row"], data["top"]["key"]
    assert scaled[row, key] == scaled.max() == np.abs(scaled).max(), "the cell sits at the red end of the colour bar"
    assert f"(row {row + 1}, column {key + 1}): the largest scaled score, {num(scaled.max(), 3)}" in first


def test_demo_first_task_fails_the_build_when_no_cell_is_at_the_red_end():
    ex = demo.EX_DEMO.compute()
    flipped = {**ex, "steps": {**ex["steps"], "scaled_scores": -np.asarray(ex["steps"]["scaled_scores"])}}
    with pytest.raises(BuildError, match="demo-tasks: 0 cells of the scaled scores are drawn in the red end's colour"):
        demo.deepest_red(flipped)
    scaled = np.asarray(ex["steps"]["scaled_scores"])
    assert demo.deepest_red(ex) == np.unravel_index(np.argmax(scaled), scaled.shape)


@pytest.mark.parametrize("setting, value, claim", [
    ("FLATTEST", 0.9, "not 'almost flat'"),  # ×0.9 leaves the rows almost as uneven as at ×1
    ("SHARPEST", 0.5, "does not collapse"),  # a smaller scale flattens the row it should sharpen
])
def test_demo_tasks_fail_the_build_when_their_claim_stops_holding(monkeypatch, setting, value, claim):
    monkeypatch.setattr(demo, setting, value)
    with pytest.raises(BuildError, match=f"demo-tasks: .*{re.escape(claim)}"):
        demo.tasks_data()


def test_demo_most_even_row_is_named_by_its_entropy_the_highest(tasks):
    """"The most even one" is the row of the highest entropy: the task prints that entropy and the next highest, and
    the build refuses a tie (the row of the smallest largest weight is another one, so that is not the measure)."""
    data, text = tasks
    ex = demo.EX_DEMO.compute()
    entropy = np.asarray(ex["steps"]["entropy"])
    even = data["sharp"]["row"]
    assert entropy[even] == entropy.max() and data["sharp"]["next_entropy"] == np.delete(entropy, even).max()
    assert (f"the most even one at ×1.00 (its entropy, {num(entropy[even])} nats, is the highest of any row, against "
            f"{num(np.delete(entropy, even).max())} for the next)") in text[""]
    assert "its largest weight" not in text[""]


def test_demo_most_even_row_fails_the_build_on_a_tie(monkeypatch):
    original = demo.EX_DEMO.compute

    def tied():
        ex = original()
        entropy = np.asarray(ex["steps"]["entropy"], dtype=float).copy()
        entropy[np.argsort(entropy)[-2]] = entropy.max()
        return {**ex, "steps": {**ex["steps"], "entropy": entropy}}
    monkeypatch.setattr(demo, "EX_DEMO", __import__("types").SimpleNamespace(compute=tied))
    with pytest.raises(BuildError, match="demo-tasks: the highest row entropy"):
        demo.tasks_data()
