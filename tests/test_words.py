"""The words a reader sees live in Markdown (words/*.md) and widget templates; Python fills them with numbers
(figures_src/engine/words.py). Each refusal names the file, the section and the hole, and the files and the page
modules agree: every section is printed by some module, and every section a module fills exists."""
import ast
import re
from pathlib import Path

import pytest

from figures_src.engine import BuildError
from figures_src.engine.words import LISTS, Filled, Template, Words, english_words_files, listed, parse, translated_path

ROOT = Path(__file__).resolve().parents[1]
FILLS = {"fill", "line", "html"}


def words(tmp_path, text, name="words.md"):
    file = tmp_path / name
    file.write_text(text, encoding="utf-8")
    found = Words(name)
    found._sections = {found.source: parse(file, name)}  # as read from the file of the language being built
    return found


def test_a_section_is_filled_with_its_values(tmp_path):
    found = words(tmp_path, "<!-- story -->\nThe rows at $d_k = {{ d_k }}$\nhad {{entropy}} nats.\n\n"
                            "<!-- story/every -->\nand so did every run\n")
    assert found.fill("story", d_k=128, entropy="0.12") == "The rows at $d_k = 128$ had 0.12 nats.", \
        "a paragraph wrapped in the words file prints on one line, as it would have if written on one"
    assert found.line("story", d_k=128, entropy="0.12") == "The rows at $d_k = 128$ had 0.12 nats."
    assert found.fill("story/every") == "and so did every run"


@pytest.mark.parametrize("kind, two, three", [
    ("and", "a and b", "a, b and c"),
    ("or", "a or b", "a or b or c"),
    ("comma", "a, b", "a, b, c"),
    ("semicolon", "a; b", "a; b; c"),
])
def test_listed_joins_one_two_and_three_items_by_the_site_words(kind, two, three):
    assert listed(["a"], kind) == "a", "a list of one item is the item"
    assert listed(["a", "b"], kind) == two, f"two items are joined by words/site.md's list/{kind}"
    assert listed(iter(["a", "b", "c"]), kind) == three, \
        f"a middle item is joined by list/{kind}/more, the last by list/{kind} (\"a, b and c\", not \"a and b and c\")"
    assert listed(["a, x", "b\nc"], kind).startswith("a, x"), "an item is placed as it is, its commas and lines kept"


def test_listed_refuses_an_empty_list_and_an_unknown_kind():
    with pytest.raises(BuildError, match="no items"):
        listed([], "and")
    with pytest.raises(BuildError, match="no list of kind 'but'"):
        listed(["a", "b"], "but")


def test_a_list_is_joined_only_by_listed():
    """The words that join a list (the separators, "and", "or") are words/site.md's list/<kind> sections, so a
    translator changes them in one place: no page module joins a list of sections itself, and no page's words file
    keeps a section that only joins two items."""
    joiners, own = [], []
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "listed" and path.name != "words.py":
                joiners.append(f"{path.relative_to(ROOT)}:{node.lineno}: a list helper of its own")
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func, first = node.func, node.args[0]
            if (isinstance(func, ast.Attribute) and func.attr == "join" and isinstance(func.value, ast.Constant)
                    and func.value.value.strip() in {",", ";", "and", "or"}
                    and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in FILLS
                            for n in ast.walk(first))):
                joiners.append(f"{path.relative_to(ROOT)}:{node.lineno}: {func.value.value!r}.join of words sections")
            if getattr(func, "attr", getattr(func, "id", None)) == "reduce" and any(
                    isinstance(n, ast.Call) and getattr(n.func, "attr", None) in FILLS for n in ast.walk(first)):
                joiners.append(f"{path.relative_to(ROOT)}:{node.lineno}: a reduce over a words section")
    not_lists = {  # sections that print two holes joined, but are no list listed joins: {(file, section): why}
        ("words/cost.md", "cost-models-sources/model"): "one model and where its numbers come from, not a list",
        ("words/scripts/problems.md", "look-again/more"): "a script's list (the entries to look at again): the "
                                                          "scripts cannot call listed, so its table has its joiner",
        ("words/zh/scripts/problems.md", "look-again/more"): "the same, in Chinese",
    }
    pair = re.compile(r"\{\{ [a-z_]+ \}\}(?:,| and| or|;) \{\{ [a-z_]+ \}\}")
    for file in sorted((ROOT / "words").rglob("*.md")):
        for section, text in parse(file, file.name).items():
            if (pair.fullmatch(text) and not section.startswith("list/")
                    and (file.relative_to(ROOT).as_posix(), section) not in not_lists):
                own.append(f"{file.relative_to(ROOT)}: {section} joins two items")
    assert not joiners + own, ("a list a reader reads is joined by engine.words.listed, whose separators and "
                               "and/or are words/site.md's list/<kind> sections:\n" + "\n".join(joiners + own))
    assert set(LISTS) >= {"and", "or", "comma", "semicolon"}


def test_reflow_joins_prose_and_keeps_every_block_as_written(tmp_path):
    text = ("A sentence\nwrapped twice\nhere.\n\n- an item\n  that goes on\n- another\n\n| a | b |\n|---|---|\n"
            "| 1 | 2 |\n\n$$\nx = 1\ny = 2\n$$\n\n```python\nx = 1\ny = 2\n```\n\n!!! note\n    In a\n    callout.\n"
            "<div>\nInside\nHTML.\n</div>")
    found = words(tmp_path, "<!-- a -->\n" + text + "\n")
    assert found.fill("a").split("\n") == [
        "A sentence wrapped twice here.", "", "- an item that goes on", "- another", "", "| a | b |", "|---|---|",
        "| 1 | 2 |", "", "$$", "x = 1", "y = 2", "$$", "", "```python", "x = 1", "y = 2", "```", "", "!!! note",
        "    In a", "    callout.", "<div>", "Inside HTML.", "</div>"], \
        "reflow joins only lines of prose; lists, tables, math, code, callouts and HTML keep their lines"


def test_a_hole_inside_latex_braces_is_still_a_hole(tmp_path):
    found = words(tmp_path, "<!-- power -->\n$10^{{{ exponent }}}$\n")
    assert found.fill("power", exponent="−3") == "$10^{−3}$"


def test_html_escapes_text_values_but_not_filled_ones(tmp_path):
    found = words(tmp_path, "<!-- status -->\n<p title=\"{{ label }}\">{{ token }} {{ part }}</p>\n"
                            "<!-- part -->\n<b>bold</b>\n<!-- label -->\nsay \"{{ what }}\"\n")
    part = found.html("part")
    assert isinstance(part, Filled)
    label = found.line("label", what="<script>")
    assert not isinstance(label, Filled), "what line() gives is text, not markup"
    assert found.html("status", token="<s>&", part=part, label=label) == (
        '<p title="say &quot;&lt;script&gt;&quot;">&lt;s&gt;&amp; <b>bold</b></p>'), \
        "a token or a line of words is text, so it is escaped, in an attribute too; what html() filled is markup"


@pytest.mark.parametrize("call, message", [
    (lambda w: w.fill("story"), "no value for {{ n }}"),
    (lambda w: w.fill("story", n=1, m=2), "m is given but no {{ }} uses it"),
    (lambda w: w.fill("story", n=0.5), "the value of n is a float, not text or an int; format it with engine.text.num"),
    (lambda w: w.fill("story", n=True), "the value of n is a bool"),
    (lambda w: w.fill("stroy", n=1), "no section stroy (its sections: story, two)"),
    (lambda w: w.line("two"), "has more than one paragraph"),
])
def test_a_wrong_fill_names_the_file_section_and_hole(tmp_path, call, message):
    found = words(tmp_path, "<!-- story -->\n{{ n }} rows.\n<!-- two -->\nOne.\n\nTwo.\n")
    with pytest.raises(BuildError) as error:
        call(found)
    assert message in str(error.value) and "words.md" in str(error.value), \
        f"a wrong fill is refused with a message naming the file and the culprit, not {error.value}"


@pytest.mark.parametrize("text, message", [
    ("Intro.\n<!-- a -->\nx\n", "words.md:1: text before the first section marker"),
    ("<!-- a -->\nx\n<!-- a -->\ny\n", "words.md:3: section a is written twice (first at line 1)"),
    ("<!-- a -->\n\n<!-- b -->\ny\n", "words.md:1: section a is empty"),
    ("<!-- Story -->\nx\n", "<!-- Story --> is not a section marker"),
    ("<!-- a -->\n{{ Steps }} rows\n", "{{ Steps }} is not a hole's name"),
    ("<!-- a -->\n{{Steps}} rows\n", "{{ Steps }} is not a hole's name"),
    ("<!-- a -->\n{{ a.b}} rows\n", "{{ a.b }} is not a hole's name"),
])
def test_a_malformed_words_file_is_refused_at_its_line(tmp_path, text, message):
    with pytest.raises(BuildError) as error:
        words(tmp_path, text).fill("a")
    assert message in str(error.value), f"a malformed words file is named at its line, not {error.value}"


def test_a_missing_words_file_or_template_is_named():
    with pytest.raises(BuildError, match="words/nowhere.md: no such words file"):
        Words("words/nowhere.md").fill("a")
    with pytest.raises(BuildError, match="nowhere/template.html: no such template"):
        Template("nowhere/template.html").html()


# --- the files and the modules agree (static: no build) ---

def modules():
    """The modules that may print words: the figure build and the post-build pass (finish/ prints the site's)."""
    return sorted([*(ROOT / "figures_src").rglob("*.py"), *(ROOT / "finish").rglob("*.py")])


def words_names(tree):
    """{name: words path} for `NAME = Words("words/…")` at a module's top level."""
    bound = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", None) in ("Words", "Template") and node.value.args
                and isinstance(node.value.args[0], ast.Constant)):
            for target in node.targets:
                bound[target.id] = node.value.args[0].value
    return bound


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.fixture(scope="module")
def usage():
    """Each words file's sections as the code names them: {path: (sections filled by a literal name, every string
    constant of the modules that use the file)}."""
    trees = {module_name(path): (path, ast.parse(path.read_text(encoding="utf-8"))) for path in modules()}
    bound = {name: words_names(tree) for name, (_, tree) in trees.items()}
    found = {}
    for name, (path, tree) in trees.items():
        names = dict(bound[name])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
                source = ".".join(filter(None, [base, node.module]))
                for alias in node.names:
                    if alias.name in bound.get(source, {}):
                        names[alias.asname or alias.name] = bound[source][alias.name]
        for file in set(names.values()):
            found.setdefault(file, (set(), set()))
            found[file][1].update(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
                                  and isinstance(n.value, str))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FILLS
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in names and node.args):
                first = node.args[0]
                choices = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
                for choice in choices:
                    if isinstance(choice, ast.Constant):
                        found[names[node.func.value.id]][0].add((choice.value, f"{path.relative_to(ROOT)}:{node.lineno}"))
    return found


# Words files no page module names: the scripts' string tables (engine/strings.py publishes every section of each,
# and tests/test_script_words.py checks a script reads it), the widgets' words (engine/words.py's Template fills a
# template's holes by section name) and the Chinese twins (read in place of the English file by the zh build).
NOT_A_MODULES = ("words/scripts/", "words/widgets/", "words/zh/")


def test_every_words_file_belongs_to_a_page_module(usage):
    files = {path for path in english_words_files() if not path.startswith(NOT_A_MODULES)}
    orphans = files - set(usage)
    assert not orphans, f"every words file is read by a module (Words(\"words/…\")); nothing reads {sorted(orphans)}"


def test_every_chinese_words_file_translates_an_english_one():
    chinese = {path.relative_to(ROOT).as_posix() for path in (ROOT / "words" / "zh").rglob("*.md")}
    english = {translated_path(path, "zh") for path in english_words_files()}
    assert not chinese - english, ("words/zh/<path> is words/<path> in Chinese (the Chinese build reads it in its "
                                   f"place); these translate no English file: {sorted(chinese - english)}")


def test_every_section_a_module_fills_exists(usage):
    wrong = []
    for file, (filled, _) in usage.items():
        if file.endswith(".md"):
            sections = parse(ROOT / file, file)
            wrong += [f"{where}: {section!r} is not a section of {file}" for section, where in filled
                      if section not in sections]
    assert not wrong, "a module fills only sections its words file has:\n" + "\n".join(sorted(wrong))


def test_every_section_is_printed_by_some_module(usage):
    unused = []
    for file, (_, constants) in usage.items():
        if file.endswith(".md"):
            unused += [f"{file}: {section}" for section in parse(ROOT / file, file) if section not in constants]
    assert not unused, ("every section of a words file is named by the module that prints it (a section nobody "
                        "prints is a sentence no reader sees):\n" + "\n".join(unused))


# --- each section is a whole sentence or clause (issue 60 translates them whole) ---

GLUED_AFTER = re.compile(r"[.,;:!?]\{\{|\}\}\{\{|(?<![\\A-Za-z])[A-Za-z]{3,}\{\{")  # rule{{, it.{{, }}{{


def glued(text):
    r"""Where a section's text leans on the sentence around it: it starts with the punctuation of a sentence it
    continues, ends with a comma or semicolon it leaves open, or glues a hole to the word or punctuation before it,
    so the hole's value carries the punctuation (a symbol's part, $\mu{{ prime }}$ or d{{ part }}, is not a word)."""
    body = text.strip()
    found = [f"starts with {body[0]!r}"] if body[:1] in {",", ";", ".", ":"} else []
    found += [f"ends with {body[-1]!r}"] if body[-1:] in {",", ";"} and not re.search(r"&[a-z]+;$", body) else []
    found += [f"glues {m.group()!r}" for m in GLUED_AFTER.finditer(body)]
    return found


def test_a_glued_section_is_found():
    assert glued(", except {{ others }}") == ["starts with ','"]
    assert glued("row {{ row }}, of “{{ label }}”,") == ["ends with ','"]
    assert glued("by the same rule{{ ties }}") == ["glues 'rule{{'"]
    assert glued("with it.{{ left_out }} and {{ a }}{{ b }}") == ["glues '.{{'", "glues '}}{{'"]
    assert glued(r"$\mu{{ prime }} = 10^{{{ exponent }}}$ via d{{ part }}, $q_{\text{{{ token }}}}$") == []


# The heatmap's caption, which heatmap.js writes once the reader changes the figure, is the shown quantity and the
# settings that differ from the build's, each optional (a head, the scale, a mask, the entropy bars): 16 ways. Each
# setting is one whole clause of its own section, and `caption` (with `caption/tie`) places them, so a translator
# orders them there; the clauses start with the punctuation that joins them.
GLUED_BY_DESIGN = {("words/scripts/heatmap.md", "words/zh/scripts/heatmap.md"):
                   ("caption", "caption/tie", "caption-head", "caption-sequence", "caption-axis", "caption-scale",
                    "caption-mask", "caption-entropy"),
                   ("words/widgets/heatmap.md",): ("hatched",),  # the legend's "; hatched: masked", after its name
                   ("words/zh/scripts/problems.md",): ("sentences/more",)}  # Chinese joins sentences with no space


def test_every_section_is_a_whole_sentence_or_clause():
    wrong = []
    for file in sorted((ROOT / "words").rglob("*.md")):
        name = file.relative_to(ROOT).as_posix()
        chinese = name.startswith("words/zh/")  # Chinese sets one sentence after another with no space: }}{{
        exempt = [section for files, sections in GLUED_BY_DESIGN.items()
                  if name in files or name.removeprefix("words/zh/") in {f.removeprefix("words/") for f in files}
                  for section in sections]
        wrong += [f"{name}, section {section}: {problem}" for section, text in parse(file, name).items()
                  if section not in exempt for problem in glued(text) if not (chinese and problem == "glues '}}{{'")]
    assert not wrong, ("a words section is a whole sentence, clause or phrase a translator can reorder: its variants "
                       "carry their own punctuation, and the page module passes only values (numbers, tokens, lists) "
                       "into its holes, never a fragment that ends or continues the sentence around it:\n"
                       + "\n".join(wrong))


# --- the pages whose words have moved keep no sentence in Python ---

# Every module's reader-facing words live in words/*.md (issue 57): the pages' in words/<page>.md, the site's chrome
# around them in words/site.md. Strings that read as words but are no reader's sentence: {(path, start): why}.
SCANNED = ["figures_src/pages", "figures_src/engine", "finish"]  # not the build's command lines (build.py, trained.py)
NOT_PROSE = {
    ("figures_src/pages/cite.py", "```bibtex"): "the BibTeX entry is data a reader copies, the same in every language",
    ("figures_src/engine/downloads.py", "@misc{"): "a figure's BibTeX entry is data, as the Cite page's is",
    ("figures_src/pages/problems/__init__.py", "attention_end_to_end("): "a Python signature of the kit",
    ("figures_src/pages/problems/kit_template.py", ""): "the downloadable kit's own messages, Python a reader runs "
                                                      "(issue 60 decides)",
    ("finish/edition.py", "\\b(?:(?i:hover"): "the English pages' instruction words, which the web note quotes: it "
                                             "reads English pages, so it stays English",
    # messages for whoever builds, kept in a name before they are raised
    ("figures_src/engine/finite.py", " (−∞ is allowed"): "part of a BuildError's message",
    ("figures_src/engine/words.py", "; format it"): "part of a BuildError's message",
    ("figures_src/engine/words.py", ": "): "translation_gaps' lines, which the Chinese build's BuildError lists",
    ("figures_src/engine/fonts.py", "Noto Sans CJK SC"): "font families' names",
    ("figures_src/engine/fonts.py", "Source Han Sans SC"): "font families' names",
    ("figures_src/engine/wasm.py", ""): "Node's and wabt's messages, for whoever builds",
    ("finish/scripts.py", "Cannot find package"): "Node's message, matched to say what to install",
    ("finish/__main__.py", ""): "the pass's command-line help",
    ("figures_src/engine/notebooks.py", ""): "the notebooks' own code cells, Python a reader runs (issue 60 decides, "
                                             "as for the kit), and the build's messages; their prose is "
                                             "words/notebooks.md",
}
# messages for us, not readers; and a notebook's code cell (engine/notebooks.py's code()), Python a reader runs
DEVELOPER = {"claim", "BuildError", "ValueError", "RuntimeError", "TypeError", "print", "check_tree", "check_finite",
             "code"}
TAG = re.compile(r"<[^<>]*>")


def attribute_values(tag):
    """The values of a tag's attributes a reader may see or hear (an alt, a title, a label); not its class or names."""
    return " " + " ".join(re.findall(r'\b(?:alt|title|aria-label|placeholder|content)="([^"]*)"', tag.group())) + " "


A_WORD_ALONE = re.compile(r"[(“\"']?[A-Za-z][A-Za-z'’-]*[.,:;!?)”\"']*")  # a word between spaces, not markup or a pattern


def sentences_in(path):
    """[(line, text)]: the string literals (an f-string's literal parts joined) of a module that hold four words or
    more outside $…$ math (a word stands between spaces, or in a tag's quoted value: `class="x"` or `[^>]*` is
    none), leaving out docstrings and developer messages (raise, assert, claim(...), errors)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    docstrings = {node.body[0].value for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and not isinstance(parents.get(node), ast.JoinedStr):
            text = node.value
        else:
            continue
        ancestor, developer = node, node in docstrings
        while not developer and ancestor in parents:
            ancestor = parents[ancestor]
            developer = isinstance(ancestor, (ast.Raise, ast.Assert)) or (
                isinstance(ancestor, ast.Call) and getattr(ancestor.func, "id", getattr(ancestor.func, "attr", None)) in DEVELOPER)
        outside_math = " ".join(text.split("$")[::2])
        spaced = TAG.sub(attribute_values, outside_math).split()
        if not developer and sum(bool(A_WORD_ALONE.fullmatch(word)) for word in spaced) >= 4:
            found.append((node.lineno, text))
    return found


def test_no_module_of_the_build_keeps_a_sentence_in_python():
    left = [f"{path.relative_to(ROOT)}:{line}: {text!r}" for folder in SCANNED
            for path in sorted((ROOT / folder).rglob("*.py")) for line, text in sentences_in(path)
            if not any(path.relative_to(ROOT).as_posix() == kept and text.startswith(start)
                       for kept, start in NOT_PROSE)]
    assert not left, ("a sentence a reader sees belongs in the page's words file (words/<page>.md), filled by the "
                      "module with its numbers; these are still in Python:\n" + "\n".join(left))


FIGURE_TEXT = {"set_xlabel", "set_ylabel", "set_title", "suptitle", "text", "annotate"}  # a drawn text, a title
FIGURE_TEXT_KEYWORDS = {"label", "title"}  # a legend's entry, a heatmap's panel title


def literal_words(node):
    """The words (two Latin letters or more, outside $…$ math) of a str literal or of an f-string's literal parts."""
    if isinstance(node, ast.JoinedStr):
        text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    else:
        return []
    return re.findall(r"[A-Za-z]{2,}", " ".join(text.split("$")[::2]))


def test_no_figure_draws_a_word_written_in_python():
    """A figure's words are words however short: the heatmap's axis titles ("keys", "queries"), a panel's title, a
    legend's entry. Fewer than four words slip past the sentence test above, so this one looks at what draws them:
    a literal given to a figure's text call, or as its label= or title=, is a word the Chinese figure would keep in
    English. (A notebook's code is a string, not a call, so its plots are not looked at: code stays English.)"""
    left = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "attr", getattr(node.func, "id", None))
                if getattr(getattr(node.func, "value", None), "id", "").endswith("WORDS"):
                    continue  # WORDS.text("number-words"): a section's name, not a word drawn
                given = (node.args if name in FIGURE_TEXT else []) + [
                    keyword.value for keyword in node.keywords if keyword.arg in FIGURE_TEXT_KEYWORDS]
                left += [f"{path.relative_to(ROOT)}:{value.lineno}: {name}(… {ast.unparse(value)} …)"
                         for value in given if literal_words(value)]
    assert not left, ("a word a figure draws belongs in a words file (the page's, or words/site.md for the engine's), "
                      "filled by the module; these are literals in Python:\n" + "\n".join(left))


def test_a_table_whose_column_heads_do_not_match_its_rows_stops_the_build():
    from figures_src.engine.text import table
    assert table(["a", "b"], [["1", "2"]]).startswith("| a | b |")
    with pytest.raises(BuildError, match=r"a table of 2 columns \(a \| b\) has a row or an alignment of 3 cells"):
        table("a | b".split(" | "), [["1", "2", "3"]])


# --- the embed page is its template, filled ---

def test_the_embed_page_is_its_template_filled_with_words_and_data():
    from figures_src.engine import embed  # noqa: PLC0415

    template = (ROOT / "docs/widgets/heatmap/embed.html").read_text(encoding="utf-8")
    between_tags = " ".join(re.sub(r"\{\{ [a-z_]+ \}\}|<[^<>]*>", "\n", template).split())
    assert not A_WORD_ALONE.search(between_tags), (
        "the embed page's template holds markup and holes; its sentences are words/site.md's embed-… sections, "
        f"not {between_tags!r}")
    page = embed.embed_page({"id": "ex-x", "title": "Scores & <weights>"}, "https://example.org/scores/#ex-x",
                            "<figure>the figure</figure>\n")
    parts = re.split(r"\{\{ [a-z_]+ \}\}", template)
    assert page.startswith(parts[0]) and page.endswith(parts[-1]) and all(part in page for part in parts), \
        "the embed page is docs/widgets/heatmap/embed.html with every hole filled, and nothing else"
    # the heatmap's template (its string table's sentences keep their holes: the script fills them) aside
    outside = re.sub(r'<template id="aih-heatmap">.*?</template>', "", page, flags=re.S)
    assert outside != page, "the embed page carries the heatmap's template, in its language (engine/embed.py)"
    assert "{{" not in outside and "Scores &amp; &lt;weights&gt;" in page and "&amp;amp;" not in page, \
        "the example's title is escaped once, wherever the page shows it"
    assert f"<p class=\"aih-embed-json\">{embed.WORDS.line('embed-json', id='ex-x')}</p>" in page, \
        "the page's sentences come from words/site.md"
