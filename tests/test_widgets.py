"""One folder per widget, docs/widgets/<name>/: its template, its scripts, its stylesheet. The template names its
parts with data-slot="x", and the scripts (and the stylesheet) find them by those names; here, build-free, the two
are checked to agree.

The rule: the slot names a widget's template ships are the names its scripts and its stylesheet read, save
- the slots its scripts make themselves ({"data-slot": "x"} on an element they create), which no template ships;
- TEST_ONLY: slots no script reads, kept for the browser tests, each with its reason.
A script may read the slots of another widget whose module it imports (real-heads.js reads the heatmap's "lead").

A script reads a slot by a literal name: slot("x") (a widget's own helper), slots(root, "x"), fill({x: …}) (each
key), a [data-slot=x] selector (in a script or the stylesheet), or a loop `for (const name of ["x", "y"])
…slot(name)`. A widget's markup is every .html file in its folder: its template.html and the parts the page
module fills into it (a preset button).
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WIDGETS = ROOT / "docs" / "widgets"
TEST_ONLY = {
    "your-sentence": {"mask-note": "tests/browser/test_your_sentence_browser.py reads the note under the Mask menu"},
    "watch-it-write": {"run": "the browser tests press Generate (the script listens to the form's submit)",
                       "recompute": "the browser tests tick it (the script reads the form's field by its name)"},
}

SHIPPED = re.compile(r"""\bdata-slot=["']([\w-]+)["']""")
MADE = re.compile(r"""["']data-slot["']\s*:\s*["']([\w-]+)["']""")
READ = [
    re.compile(r"""\bslot\(\s*["']([\w-]+)["']\s*\)"""),  # slot("x"), this.slot("x")
    re.compile(r"""\bslots\(\s*[\w.]+\s*,\s*["']([\w-]+)["']\s*\)"""),  # slots(root, "x")
    re.compile(r"""\[data-slot=["']?([\w-]+)["']?\]"""),  # a selector
]
LOOP = re.compile(r"""for \(const (\w+) of \[([^\]]*)\]\)[^;]*?\bslots?\((?:[\w.]+,\s*)?\1\)""")
FILL = re.compile(r"\bfill\(\{")
IMPORTED_WIDGET = re.compile(r"""\bfrom\s*["']\.\./([\w-]+)/[\w-]+\.js["']""")


def fill_keys(script):
    """The keys of every fill({…}) object literal in `script`: `name`, `name: value` or `"a-name": value` at the
    object's top level
    (strings are skipped whole, so a comma or a bracket inside one splits nothing)."""
    keys = []
    for match in FILL.finditer(script):
        depth, index, start, entries = 0, match.end() - 1, match.end(), []
        while index < len(script):
            char = script[index]
            if script.startswith("//", index):  # a comment, to the end of its line
                index = script.index("\n", index)
            elif char in "\"'`":
                index = script.index(char, index + 1)
                while script[index - 1] == "\\":
                    index = script.index(char, index + 1)
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0:
                    entries.append(script[start:index])
                    break
            elif char == "," and depth == 1:
                entries.append(script[start:index])
                start = index + 1
            index += 1
        entries = [re.sub(r"//[^\n]*", "", entry) for entry in entries]  # comments skipped above, cut here
        keys += [found.group(1) or found.group(2) for entry in entries
                 if (found := re.match(r"""\s*(?:([A-Za-z_$][\w$]*)|["']([\w-]+)["'])\s*(?::|$)""", entry))]
    return keys


def slots_read(script):
    """The slot names `script` (a JavaScript source) reads, and those it makes: (read, made)."""
    read = {name for pattern in READ for name in pattern.findall(script)} | set(fill_keys(script))
    for _, names in LOOP.findall(script):
        read |= set(re.findall(r"""["']([\w-]+)["']""", names))
    return read, set(MADE.findall(script))


def templates(name):
    """The markup widget `name` ships: the .html files of its folder, and the words filled into them, which may
    hold a slot inside a sentence (words/widgets/<name>.md: "query “<span data-slot="queryToken"></span>”")."""
    return sorted((WIDGETS / name).glob("*.html")) + sorted((ROOT / "words" / "widgets").glob(f"{name}.md"))


def shipped(name):
    return {slot for path in templates(name) for slot in SHIPPED.findall(path.read_text(encoding="utf-8"))}


def scripts(name):
    return [path.read_text(encoding="utf-8") for path in sorted((WIDGETS / name).glob("*.js"))]


def stylesheet_reads(name):
    """The slot names widget `name`'s stylesheets select by ([data-slot="x"])."""
    return {slot for path in sorted((WIDGETS / name).glob("*.css")) for slot in READ[-1].findall(path.read_text(encoding="utf-8"))}


def disagreements(name, own, imported, read, made, test_only):
    """What breaks the rule for widget `name`: [sentence]; own/imported: the slot names of its template and of the
    templates of the widgets its scripts import; read/made: what its scripts read and make."""
    problems = []
    unread = own - read - set(test_only)
    if unread:
        problems.append(f"{name}: its template ships data-slot {sorted(unread)}, which none of its scripts reads "
                        "(read it by that name, or list it in TEST_ONLY with the reason it is kept)")
    missing = read - made - own - imported
    if missing:
        problems.append(f"{name}: its scripts read the slots {sorted(missing)}, which neither its template nor an "
                        "imported widget's ships, and no script makes")
    stale = set(test_only) - own
    if stale:
        problems.append(f"{name}: TEST_ONLY lists {sorted(stale)}, which its template no longer ships")
    return problems


def check(name):
    read, made, imported = stylesheet_reads(name), set(), set()
    for script in scripts(name):
        reads, makes = slots_read(script)
        read, made = read | reads, made | makes
        for other in IMPORTED_WIDGET.findall(script):
            imported |= shipped(other)
    return disagreements(name, shipped(name), imported, read, made, TEST_ONLY.get(name, {}))


def widget_names():
    return sorted(path.name for path in WIDGETS.iterdir() if path.is_dir())


def test_there_is_a_folder_per_widget_each_with_its_script_and_stylesheet():
    names = widget_names()
    assert set(names) >= {"heatmap", "your-sentence", "watch-it-write", "problems", "real-heads"}, names
    for name in names:
        assert (WIDGETS / name / f"{name}.js").is_file() and (WIDGETS / name / f"{name}.css").is_file(), (
            f"docs/widgets/{name}/ holds its module {name}.js (site.js loads it) and its stylesheet {name}.css")


@pytest.mark.parametrize("name", widget_names())
def test_a_widgets_template_ships_the_slots_its_scripts_read(name):
    problems = check(name)
    assert not problems, "\n".join(problems)


def test_the_check_reads_every_way_a_script_names_a_slot():
    heatmap, made = slots_read("\n".join(scripts("heatmap")))
    assert {"grid", "lead", "terms", "lines", "leadName", "step", "queryToken", "flatEntropy"} <= heatmap
    assert made == {"lead", "step"}, "heatmap.js makes the checkpoint slider and its output"
    assert len(shipped("heatmap")) >= 38, sorted(shipped("heatmap"))
    yours, _ = slots_read("\n".join(scripts("your-sentence")))
    assert {"tokens", "cut", "scores", "form", "copied", "rollout-summary"} <= yours, "the loop's names count too"
    assert slots_read('el.matches("[data-slot=\'lead\']"); slots(root, "status")[0]')[0] == {"lead", "status"}
    assert sorted(fill_keys('this.fill({ step }); this.fill({ a: f(x, [1, 2]), // a, b\n b: `${y}, z`, c, "d": ", e", \'f}\' });')) == [
        "a", "b", "c", "d", "step"], "fill's top-level keys, shorthand, named or quoted; nothing inside a string"


def test_a_disagreement_is_named_with_the_rule():
    problems = disagreements("toy", own={"a", "b", "kept"}, imported={"lead"}, read={"a", "c", "lead", "made"},
                             made={"made"}, test_only={"kept": "a test reads it", "gone": "no longer there"})
    assert len(problems) == 3, problems
    assert "toy: its template ships data-slot ['b'], which none of its scripts reads" in problems[0]
    assert "toy: its scripts read the slots ['c'], which neither its template nor an imported widget's" in problems[1]
    assert "TEST_ONLY lists ['gone']" in problems[2]


def test_no_python_writes_a_widgets_markup():
    """Python fills a widget's template with data; the parts a script finds (data-slot) are written only in the
    widget's folder, so the template and its scripts are the whole contract."""
    writers = [path.relative_to(ROOT).as_posix() for folder in ("figures_src", "finish", "models")
               for path in sorted((ROOT / folder).rglob("*.py")) if "data-slot=" in path.read_text(encoding="utf-8")]
    assert not writers, f"a widget's data-slot parts are written in its template, not in Python: {writers}"
