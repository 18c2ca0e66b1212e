"""The words a reader sees, kept in Markdown; the page modules supply only the numbers that fill them.

A words file (`words/<page>.md`) is split into sections by a marker line, and a section may carry named holes:

    <!-- scale-recap -->
    Without the scale, the rows at $d_k = {{ d_k }}$ were nearly one-hot: a median entropy of {{ entropy }} nats.

    <!-- scale-recap/every -->
    Every run without the scale still learned the task.

A page module names its file once and fills a section by name:

    WORDS = Words("words/learning.md")
    WORDS.fill("scale-recap", d_k=128, entropy=num(h, 3))   # Markdown, each paragraph on one line (a snippet)
    WORDS.line("scale-recap", ...)                           # the same on one line (a caption, alt text, a JSON string)
    WORDS.html("widget-status", ...)                         # HTML: each text value escaped, a Filled (html's) kept;
                                                             #   one_line=True joins it on one line

Rules, each a BuildError naming the file, the section and the hole:
- a section name is lower case, digits and "-", with "/" before a variant (`scale-recap/every`); a marker is a line
  of its own; nothing but blank lines comes before the first; a name is written once per file;
- a hole is `{{ name }}` (lower case, digits, "_"); `{{ Name }}` or `{{ a.b }}` is refused, not left in the page;
- every hole gets a value, and every value fills a hole;
- a value is a str, an int or a Filled (what `html` gave). A float is refused: format it with engine.text.num
  first, so numbers are printed by one rule;
- `html` escapes every value but a Filled: a token, a label or a section `fill`/`line` gave is text, and cannot
  end an attribute or open a tag.

A variant is simply another section: the page module picks one and passes it filled, as the value of a hole. So a
phrase that changes with the data ("every run" or "4 of the 5 runs") stays a whole phrase in the words file, and
the file's list of sections is every phrase the page can print.

`Template(path)` is the same for a file that is one section as a whole: a widget's template.html.

A list a reader reads ("a, b and c", "a or b", "a; b; c") is joined by `listed(items, kind)`, never in Python: its
separators and its "and"/"or" are words/site.md's list/<kind> sections (list/and, and list/and/more for each middle
item), so a language changes them in one place.

A file is read when first filled, in the page's own build process, so the build records it as an input of every item
that fills it (engine/inputs.py): editing a sentence rebuilds exactly the items that print it.
"""
import html
import re
from pathlib import Path

from .errors import BuildError
from .site import DEFAULT_LANGUAGE, LANGUAGES, language, language_folder

ROOT = Path(__file__).resolve().parents[2]
WORDS_FOLDER = "words"
MARKER = re.compile(r"^<!-- ([a-z0-9][a-z0-9-]*(?:/[a-z0-9][a-z0-9-]*)*) -->$")
HOLE = re.compile(r"\{\{ ?([a-z][a-z0-9_]*) ?\}\}")
ANY_HOLE = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")  # what an author meant as a hole, valid or not


class Filled(str):
    """HTML that `html` filled: markup the words files and templates wrote, with every text value escaped, so it is
    placed into more HTML as it is. What `fill` and `line` give is text (Markdown), a plain str, which `html`
    escapes like any other value."""


def holes(text):
    """The names of the holes in a text, in order of first use."""
    return list(dict.fromkeys(HOLE.findall(text)))


def _fill(text, values, where, escape):
    wrong = [name for name in ANY_HOLE.findall(text) if not HOLE.fullmatch("{{ " + name + " }}")]
    if wrong:
        raise BuildError(f"{where}: {{{{ {wrong[0]} }}}} is not a hole's name (lower-case letters, digits, _)")
    wanted = holes(text)
    missing = [name for name in wanted if name not in values]
    if missing:
        raise BuildError(f"{where}: no value for {{{{ {missing[0]} }}}} (given: {', '.join(values) or 'none'})")
    unused = [name for name in values if name not in wanted]
    if unused:
        raise BuildError(f"{where}: {unused[0]} is given but no {{{{ }}}} uses it")
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            kind = type(value).__name__
            hint = "; format it with engine.text.num first" if isinstance(value, float) else ""
            raise BuildError(f"{where}: the value of {name} is a {kind}, not text or an int{hint}")

    def value(match):
        given = values[match.group(1)]
        if isinstance(given, Filled) or not escape:
            return str(given)
        return html.escape(str(given))

    filled = HOLE.sub(value, text)
    return Filled(filled) if escape else filled


BLOCK = re.compile(r"\s{4}|\s*(?:[-*+] |\d+[.)] |#|\||>|\$\$|!!!|\?\?\?|```|~~~|<|--8<--)")
LIST_ITEM = re.compile(r"\s*(?:[-*+] |\d+[.)] )")
FENCE = re.compile(r"\s*(?:```|~~~|\$\$\s*$)")


def reflow(text):
    """A section's paragraphs each on one line, as Markdown reads them, so a sentence wrapped in the words file
    prints as it would have on one line. A line of prose is joined, with one space, to a line of prose or a list
    item before it. Every other line stays as written: a blank line, a table row, a heading, a callout, HTML, an
    indented or fenced block, display math, and everything inside a fence."""
    out, open_to_join, fenced = [], False, False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            out.append(line)
            open_to_join = False
        elif not fenced and line.strip() and not BLOCK.match(line) and open_to_join:
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
            open_to_join = not fenced and bool(line.strip()) and (not BLOCK.match(line) or bool(LIST_ITEM.match(line)))
    return "\n".join(out)


def _one_line(text, where):
    if "\n\n" in text:
        raise BuildError(f"{where}: has more than one paragraph, so it cannot stand on one line")
    return " ".join(line.strip() for line in text.split("\n"))


class Words:
    """One words file: its sections by name, read when first filled, in the language being built
    (engine/site.language()): `words/scores.md` is read as `words/zh/scores.md` in the Chinese build. `lang` fixes
    the language instead (the post-build pass, which finishes both languages' pages in one run)."""

    def __init__(self, path, lang=None):
        self.path = path
        self.lang = lang
        self._sections = {}

    def in_language(self, lang):
        """The same words file in language `lang`."""
        return Words(self.path, lang)

    @property
    def source(self):
        """The file read: the path itself in the default language, its twin under words/<lang>/ in another."""
        lang = language() if self.lang is None else self.lang
        return translated_path(self.path, lang)

    def sections(self):
        """{name: text}, in the file's order."""
        source = self.source
        if source not in self._sections:
            self._sections[source] = parse(ROOT / source, source)
        return self._sections[source]

    def text(self, section):
        sections = self.sections()
        if section not in sections:
            known = ", ".join(list(sections)[:8]) + (", …" if len(sections) > 8 else "")
            raise BuildError(f"{self.source}: no section {section} (its sections: {known})")
        return sections[section]

    def fill(self, section, **values):
        """The section's Markdown, its holes filled and its paragraphs reflowed (`reflow`): a snippet."""
        return _fill(reflow(self.text(section)), values, f"{self.source}, section {section}", escape=False)

    def line(self, section, **values):
        """The section filled and joined on one line: a caption, an alt text, a title, a JSON string."""
        text = _fill(self.text(section), values, f"{self.source}, section {section}", escape=False)
        return _one_line(text, f"{self.source}, section {section}")

    def html(self, section, one_line=False, **values):
        """The section filled as HTML, as written (or joined on one line): every text value escaped (what fill and
        line give too), a Filled one (what html gives) placed as it is."""
        text = self.text(section)
        if one_line:
            text = _one_line(text, f"{self.source}, section {section}")
        return _fill(text, values, f"{self.source}, section {section}", escape=True)


def translated_path(path, lang):
    """"words/scores.md" in language `lang`: itself in the default language, "words/zh/scores.md" in Chinese."""
    folder = language_folder(lang)
    if not folder:
        return path
    if not path.startswith(f"{WORDS_FOLDER}/"):
        raise BuildError(f"{path}: a words file a language translates lives under {WORDS_FOLDER}/")
    return f"{WORDS_FOLDER}/{folder}{path.removeprefix(WORDS_FOLDER + '/')}"


def english_words_files():
    """Every words file of the default language, as paths from the repository's root, sorted: words/**/*.md but
    the other languages' folders."""
    others = {lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE}
    return sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / WORDS_FOLDER).rglob("*.md")
                  if path.relative_to(ROOT / WORDS_FOLDER).parts[0] not in others)


def translation_gaps(lang):
    """What the default language's words files say that language `lang` does not: ["words/zh/x.md: …", …], one
    line per missing file, missing or extra section, and section whose holes differ. Empty when the translation
    is whole. The build of `lang` refuses to run while this lists anything (figures_src/build.py)."""
    gaps = []
    for path in english_words_files():
        english, twin = parse(ROOT / path, path), translated_path(path, lang)
        if not (ROOT / twin).is_file():
            gaps.append(f"{twin}: missing (it translates {path}, {len(english)} sections)")
            continue
        translated = parse(ROOT / twin, twin)
        gaps += [f"{twin}: no section {name} (its English: {english[name].strip()[:80]!r})"
                 for name in english if name not in translated]
        gaps += [f"{twin}: section {name} is not in {path}" for name in translated if name not in english]
        for name in english:
            if name in translated and set(holes(english[name])) != set(holes(translated[name])):
                gaps.append(f"{twin}: section {name} has the holes {sorted(set(holes(translated[name])))}, "
                            f"the English {sorted(set(holes(english[name])))}")
    return gaps


class Template:
    """A file that is one section as a whole (a widget's template.html), filled as HTML. With `words` (a Words, say
    words/widgets/<widget>.md), each hole of the template that names one of its sections (hole `static_note`,
    section `static-note`) and is given no value gets that section, filled as HTML from the values its own holes
    name: the markup stays in the template, once, and its words in a words file, which a language replaces."""

    def __init__(self, path, words=None):
        self.path = path
        self.words = words

    def text(self):
        file = ROOT / self.path
        try:
            return file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise BuildError(f"{self.path}: no such template") from None

    def html(self, **values):
        text = self.text()
        if self.words is None:
            return _fill(text, values, self.path, escape=True)
        sections, wanted = self.words.sections(), holes(text)
        words, used = {}, set()
        for name in wanted:
            section = name.replace("_", "-")
            if name not in values and section in sections:
                own = {hole: values[hole] for hole in holes(sections[section]) if hole in values}
                words[name] = self.words.html(section, **own)
                used.update(own)
        values = {name: value for name, value in values.items() if name in wanted or name not in used}
        return _fill(text, {**values, **words}, self.path, escape=True)


SITE_WORDS = Words("words/site.md")  # the chrome the engine and the post-build pass write around every page's words


def parse(file, name):
    """The sections of a words file, checked."""
    try:
        lines = file.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise BuildError(f"{name}: no such words file") from None
    sections, where, current = {}, {}, None
    for number, line in enumerate(lines, 1):
        marker = MARKER.match(line)
        if marker:
            current = marker.group(1)
            if current in sections:
                raise BuildError(f"{name}:{number}: section {current} is written twice (first at line {where[current]})")
            sections[current], where[current] = [], number
        elif line.startswith("<!--") and line.rstrip().endswith("-->") and "--8<--" not in line:
            raise BuildError(f"{name}:{number}: {line.strip()} is not a section marker "
                             "(<!-- name --> alone on its line: lower case, digits, -, / before a variant)")
        elif current is None:
            if line.strip():
                raise BuildError(f"{name}:{number}: text before the first section marker")
        else:
            sections[current].append(line)
    texts = {}
    for section, body in sections.items():
        text = "\n".join(body).strip("\n")
        if not text.strip():
            raise BuildError(f"{name}:{where[section]}: section {section} is empty")
        texts[section] = text.rstrip()
    return texts


LISTS = {  # a kind of list: the sections of words/site.md that join its last item and each middle one
    "and": ("list/and", "list/and/more"),        # a, b and c
    "or": ("list/or", "list/or/more"),           # a or b or c
    "comma": ("list/comma", "list/comma/more"),  # a, b, c
    "semicolon": ("list/semicolon", "list/semicolon/more"),  # a; b; c
}


def listed(items, kind="and", lang=None):
    """Items (text) joined into one list a reader reads, by words/site.md's list/<kind> sections: "a", "a and b",
    "a, b and c". `more` joins each middle item to the list so far, `last` the last one, so a language changes its
    separators and its "and" in one place. An item is placed as it is (it may hold its own commas or newlines).
    `lang`: the language's words (default: the language being built)."""
    if kind not in LISTS:
        raise BuildError(f"listed: no list of kind {kind!r} (kinds: {', '.join(LISTS)})")
    items = list(items)
    if not items:
        raise BuildError(f"listed: a list ({kind}) of no items")
    last, more = LISTS[kind]
    words = SITE_WORDS if lang is None else SITE_WORDS.in_language(lang)
    where = f"{words.source}, section {{}}"
    head = items[0]
    for item in items[1:-1]:
        head = _fill(_one_line(words.text(more), where.format(more)), {"head": head, "item": item},
                     where.format(more), escape=False)
    if len(items) == 1:
        return head
    return _fill(_one_line(words.text(last), where.format(last)), {"head": head, "last": items[-1]},
                 where.format(last), escape=False)
