"""No script writes an English sentence of its own: the words our JavaScript puts on the page come from its string
table (words/scripts/<reader>.md, published as javascripts/strings-<reader>.js, figures_src/engine/strings.py) or
from its widget's template, so a second language is a second set of words files (issue 60). Build-free.

The rule, checked over every .js under docs/: no string literal (a template literal's text parts included) holds
two or more English words in a row, outside comments and the messages of an Error or the console (a developer's,
which may stay English). NOT_WORDS names what reads as words but is none of a reader's, each with its reason.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
WORD = r"(?<![\w.#-])[A-Za-z][a-z']+(?![\w-])"  # not a class name's, an id's or a property's part (aih-grid)
WORDS = re.compile(WORD + r"[ ,]+" + WORD)  # two English words in a row: "the model", "Stop, now"
DEVELOPERS = re.compile(r"(?:\bError|console\.\w+)\(\s*$")  # Error(…, new Error(…, console.log(…: a developer's message
REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}
# {(script under docs/, a literal's start): why it is not a reader's sentence}
NOT_WORDS = {
    ("widgets/heatmap/heatmap.js", "linear-gradient(to right,"): "CSS",
    ("javascripts/model-files.js", " bytes, not "): "an Error's message, made by corrupted()",
    ("javascripts/model-files.js", "its SHA-256 is not"): "the same",
    ("widgets/smollm/smollm-worker.js", "attention weights "): "an Error's message, made by finite()",
    ("widgets/smollm/smollm-worker.js", "logits "): "the same",
    ("widgets/your-sentence/wordpiece.js", "7fd "): "Unicode ranges (hex), not words",
    ("widgets/your-sentence/wordpiece.js", "61d "): "the same",
    ("widgets/your-sentence/your-sentence-app.js", "a an the"): "the English function words the pronoun link skips: "
                                                               "the model reads English",
    ("widgets/your-sentence/your-sentence-app.js", "on at by"): "the same list",
    ("widgets/your-sentence/your-sentence-app.js", "it its he"): "the same list",
}



def literals(source):
    """[(text, what came before it on its line)] of every string and template-literal part of a script, skipping
    comments and regular expressions."""
    found, index, last = [], 0, ""
    while index < len(source):
        char = source[index]
        if source.startswith("//", index):
            index = source.find("\n", index)
            index = len(source) if index < 0 else index
        elif source.startswith("/*", index):
            index = source.index("*/", index) + 2
        elif char == "/" and last in REGEX_BEFORE:  # a regular expression literal
            index += 1
            in_class = False
            while source[index] != "/" or in_class:
                in_class = (in_class or source[index] == "[") and source[index] != "]"
                index += 2 if source[index] == "\\" else 1
            index += 1
            last = "/"
        elif char in "\"'`":
            start, index, parts, part = index, index + 1, [], ""
            while source[index] != char:
                if source[index] == "\\":
                    part += source[index:index + 2]
                    index += 2
                elif char == "`" and source.startswith("${", index):
                    parts.append(part)
                    part, depth = "", 1
                    index += 2
                    while depth:  # the expression (its own strings are read again below, as literals of it)
                        depth += {"{": 1, "}": -1}.get(source[index], 0)
                        index += 1
                else:
                    part += source[index]
                    index += 1
            parts.append(part)
            line_start = source.rfind("\n", 0, start) + 1
            found += [(text, source[line_start:start]) for text in parts]
            if char == "`":  # the expressions' own literals
                inner = re.findall(r"\$\{((?:[^{}]|\{[^{}]*\})*)\}", source[start:index])
                found += [(text, "") for expression in inner for text, _ in literals(expression)]
            index += 1
            last = "s"
        else:
            if not char.isspace():
                last = char if not (char.isalnum() or char in "_$)]") else "a"
            index += 1
    return found


def sentences(name, source):
    """The literals of script `name` that hold English words, NOT_WORDS and developers' messages aside."""
    exempt = [start for script, start in NOT_WORDS if script == name]
    return [text for text, before in literals(source)
            if WORDS.search(text) and not DEVELOPERS.search(before) and "Error(" not in before
            and "console." not in before and not any(text.startswith(start) for start in exempt)]


def test_the_check_finds_a_sentence_and_skips_what_is_no_readers():
    source = '''// a comment with words in it
const a = /it is (a|b) regex/u;
throw new Error(`the file ${name} is missing`);
status.textContent = `Done: the model wrote ${n} tokens`;
note(S["no-more"]);
x.textContent = "Stop";
'''
    assert sentences("x.js", source) == ["Done: the model wrote "]


def test_no_script_writes_an_english_sentence():
    found = []
    for path in sorted(DOCS.rglob("*.js")):
        name = path.relative_to(DOCS).as_posix()
        found += [f"{name}: {text!r}" for text in sentences(name, path.read_text(encoding="utf-8"))]
    assert not found, ("a script writes no words of its own: a sentence a reader sees or hears (text, a status, an "
                       "aria-label, an error note) is a section of its string table, words/scripts/<reader>.md, read "
                       "with `fill(S[\"name\"], {hole: value})` (docs/javascripts/dom.js), or its template's "
                       "(words/widgets/<widget>.md); only an Error's or the console's message may stay English "
                       "(tests/test_script_words.py's NOT_WORDS lists the other exceptions):\n" + "\n".join(found))


def test_every_table_is_read_and_every_widgets_words_fill_its_template():
    """words/scripts/<reader>.md is read by a script (`strings("<reader>")`), and each section of
    words/widgets/<widget>.md is a hole of that widget's template (engine/words.py's Template fills it by name)."""
    from figures_src.engine.strings import READERS
    from figures_src.engine.words import holes, parse

    scripts = "\n".join(path.read_text(encoding="utf-8") for path in DOCS.rglob("*.js"))
    assert sorted(READERS) == sorted(path.stem for path in (ROOT / "words" / "scripts").glob("*.md"))
    unread = [reader for reader in READERS if f'strings("{reader}")' not in scripts]
    assert not unread, f"a string table no script reads with strings(\"<reader>\"): {unread}"
    for file in sorted((ROOT / "words" / "widgets").glob("*.md")):
        markup = "\n".join(path.read_text(encoding="utf-8") for path in (DOCS / "widgets" / file.stem).glob("*.html"))
        unused = [section for section in parse(file, file.name) if section.replace("-", "_") not in holes(markup)]
        assert not unused, f"{file.relative_to(ROOT)}: sections no hole of docs/widgets/{file.stem}/ names: {unused}"
