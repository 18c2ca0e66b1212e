"""Problems (docs/problems.md): the numeric sets of seeded variants, their blocks on the page, their JSON and the Python kit,
and a set of conceptual questions (problems-concepts.md, problems/concepts.json).

- snippets/problems-<set>.md: the block of one set (first variant), included by docs/problems.md;
- snippets/problems-intro.md and problems-variants.md: the page's sentences that count the sets and variants;
- public/problems/<set>.json: every variant of a set, published at problems/<set>.json;
- public/problems/problems.py: the kit, its stubs and a checker over the same variants;
- public/notebooks/problems.ipynb: the kit as a notebook (`notebook_cells`): the same checker and variants, then each
  step's stub from kit_template.py as it is, and a check cell that fails with the kit's message until it is solved.

sets.py makes the variants, html.py the blocks; kit_template.py is the kit before the variants are written in.
Their words are in Markdown, a section per string, filled with the numbers: words/problems.md (the page's sentences,
the blocks' buttons and notes, number words and "and"-lists), words/problems-sets.md (each set's title, prompts,
hints, slips, solution steps and labels) and words/problems-concepts.md (the conceptual questions).

The JSON, generated/public/problems/<set>.json:

Sets `scale-scores`, `soften-rows`, `weighted-sum`, `end-to-end`, `masks`, `multi-head`, `push-gradient`, `decode-step`,
`positions`, `grouped-query` (`figures_src/pages/problems/`).
The conceptual set `concepts` (`concept_questions()` in sets.py, `concepts_html()` in html.py) is multiple choice:
`{"set", "title", "page", "library_version", "questions": [{"id": "concepts-<k>", "prompt", "choices", "answer"
(an index), "explanation", "evidence"}]}`, where `evidence` holds the numbers the explanation cites, as the library
computed them; its block is `<div class="aih-quiz" data-src="problems/concepts.json">` with one form per question.
`{"set", "title", "page", "library_version", "variants": [{"id": "<set>-01", "seed", "prompt", "inputs": [matrix],
"parts": [matrix + "tolerance"], "hints": [text], "solution": [{"key", "text", "matrix"?}]}]}`, where a matrix is
`{"name", "label", "values" (rows; null = −∞; booleans for masks), "rows", "cols"}` (row and column labels).
`parts` are what the reader types, row-major. The page block `<div class="aih-problem" data-src="problems/<set>.json">`
(generated/snippets/problems-<set>.md) and docs/widgets/problems/problems.js share the `aih-problem*` class names.
The kit `problems/problems.py` carries the same variants. Both round each array to 10 significant digits of its
largest entry (`engine.text.published`), so every CPU publishes the same bytes.
"""
import json
import math
import re
from pathlib import Path

from ...engine import BuildError, Snippets
from ...engine.inputs import ROOT
from ...engine.notebooks import code, markdown, notebook, source
from ...engine.site import docs_path, language_folder, language_url, page_path, site_url
from ...engine.text import published, published_note
from ...engine.words import Words
from . import kit_template
from .html import concepts_html, intro_markdown, problem_html, variants_markdown
from .sets import all_sets, concepts_set

KIT_TEMPLATE = Path(__file__).with_name("kit_template.py")
KIT_MARKER = 'CASES = json.loads("{}")'
# Which kit step checks which set: (step title in the kit, set id, the part holding the expected answer).
KIT_STEPS = [
    ("scale_scores(Q, K)", "scale-scores", "scaled_scores"),
    ("soften_rows(S)", "soften-rows", "weights"),
    ("soften_rows(S, mask)", "masks", "weights"),
    ("weighted_sum(A, V)", "weighted-sum", "out"),
    ("attention_end_to_end(X, W_Q, W_K, W_V, mask)", "end-to-end", "out"),
    ("value_gradient(A, V, dO)", "push-gradient", "dV"),
    ("score_gradient(A, V, dO)", "push-gradient", "dS"),
    ("source_digit(given)", "decode-step", "key"),
    ("kv_cache_bytes(given)", "decode-step", "cache"),
    ("step_dot_products(given)", "decode-step", "dots"),
    ("sinusoid_entry(given)", "positions", "pe"),
    ("rope_pair(given, q)", "positions", "turned"),
    ("rope_score(given, q, k)", "positions", "score"),
    ("kv_heads_read(given)", "grouped-query", "kv"),
    ("grouped_kv_cache(given)", "grouped-query", "cache"),
]


def json_path(problem_set):
    return f"problems/{problem_set['set']}.json"


def json_address(problem_set):
    """Where the page's script fetches the set, from the site's root: its language's copy (zh/problems/… for the
    Chinese page, whose prompts and feedback are Chinese), as finish/published.py publishes it."""
    return language_folder() + json_path(problem_set)


# The sets whose blocks are whole at load: the first, which a reader meets first (on a phone, a screen and a half down,
# its grid drawn near the viewport); the later ones wait (html.py's problem_html), so the page at load holds
# fewer than 1,500 elements.
WHOLE_AT_LOAD = 1


def problem_blocks(data):
    """The block of each set, and the page's two sentences that count the sets and their variants."""
    blocks = {s["set"]: problem_html(s, json_address(s), waiting=k >= WHOLE_AT_LOAD) for k, s in enumerate(data)}
    if {"intro", "variants"} & set(blocks):
        raise BuildError("problems: a set's id clashes with the snippets problems-intro and problems-variants")
    return {**blocks, "intro": intro_markdown(data), "variants": variants_markdown(data)}


def set_json(problem_set):
    """A set's JSON, each array to 10 significant digits of its largest entry (text.published): the same bytes on
    every CPU. Its header says so, in `precision` after `library_version`, as an example's does."""
    fields = list(published(problem_set).items())
    keys = [key for key, _ in fields]
    at = keys.index("library_version") + 1 if "library_version" in keys else 0
    return json.dumps(dict(fields[:at] + [("precision", published_note())] + fields[at:]), ensure_ascii=False,
                      allow_nan=False) + "\n"


def parameters(title):
    """The inputs a kit step's function is called with, as its title names them: "rope_pair(given, q)" -> given, q."""
    return title.split("(", 1)[1].rstrip(")").split(", ")


def kit_cases(data):
    """{kit step title: [{id, inputs, expected}]} from the published variants; each case holds the inputs its
    step's title names (a set's steps may each read some of its inputs: rope_pair reads `given` and `q`)."""
    by_id = {s["set"]: s for s in data}
    cases = {}
    for title, set_id, part_name in KIT_STEPS:
        cases[title] = [
            {
                "id": v["id"],
                "inputs": {m["name"]: m["values"] for m in v["inputs"] if m["name"] in parameters(title)},
                "expected": next(p["values"] for p in v["parts"] if p["name"] == part_name),
            }
            for v in by_id[set_id]["variants"]
        ]
    return cases


def kit(data):
    """The text of problems.py: the template with the variants written in."""
    template = KIT_TEMPLATE.read_text(encoding="utf-8")
    if template.count(KIT_MARKER) != 1:
        raise BuildError(f"{KIT_TEMPLATE.name} must contain {KIT_MARKER!r} exactly once")
    cases = json.dumps(published(kit_cases(data)), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return template.replace(KIT_MARKER, f"CASES = json.loads(r'''{cases}''')")


def downloads(data):
    files = {json_path(s): set_json(s) for s in data}
    files["problems/problems.py"] = kit(data)
    return files


WORDS = Words("words/problems.md")
KIT_FILE = "problems/problems.py"


def kit_lines(data, *starts):
    """The lines of problems.py that begin with each of `starts`, as the kit has them (CASES: the variants, written
    in)."""
    lines = kit(data).splitlines()
    found = [[line for line in lines if line.startswith(start)] for start in starts]
    if any(len(f) != 1 for f in found):
        raise BuildError(f"problems: the kit must have exactly one line starting with each of {starts}")
    return [f[0] for f in found]


def set_numbers():
    """{set id: its number on the page}, read from docs/problems.md's headings ("## 5. Masks { #masks }"), so that
    the notebook names each set as the page's table of contents does."""
    text = docs_path("problems.md").read_text(encoding="utf-8")
    return {m["id"]: int(m["number"]) for m in re.finditer(r"^## (?P<number>\d+)\. .*\{ #(?P<id>[\w-]+) \}$", text, re.M)}


def power_of_ten(value):
    """1e-06 -> "10⁻⁶": a tolerance as the page writes a power of ten."""
    exponent = round(math.log10(value))
    if value != 10.0 ** exponent:
        raise BuildError(f"problems: the kit's tolerance {value} is not a power of ten")
    return "10" + str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def check_cell(title, function):
    """The code of a step's check: the kit's check_step on every variant; it raises with the kit's FAIL line until
    the step passes, then prints the kit's PASS line."""
    return code(f"""
        passed, message = check_step({title!r}, {function})
        if not passed:
            raise AssertionError(f"FAIL  {title}  {{message}}")
        print(f"PASS  {title}  {{message}}")""", tags=("raises-exception",))


def notebook_cells():
    """The kit as cells: the checker with the page's variants written in, then per step its set on the page, its
    stub as kit_template.py has it (once per function: soften_rows has two steps), and its check."""
    data = all_sets()
    titles = {s["set"]: s["title"] for s in data}
    if [title for title, _ in kit_template.STEPS] != [title for title, _, _ in KIT_STEPS]:
        raise BuildError("problems: kit_template.STEPS and KIT_STEPS must list the same steps, in the same order")
    page = language_url() + page_path("problems.md")
    numbers = set_numbers()
    cells = [
        markdown(WORDS.fill("nb-intro", kit=site_url() + KIT_FILE, tolerance=power_of_ten(kit_template.TOLERANCE))),
        markdown(WORDS.fill("nb-checker")),
        code("import json\n\n" + "\n".join(kit_lines(data, "TOLERANCE = ", "CASES = ")), hidden=True),
        source(kit_template.compare, kit_template.arrays, kit_template.check_step),
    ]
    shown = set()
    for (title, function), (_, set_id, _) in zip(kit_template.STEPS, KIT_STEPS):
        again = function in shown
        cells.append(markdown(WORDS.fill("nb-step/again" if again else "nb-step", set_number=numbers[set_id],
                                         title=title, function=function, set_title=titles[set_id],
                                         url=f"{page}#{set_id}")))
        if not again:
            cells.append(source(getattr(kit_template, function)))
            shown.add(function)
        cells.append(check_cell(title, function))
    return cells


ITEMS = [
    Snippets("problems", data=all_sets, snippets=problem_blocks, public=downloads),
    Snippets("problems-concepts", data=concepts_set, snippets=lambda data: {"": concepts_html(data, json_address(data))},
             public=lambda data: {json_path(data): set_json(data)}),
    notebook("problems.md", notebook_cells, library=False),
]
