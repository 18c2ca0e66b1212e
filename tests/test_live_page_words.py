"""The two live pages, Your sentence and Watch it write, keep their words in words/<page>.md and their widget's markup
in docs/widgets/<widget>/template.html; their modules pass only data (issue 57). Build-free: the modules are read as
source, and the functions that pick a phrase are called on small made-up claims. That no page module keeps a
sentence is tests/test_words.py's rule, for every page."""
import ast
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from figures_src.engine.text import num
from figures_src.pages import watch_it_write, your_sentence

ROOT = Path(__file__).resolve().parents[1]
MODULES = [ROOT / "figures_src" / "pages" / "your_sentence.py", ROOT / "figures_src" / "pages" / "watch_it_write.py"]
DEVELOPER = {"claim", "BuildError"}  # their text is for whoever breaks the build, not for a reader
TAG = re.compile(r"</?[a-z][a-z0-9]*[\s>/]")


def reader_strings(path):
    """(line, text) of every string literal and f-string's literal part a reader could see: not a docstring, nor the
    text of a raise, an assert, a claim(...) or a BuildError(...)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {node.body[0].value for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    skipped = set()
    for node in ast.walk(tree):
        developer = isinstance(node, (ast.Raise, ast.Assert)) or (
            isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in DEVELOPER)
        if developer:
            skipped.update(ast.walk(node))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node not in docstrings and node not in skipped]


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.name)
def test_a_live_page_module_writes_no_markup(path):
    markup = [f"{path.name}:{line}: {text[:60]!r}" for line, text in reader_strings(path)
              if TAG.search(text) or "data-slot" in text]
    assert not markup, ("a widget's markup and its data-slot names live in docs/widgets/<widget>/template.html (or a "
                        "small template beside it); the page module passes only values:\n" + "\n".join(markup))


class Buttons(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found, self._open = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "button":
            self._open = dict(attrs)
            self.found.append([self._open.get("data-preset"), ""])

    def handle_data(self, data):
        if self._open is not None:
            self.found[-1][1] += data

    def handle_endtag(self, tag):
        self._open = None


def buttons(markup):
    parser = Buttons()
    parser.feed(markup)
    return [tuple(button) for button in parser.found]


def test_the_preset_buttons_carry_each_preset_escaped(monkeypatch):
    sentences = {"coreference": "The cat sat.", "agreement": 'She said "hi" & <left>.'}  # the real ids, made-up texts
    monkeypatch.setattr(your_sentence, "PRESETS", sentences)
    markup = your_sentence.presets()
    assert buttons(markup) == [(text, your_sentence.sentence_name(name)) for name, text in sentences.items()], \
        "each preset's text reaches its button's data-preset whole, however it is quoted (the template escapes it)"
    assert "<left>" not in markup and "\n" not in markup, "a preset's text is escaped, and the buttons sit side by side"
    assert buttons(watch_it_write.presets()) == [("".join(map(str, digits)), name)
                                                 for name, digits in watch_it_write.PRESETS.items()], \
        "Watch it write's presets fill the box with their digits, named by the digits spaced"


def claims(*tied):
    """Made-up your-sentence claims: each (sentence, kind, heads, margin) tied, and one untied pattern."""
    made = {"short": {"sink": {"heads": [(5, 0)], "tied": False, "margin": 0.2}}}
    for sentence, kind, heads, margin in tied:
        made.setdefault(sentence, {})[kind] = {"heads": heads, "tied": True, "margin": margin}
    return made


def test_the_honesty_note_names_every_tie_in_words():
    rule = ("For the three sentences the page offers, the build checks that the heads the table names are the ones "
            "the 32-bit model names by the same rule")
    assert your_sentence.ties_text(claims()) == rule + "; none is tied.", \
        "with no tie, the rule's sentence ends by saying so: one whole sentence, its punctuation its own"
    one = ("coreference", "pronoun", [(3, 1), (5, 11)], 0.0035)
    two = ("long", "previous", [(0, 2), (1, 0)], 0.00123)
    assert your_sentence.ties_text(claims(one)) == rule + (
        f". Tied: the coreference sentence's pronoun link, layer 4, head 2 and layer 6, head 12, {num(0.0035, 4)} apart "
        "in the 32-bit model."), "a tie names the sentence, the pattern and both heads, counted from 1"
    assert your_sentence.ties_text(claims(one, two)) == rule + (
        f". Tied: the coreference sentence's pronoun link, layer 4, head 2 and layer 6, head 12, {num(0.0035, 4)} apart "
        f"in the 32-bit model; the long sentence's previous token, layer 1, head 3 and layer 2, head 1, "
        f"{num(0.00123, 4)} apart in the 32-bit model."), "several ties are listed in order, separated by semicolons"


def test_the_recap_word_for_one_string_in_a_few():
    assert [watch_it_write.WORDS.line(watch_it_write.NUMBER_WORDS[n]) for n in range(3, 9)] == \
        ["three", "four", "five", "six", "seven", "eight"], "the recap's number words are the numbers they name"
    assert [watch_it_write.WORDS.line(section) for section in watch_it_write.ORDINALS] == \
        ["first", "second", "third", "fourth", "fifth", "sixth"], "ORDINALS[i] names output digit i, counted from 0"
