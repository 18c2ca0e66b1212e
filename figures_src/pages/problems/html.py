"""The HTML of one problem set on the Problems page, for its first variant.

It works without JavaScript: the inputs as matrices, an answer grid to fill in, the hints and the solution
in collapsible blocks. docs/widgets/problems/problems.js builds the same markup from problems/<set>.json when
the reader checks, asks for a hint or moves to another variant, so the two must stay in step (the class
names below are the contract; tests/browser/test_problems_browser.py compares them). The markup stays here,
beside that contract; every word in it (buttons, notes, the variant line, an answer box's label) is a section of
words/problems.md, filled with WORDS.html, which escapes each value given as text.

The site's search indexes a set's words (its introduction, prompt and hints), not the numbers of its first
variant: the matrices, the answer grid, the buttons and the solution carry `data-search-exclude`. The theme's
parser stops skipping at the first closing tag of the same name, so the attribute sits on elements that hold
none of their own kind (a <table>, a <fieldset>, a <details>), not on a <div> that holds <div>s. The
attribute stays in the built page, where nothing reads it (finish/details.py's pattern allows it).
"""
from html import escape

from ...engine import BuildError, Words
from ...engine.text import PROBLEM_WIDE_CHARS, typeset
from ...engine.words import Filled, listed
from .sets import concepts_title, fmt

WORDS = Words("words/problems.md")  # the page's sentences, the blocks' words and the English grammar they use


def number_words():
    """The words for 0, 1, 2, … (words/problems.md, number-words): "no", "one", "two", …"""
    return WORDS.text("number-words").split()


def in_words(count):
    words = number_words()
    if not 0 <= count < len(words):
        raise BuildError(f"problems: no word for {count}; extend number-words in {WORDS.path}")
    return words[count]


def intro_markdown(data):
    """The page's opening paragraph, its counts taken from the declared sets: the numeric sets in `data`, then
    the one set of conceptual questions."""
    links = [WORDS.line("problems-intro/link", title=s["title"], id=s["set"]) for s in data]
    return WORDS.fill("problems-intro", total=in_words(len(data) + 1), numeric=in_words(len(data)),
                      links=listed(links), concepts_title=concepts_title()) + "\n"


def variants_markdown(data):
    """How many variants each set has: the usual count, then the sets that have another."""
    counts = [len(s["variants"]) for s in data]
    usual = max(set(counts), key=counts.count)
    others = [WORDS.line("problems-variants/other", title=s["title"], count=in_words(len(s["variants"])))
              for s in data if len(s["variants"]) != usual]
    counts = (WORDS.line("problems-variants/except", numeric=in_words(len(data)), usual=in_words(usual),
                         others=listed(others)) if others else
              WORDS.line("problems-variants/all-alike", numeric=in_words(len(data)), usual=in_words(usual)))
    return WORDS.fill("problems-variants", counts=counts) + "\n"


def matrix_html(m):
    """<table class="aih-problem-matrix">: caption, column labels, one row per row label."""
    head = '<tr><td></td>' + "".join(f'<th scope="col">{typeset(c)}</th>' for c in m["cols"]) + "</tr>"
    body = "".join(
        f'<tr><th scope="row">{escape(r)}</th>' + "".join(f"<td>{fmt(v)}</td>" for v in row) + "</tr>"
        for r, row in zip(m["rows"], m["values"])
    )
    return (f'<div class="aih-problem-scroll"><table class="aih-problem-matrix" data-search-exclude><caption>{typeset(m["label"])}</caption>'
            f"<thead>{head}</thead><tbody>{body}</tbody></table></div>")


def tolerance_text(tolerance):
    return WORDS.line("tolerance/exact") if tolerance == 0 else WORDS.line("tolerance/within", tolerance=fmt(tolerance))


def cell_label(part, i, row, j, column):
    """An answer box's aria-label: its part, row and column (counted from 1) with their labels. The labels are
    data (a filled section too), so each is escaped as text: str() drops a Filled's "already markup" mark."""
    return WORDS.html("problem-cell", part=str(part), row=i + 1, row_label=str(row), col=j + 1, col_label=str(column))


def grid_class(p):
    """An answer grid whose answers print longer than PROBLEM_WIDE_CHARS (65,536,000) gets wider boxes, so a phone
    shows the whole entry (problems.js's answerGrid picks the same class)."""
    wide = max(len(fmt(x)) for row in p["values"] for x in row) > PROBLEM_WIDE_CHARS
    return "aih-problem-grid aih-problem-grid--wide" if wide else "aih-problem-grid"


def grid_html(p, k, waiting=False):
    """An answer grid: one labelled text input per entry, in row-major order.

    Each input waits in its cell's <noscript>: without JavaScript the browser shows it there, to type into
    beside the solution. With it, the cell is empty and keeps the input's place (problems.css, td.aih-slot)
    until docs/widgets/problems/problems.js draws the grid from the set's data, with live inputs, as the set nears
    the viewport (why: DECISIONS.md, "The problems page"). A grid that `waiting` in a <noscript> of its own
    (problem_html) holds its inputs in the cells as they are."""
    head = '<tr><td></td>' + "".join(f'<th scope="col">{typeset(c)}</th>' for c in p["cols"]) + "</tr>"
    rows = []
    for i, r in enumerate(p["rows"]):
        inputs = [
            f'<input type="text" inputmode="decimal" autocomplete="off" spellcheck="false" '
            f'data-part="{k}" data-row="{i}" data-col="{j}" '
            f'aria-label="{cell_label(p["label"], i, r, j, c)}">'
            for j, c in enumerate(p["cols"])
        ]
        cells = "".join(f"<td>{box}</td>" if waiting else f'<td class="aih-slot"><noscript>{box}</noscript></td>'
                        for box in inputs)
        rows.append(f'<tr><th scope="row">{escape(r)}</th>{cells}</tr>')
    return (f'<fieldset class="aih-problem-part" data-search-exclude><legend>{typeset(p["label"])} '
            f'<span class="aih-problem-tolerance">({tolerance_text(p["tolerance"])})</span></legend>'
            f'<div class="aih-problem-scroll"><table class="{grid_class(p)}"><thead>{head}</thead><tbody>{"".join(rows)}</tbody>'
            "</table></div></fieldset>")


def steps_html(steps):
    out = []
    for s in steps:
        out.append(f"<p>{typeset(s['text'])}</p>")
        if "matrix" in s:
            out.append(matrix_html(s["matrix"]))
    return "".join(out)


def problem_html(data, src, waiting=False):
    """The block for one set (its first variant); `src` is the JSON's path from the site root.

    A `waiting` block keeps its variant's inputs and answer grid, most of its elements, as the text of a
    <noscript class="aih-near"> each: without JavaScript they are shown as they are (problems.css); with it,
    problems.js draws them from the set's data as the set nears the viewport, and overrides/main.html's early
    script puts each in as it is parsed for a reader who arrives in the middle of the page. So the page at load holds the
    elements of the sets near the top only (tests/browser/test_load_budget.py's DOM budget)."""
    def near(markup):
        return f'<noscript class="aih-near">{markup}</noscript>' if waiting else markup

    v = data["variants"][0]
    count = len(data["variants"])
    tolerances = sorted({p["tolerance"] for p in v["parts"]})
    tolerance_note = (WORDS.html("problem-tolerance/within", tolerances=listed([tolerance_text(t) for t in tolerances if t],
                                                                                 "or"))
                      if any(tolerances) else WORDS.html("problem-tolerance/exact"))
    number = Filled('<span class="aih-problem__number">1</span>')
    variant_id = Filled(f'<code class="aih-problem__id">{escape(v["id"])}</code>')
    lines = [
        f'<div class="aih-problem" id="problem-{data["set"]}" data-src="{escape(src)}">',
        f'<p class="aih-problem__variant">{WORDS.html("problem-variant", number=number, count=count, id=variant_id)}</p>',
        f'<p class="aih-problem__prompt">{typeset(v["prompt"])}</p>',
        '<div class="aih-problem__inputs">' + near("".join(matrix_html(m) for m in v["inputs"])) + "</div>",
        '<form class="aih-problem__answer">',
        '<div class="aih-problem__parts">' + near("".join(grid_html(p, k, waiting) for k, p in enumerate(v["parts"])))
        + "</div>",
        f'<p class="aih-problem__tolerance">{tolerance_note}</p>',
        # shown by problems.js (CSS: .aih-on); Check submits the form, so Enter in a cell checks too
        '<div class="aih-problem__actions" data-search-exclude>'
        f'<button type="submit" class="md-button md-button--primary" data-action="check">{WORDS.html("problem-check")}</button>'
        f'<button type="button" class="md-button" data-action="hint">{WORDS.html("problem-hint")}</button>'
        f'<button type="button" class="md-button" data-action="solution">{WORDS.html("problem-solution")}</button>'
        f'<button type="button" class="md-button" data-action="next">{WORDS.html("problem-next")}</button></div>',
        f'<noscript><p class="aih-problem__nojs">{WORDS.html("problem-no-script")}</p></noscript>',
        '<p class="aih-problem__status" role="status"></p>',
        '<ol class="aih-problem__hints" aria-live="polite"></ol>',
        "</form>",
        # lazy as the answers of the quiz below: parsed in by docs/javascripts/site.js when opened
        f'<details class="note aih-problem__all-hints"><summary>{WORDS.html("problem-hints")}</summary>'
        '<noscript class="aih-lazy"><ol>'
        + "".join(f"<li>{typeset(h)}</li>" for h in v["hints"]) + "</ol></noscript></details>",
        '<details class="success aih-problem__solution" data-search-exclude>'
        f'<summary>{WORDS.html("problem-solution")}</summary>'
        f'<div class="aih-problem__steps">{steps_html(v["solution"])}</div></details>',
        "</div>",
    ]
    return "\n".join(lines) + "\n"


def concepts_html(data, src):
    """The conceptual questions: one form per question, its choices as radio buttons, Check (shown by
    problems.js, which judges the pick against `src`), and the answer with its explanation, which works
    without JavaScript."""
    lines = [f'<div class="aih-quiz" id="problem-{data["set"]}" data-src="{escape(src)}">']
    for number, q in enumerate(data["questions"], 1):
        choices = "".join(
            f'<label><input type="radio" name="{q["id"]}" value="{k}"> {typeset(choice)}</label>'
            for k, choice in enumerate(q["choices"]))
        lines += [
            f'<form class="aih-quiz__question" id="{q["id"]}">',
            f'<fieldset><legend>{number}. {typeset(q["prompt"])}</legend>'
            f"{choices}</fieldset>",
            '<p class="aih-quiz__actions"><button type="submit" class="md-button md-button--primary">'
            f'{WORDS.html("quiz-check")}</button> '
            '<span class="aih-quiz__status" role="status"></span></p>',
            # The answer's body waits as text in a <noscript class="aih-lazy"> until the <details> opens
            # (docs/javascripts/site.js parses it in); without JavaScript it is an ordinary closed <details>.
            f'<details class="success aih-quiz__answer"><summary>{WORDS.html("quiz-answer")}</summary>'
            '<noscript class="aih-lazy">'
            f'<p><strong>{typeset(q["choices"][q["answer"]])}</strong> {typeset(q["explanation"])}</p>'
            "</noscript></details>",
            "</form>",
        ]
    lines.append("</div>")
    return "\n".join(lines) + "\n"
