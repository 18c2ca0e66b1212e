"""The HTML of one problem set on the Problems page, for its first variant.

It works without JavaScript: the inputs as matrices, an answer grid to fill in, the hints and the solution
in collapsible blocks. docs/javascripts/problems.js builds the same markup from problems/<set>.json when
the reader checks, asks for a hint or moves to another variant, so the two must stay in step (the class
names below are the contract; tests/browser/test_problems_browser.py compares them).

The site's search indexes a set's words (its introduction, prompt and hints), not the numbers of its first
variant: the matrices, the answer grid, the buttons and the solution carry `data-search-exclude`. The theme's
parser stops skipping at the first closing tag of the same name, so the attribute sits on elements that hold
none of their own kind (a <table>, a <fieldset>, a <details>), not on a <div> that holds <div>s. The
attribute stays in the built page, where nothing reads it (finish/details.py's pattern allows it).
"""
from html import escape

from ...engine import BuildError
from ...engine.text import typeset
from .sets import CONCEPTS_TITLE, fmt

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")


def in_words(count):
    if not 0 <= count < len(NUMBER_WORDS):
        raise BuildError(f"problems: no word for {count}; extend NUMBER_WORDS")
    return NUMBER_WORDS[count]


def listed(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def intro_markdown(data):
    """The page's opening paragraph, its counts taken from the declared sets: the numeric sets in `data`, then
    the one set of conceptual questions."""
    links = [f"[{s['title']}](#{s['set']})" for s in data]
    total = len(data) + 1
    return (f"Reading about attention and doing it are different skills, so this page has {in_words(total)} sets of "
            f"problems. The first {in_words(len(data))} ask for numbers: {listed(links)}. The last set, "
            f"[{CONCEPTS_TITLE}](#concepts), asks no arithmetic at all.\n")


def variants_markdown(data):
    """How many variants each set has: the usual count, then the sets that have another."""
    counts = [len(s["variants"]) for s in data]
    usual = max(set(counts), key=counts.count)
    others = [f"{s['title']}, which has {in_words(len(s['variants']))}" for s in data if len(s["variants"]) != usual]
    return (f"The first {in_words(len(data))} sets have {in_words(usual)} variants each"
            + (f", except {listed(others)}" if others else "")
            + ". This browser remembers which one you are on; nothing you type leaves the page.\n")


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
    return "exact" if tolerance == 0 else f"±{fmt(tolerance)}"


def grid_html(p, k, waiting=False):
    """An answer grid: one labelled text input per entry, in row-major order.

    Each input waits in its cell's <noscript>: without JavaScript the browser shows it there, to type into
    beside the solution. With it, the cell is empty and keeps the input's place (problems.css, td.aih-slot)
    until docs/javascripts/problems.js draws the grid from the set's data, with live inputs, as the set nears
    the viewport. The page's 125 text boxes were its costliest elements to create at load (Lighthouse's
    blocking time on a phone 540 -> 100 ms, median of 3). A grid that `waiting` in a <noscript> of its own
    (problem_html) holds its inputs in the cells as they are."""
    head = '<tr><td></td>' + "".join(f'<th scope="col">{typeset(c)}</th>' for c in p["cols"]) + "</tr>"
    rows = []
    for i, r in enumerate(p["rows"]):
        inputs = [
            f'<input type="text" inputmode="decimal" autocomplete="off" spellcheck="false" '
            f'data-part="{k}" data-row="{i}" data-col="{j}" '
            f'aria-label="{escape(p["label"])}, row {i + 1} ({escape(r)}), column {j + 1} ({escape(c)})">'
            for j, c in enumerate(p["cols"])
        ]
        cells = "".join(f"<td>{box}</td>" if waiting else f'<td class="aih-slot"><noscript>{box}</noscript></td>'
                        for box in inputs)
        rows.append(f'<tr><th scope="row">{escape(r)}</th>{cells}</tr>')
    return (f'<fieldset class="aih-problem-part" data-search-exclude><legend>{typeset(p["label"])} '
            f'<span class="aih-problem-tolerance">({tolerance_text(p["tolerance"])})</span></legend>'
            f'<div class="aih-problem-scroll"><table class="aih-problem-grid"><thead>{head}</thead><tbody>{"".join(rows)}</tbody>'
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
    tolerance_note = ("Numbers count as right within "
                      + " or ".join(tolerance_text(t) for t in tolerances if t) + " of the exact answer."
                      if any(tolerances) else "Every entry is a whole number: type it exactly.")
    lines = [
        f'<div class="aih-problem" id="problem-{data["set"]}" data-src="{escape(src)}">',
        f'<p class="aih-problem__variant">Variant <span class="aih-problem__number">1</span> of {count} · '
        f'<code class="aih-problem__id">{escape(v["id"])}</code></p>',
        f'<p class="aih-problem__prompt">{typeset(v["prompt"])}</p>',
        '<div class="aih-problem__inputs">' + near("".join(matrix_html(m) for m in v["inputs"])) + "</div>",
        '<form class="aih-problem__answer">',
        '<div class="aih-problem__parts">' + near("".join(grid_html(p, k, waiting) for k, p in enumerate(v["parts"])))
        + "</div>",
        f'<p class="aih-problem__tolerance">{escape(tolerance_note)}'
        + (" Type decimals with a point, e.g. 0.25 or −1.5." if any(tolerances) else "") + "</p>",
        # shown by problems.js (CSS: .aih-on); Check submits the form, so Enter in a cell checks too
        '<div class="aih-problem__actions" data-search-exclude>'
        '<button type="submit" class="md-button md-button--primary" data-action="check">Check</button>'
        '<button type="button" class="md-button" data-action="hint">Hint</button>'
        '<button type="button" class="md-button" data-action="solution">Solution</button>'
        '<button type="button" class="md-button" data-action="next">New variant</button></div>',
        '<noscript><p class="aih-problem__nojs">Checking your answers needs JavaScript; '
        "without it, compare them with the solution below.</p></noscript>",
        '<p class="aih-problem__status" role="status"></p>',
        '<ol class="aih-problem__hints" aria-live="polite"></ol>',
        "</form>",
        # lazy as the answers of the quiz below: parsed in by docs/javascripts/site.js when opened
        '<details class="note aih-problem__all-hints"><summary>Hints</summary><noscript class="aih-lazy"><ol>'
        + "".join(f"<li>{typeset(h)}</li>" for h in v["hints"]) + "</ol></noscript></details>",
        '<details class="success aih-problem__solution" data-search-exclude><summary>Solution</summary>'
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
            '<p class="aih-quiz__actions"><button type="submit" class="md-button md-button--primary">Check</button> '
            '<span class="aih-quiz__status" role="status"></span></p>',
            # The answer's body waits as text in a <noscript class="aih-lazy"> until the <details> opens
            # (docs/javascripts/site.js parses it in); without JavaScript it is an ordinary closed <details>.
            '<details class="success aih-quiz__answer"><summary>Answer</summary><noscript class="aih-lazy">'
            f'<p><strong>{typeset(q["choices"][q["answer"]])}</strong> {typeset(q["explanation"])}</p>'
            "</noscript></details>",
            "</form>",
        ]
    lines.append("</div>")
    return "\n".join(lines) + "\n"
