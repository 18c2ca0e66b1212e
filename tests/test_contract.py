"""One contract between the build and the page's JavaScript (figures_src/engine/contract.py).

The rules both languages need live in Python and reach the JavaScript as generated modules; the algorithms
that apply them are written in each language, so both run over the same cases here: Node runs the page's own
functions (tests/js/parity.mjs, with the contract generated now, as the unit tests read it) and the answers
must be Python's, character for character. No site build: only Python and Node.
"""
import json
import math
import shutil
import subprocess
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pytest

from figures_src.engine import contract, embed
from figures_src.engine.heatmap import DARK_TEXT, LIGHT_TEXT, MASKED_FILL, SCORE_CMAP, WEIGHT_CMAP, colour_scale, luminance, text_colour
from figures_src.engine.text import SUBSCRIPTED, cell, num, typeset
from figures_src.pages.problems.sets import fmt
from figures_src.engine.site import policy as site_policy
from finish import FinishError
from finish import policy as csp
from finish.scripts import inline_generated, minify_all

ROOT = Path(__file__).resolve().parents[1]
SPECIAL = {"-Infinity": -math.inf, "Infinity": math.inf, "NaN": math.nan, "-0": -0.0}

# Ties at every digit count (binary ties such as 0.125 and decimal ones that are not, 0.0005, 0.0015, 2.675),
# signs, zeros that must not print as −0, the very small and the large. Large up to 2^40: formatNumber finds a
# tie with x·10^digits, exact while that stays below 2^53 (1e15 + 0.25 with 1 decimal prints .3 there, .2 in
# Python); the site prints nothing near.
NUMBERS = [0.0, "-0", 0.0005, 0.0015, 0.0025, -0.0005, 0.005, 0.015, 0.025, 0.125, 0.375, -0.125, 0.625, 1.005, 2.675,
           0.415, 0.675, -0.415, 0.1 + 0.2, 1 / 3, -2 / 3, 0.004999, -0.001, -0.004999, 1e-7, -1e-7, 5e-324, 0.99999,
           -0.99999, 9.995, 123.456, -123.455, 123456789.125, 2.0**40 + 0.5, "-Infinity", 0.5, 1.5, 2.5]


TEXTS = ["W_Q (2 × 4)", "d_k and d_model", "XW_Q, a_ij, s̃_ij, dO_i, Σ_j", "attend_chunked and W_Qx",
         "dS̃_ij = a_ij (dA_ij − …)", "<b>W_K</b> & q_i", "∂a_i/∂s̃_j", "no subscript here", "δ_l, v_j, k_v",
         "S̃ − s̃_max", "softmax(Q_g K_gᵀ/√3) V_g"]
PROBLEM_NUMBERS = [None, True, False, 0.3, 2.0, -0.00001, 1.23456, -1.23455, 0.00005, 12.5, -0.0, 7.0]
SIZES = (1, 2, embed.MAX_TOKENS, embed.MAX_TOKENS + 1)


def cell_values():
    rng = np.random.default_rng(7)
    return NUMBERS + [float(x) for x in rng.normal(0, 3, 300)] + [k / 8 for k in range(-40, 41)]


def fills():
    """400 random colours (0 to 255 a channel), then every level of both colour scales as the figures draw them."""
    rng = np.random.default_rng(8)
    levels = [[float(c) * 255 for c in mpl.colormaps[name](t)[:3]]
              for name in (WEIGHT_CMAP, SCORE_CMAP) for t in np.linspace(0, 1, 256)]
    return [[float(c) for c in rgb] for rgb in rng.uniform(0, 255, (400, 3))] + levels


def decoded(x):
    return SPECIAL.get(x, x) if isinstance(x, str) else x


def run_js(cases):
    """{rule: [case]} -> {rule: [result]} from the page's JavaScript, and the contract it read (as "contract")."""
    node = shutil.which("node")
    assert node, "Node.js is needed for the parity tests"
    result = subprocess.run([node, "--import", "./tests/js/contract-loader.mjs", "tests/js/parity.mjs"], cwd=ROOT,
                            input=json.dumps(cases), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def js():
    return run_js({
        "num": [[x, digits] for x in NUMBERS for digits in (0, 1, 2, 3, 4)],
        "cell": cell_values(),
        "fmt": PROBLEM_NUMBERS,
        "typeset": TEXTS,
        "textColour": fills(),
        "cellColour": [[x, "weights", 1] for x in np.linspace(0, 1, 101)] + [["-Infinity", "scores", 2.7]],
        "exampleProblem": [[tiny_example(n), None] for n in SIZES]
                          + [[tiny_example(2, bad=value), None] for value in ("NaN", "Infinity", "-Infinity")]
                          + [[tiny_example(2, drop=step), None] for step in embed.DRAWN_STEPS],
    })


def tiny_example(n, bad=None, drop=None):
    """A self-attention example the heatmap can draw: n tokens, d_k 1; `bad` (a SPECIAL name) in its Q; without
    step `drop`."""
    Q = [[0.5 * (i % 3)] for i in range(n)]
    if bad is not None:
        Q[0][0] = bad
    steps = {"Q": Q, "K": Q, "V": Q, "weights": [[1 / n] * n for _ in range(n)], "entropy": [math.log(n)] * n}
    steps.pop(drop, None)
    return {"tokens": [f"t{i}" for i in range(n)], "d_k": 1, "scale": 1.0, "inputs": {}, "outputs": {"out": Q}, "steps": steps}


def test_the_emitted_contract_is_the_pythons(js):
    got = js["contract"]
    rules = contract.constants()
    assert got["SUBSCRIPTED"] == SUBSCRIPTED.pattern
    for name in set(rules) - {"SUBSCRIPTED"}:
        assert got[name] == rules[name], name
    assert set(got) - {"SCALES"} == set(rules), "a module exports a rule the contract does not list, or misses one"
    assert sorted(name for names in contract.MODULES.values() for name in names) == sorted(rules)


def test_numbers_print_the_same_in_both_languages(js):
    for ([x, digits], got) in zip([[x, d] for x in NUMBERS for d in (0, 1, 2, 3, 4)], js["num"], strict=True):
        assert got == num(decoded(x), digits), f"num({x}, {digits})"


def test_heatmap_cells_print_the_same_with_the_tie_rule(js):
    assert js["cell"] == [cell(np.float64(decoded(x))) for x in cell_values()]
    assert cell(np.float64(0.415)) == "0.415" and cell(np.float64(0.125)) == "0.125" and cell(np.float64(0.4)) == "0.40"


def test_problem_numbers_print_the_same(js):
    assert js["fmt"] == [fmt(x) for x in PROBLEM_NUMBERS]
    assert js["fmt"][:5] == ["−∞", "1", "0", "0.3", "2"]


def test_python_refuses_a_nan_or_infinite_number_and_the_page_refuses_an_example_holding_one(js):
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match="not a number to print"):
            num(bad)
    assert num(-math.inf) == "−∞" and num(None) == "−∞"
    nan, inf, minus_inf = js["exampleProblem"][len(SIZES):len(SIZES) + 3]
    for problem in (nan, inf, minus_inf):
        assert problem.startswith("Q row 0 is not 1 finite numbers"), problem


def test_the_token_limit_is_the_same_for_the_embed_pages_and_the_widget(js):
    problems = js["exampleProblem"][:len(SIZES)]
    assert [not problem for problem in problems] == [embed.embeddable(tiny_example(n)) for n in SIZES] == [True] * 3 + [False]
    assert problems[-1] == f"{embed.MAX_TOKENS + 1} × {embed.MAX_TOKENS + 1} is above the 64 × 64 it draws"


def test_an_example_without_a_step_the_heatmap_draws_from_is_refused_by_both(js):
    missing = js["exampleProblem"][len(SIZES) + 3:]
    assert len(missing) == len(embed.DRAWN_STEPS) == 5
    for step, problem in zip(embed.DRAWN_STEPS, missing, strict=True):
        assert problem == "steps Q, K, V, weights and entropy are not all there", step
        assert not embed.embeddable(tiny_example(2, drop=step))


def test_subscripts_are_typeset_the_same(js):
    assert js["typeset"] == [typeset(text) for text in TEXTS]
    assert js["typeset"][0] == "W<sub>Q</sub> (2 × 4)" and "attend_chunked" in js["typeset"][3]
    assert js["typeset"][-2] == "S̃ − s̃<sub>max</sub>", "the row maximum is typeset s̃_max, as on the pages"
    assert js["typeset"][-1] == "softmax(Q<sub>g</sub> K<sub>g</sub>ᵀ/√3) V<sub>g</sub>", "head g's Q_g, K_g, V_g"


def test_the_text_colour_rule_is_the_same_and_contrasts_at_least_4_5_to_1(js):
    colours = fills()
    assert js["textColour"] == [text_colour(np.array(rgb) / 255) for rgb in colours]
    assert set(js["textColour"]) == {DARK_TEXT, LIGHT_TEXT}
    for rgb in colours[400:]:  # every level of both colour scales, as the static figures draw them
        fill = luminance(np.array(rgb) / 255)
        text = luminance(text_colour(np.array(rgb) / 255))
        assert (max(fill, text) + 0.05) / (min(fill, text) + 0.05) >= 4.5, rgb


def test_the_colour_scales_are_matplotlibs(js):
    scales = js["contract"]["SCALES"]
    nodes = mpl.colormaps[SCORE_CMAP]._segmentdata
    diverging = np.array([[node[1] for node in nodes[c]] for c in ("red", "green", "blue")]).T
    assert np.array_equal(scales["diverging"], np.round(diverging * 255))
    samples = mpl.colormaps[WEIGHT_CMAP](np.linspace(0, 1, 21))[:, :3]
    assert np.array_equal(scales["sequential"], np.round(samples * 255))
    *weights, masked = js["cellColour"]
    want = colour_scale(np.zeros((1, 1)), "weights")[0](np.linspace(0, 1, 101))[:, :3] * 255
    assert np.abs(np.array(weights) - want).max() <= 4  # 21 samples of viridis, linearly interpolated
    assert masked == list(np.round(np.array(mpl.colors.to_rgb(MASKED_FILL)) * 255))


def test_the_contract_modules_are_one_compact_export_each():
    for name in contract.MODULES:
        text = contract.module(name)
        assert text.startswith("export const ") and text.endswith(";\n") and text.count("\n") == 1, name
    assert contract.public(None).keys() == {f"javascripts/{name}" for name in contract.MODULES}


def test_a_pattern_javascript_cannot_read_as_written_is_refused():
    import re  # noqa: PLC0415

    with pytest.raises(ValueError, match="cannot be written"):
        contract.literal(re.compile(r"a/b"))
    assert contract.literal(re.compile(r"x_(k)")) == "/x_(k)/u"


def test_the_shipped_scripts_carry_the_contract_in_place_of_its_import():
    source = 'import { DIGITS, MAX_TOKENS } from "./contract.js";\nimport { h } from "./dom.js";\nexport const f = (x) => x.toFixed(DIGITS) + MAX_TOKENS;\n'
    generated = {"javascripts/contract.js": 'export const DIGITS=2,MAX_TOKENS=64,UNUSED="x";\n'}
    inlined = inline_generated("javascripts/a.js", source, generated)
    assert inlined.startswith('const DIGITS=2,MAX_TOKENS=64,UNUSED="x";\nimport { h } from "./dom.js";')
    shipped = minify_all({"javascripts/a.js": source}, generated)["javascripts/a.js"]
    assert "contract.js" not in shipped and "UNUSED" not in shipped and "toFixed(2)+64" in shipped
    widget = source.replace('"./contract.js"', '"../../javascripts/contract.js"')
    assert inline_generated("widgets/b/b.js", widget, generated) == inlined, (
        "a widget's script, in its own folder, imports the contract from javascripts/ and gets it written in too")
    with pytest.raises(FinishError, match=r"javascripts/a\.js imports \./contract\.js \(docs/javascripts/contract\.js\), "
                                          "which the figure build has not published"):
        inline_generated("javascripts/a.js", source, {})
    with pytest.raises(FinishError, match=r"widgets/b/b\.js imports \./contract\.js \(docs/widgets/b/contract\.js\), which"):
        inline_generated("widgets/b/b.js", source, generated)  # there is no contract beside the widget's script
    with pytest.raises(FinishError, match=r"renames an import of \./contract\.js \(`as`\)"):
        inline_generated("javascripts/a.js", source.replace("DIGITS,", "DIGITS as places,"), generated)


def test_every_page_gets_the_one_policy_with_its_own_script_hashes():
    page = ('<head><meta http-equiv="Content-Security-Policy" content="\'aih-policy\'"><script>let a = 1</script>'
            '</head><body><article>text</article></body>')
    filled = csp.fill_policy(page, "x.md", site_policy())
    policy = filled.split('content="')[1].split('"')[0]
    hashes = csp.script_hashes(page)
    assert len(hashes) == 1 and policy == site_policy().replace("script-src 'self'", f"script-src 'self' {hashes[0]}")
    template = (ROOT / "overrides" / "main.html").read_text(encoding="utf-8")
    assert "content=\"'aih-policy'\"" in template and "default-src" not in template, "the template keeps no copy"


@pytest.mark.parametrize("content", [
    "<p>a</p><script>alert(1)</script>",
    "<p>a</p></article><script>alert(1)</script>",  # a raw </article> in the Markdown ended the old check's search
    "<SCRIPT>alert(1)</SCRIPT>",
    "<script >alert(1)</script>",
    "<Script\ttype=module>alert(1)</Script>",
    "<script/src=x.js></script>",
    '<script type="application/json">{}</script>',
])
def test_a_script_in_a_pages_content_is_a_build_error_however_it_is_written(content):
    with pytest.raises(FinishError, match=r"^x\.md has a <script> in its content .* on line 1"):
        csp.refuse_scripts(content, "x.md")


def test_content_that_only_mentions_scripts_passes():
    content = "<p>a &lt;script&gt; in a code block, the word <code>script</code>, <scripture></scripture></p>"
    assert csp.refuse_scripts(content, "x.md") == content, "only a script element is refused"


def test_a_shown_cell_prints_its_text_on_the_page_and_its_value_in_the_csv():
    from figures_src.engine.downloads import csv_text
    from figures_src.engine.figures import _cell
    from figures_src.engine.text import Shown

    columns = ["n", Shown("full table (bytes)", "full table"), Shown("ratio (exact)", "ratio")]
    rows = [[256, Shown(262144, "256 KiB"), Shown(-0.000387, "−0.0004")], [512, Shown("", "—"), Shown("", "—")]]
    assert csv_text([("t", columns, rows)]) == ("n,full table (bytes),ratio (exact)\n256,262144,-0.000387\n"
                                                "512,,\n"), (
        "the CSV writes a Shown cell's value and a Shown column's CSV label")
    assert [_cell(c) for c in columns] == ["n", "full table", "ratio"] and _cell(rows[0][2]) == "−0.0004", (
        "the page prints a Shown cell's text")
