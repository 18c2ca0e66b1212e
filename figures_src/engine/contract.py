"""The rules the page's JavaScript shares with the build, written once in Python and emitted for the browser.

The build publishes them as small ES modules, javascripts/contract.js and contract-problems.js (MODULES;
figures_src/pages/index.py declares the item), beside the minified scripts that import them, so no rule is
written in both languages:

- number formats: the digits of a cell, a table, a problem and a weight worked by hand, and the tie rule (text.py);
- typesetting: the pattern of a symbol with a subscript (text.SUBSCRIPTED);
- colour scales and the text-colour rule (heatmap.py): each scale's nodes as hex, the masked cells' grey, the
  two text colours and the luminance at which dark text takes over;
- the example schema's part the heatmap reads: the steps it draws from, and at most MAX_TOKENS queries or keys
  (embed.py).

The algorithms that apply them (formatNumber, the colour ramp) are the few lines each language needs;
tests/test_contract.py runs both over the same cases. The page view carries these files (within its 10 KB), so
each holds only what its page's scripts read, as compact as a minified script. The Content-Security-Policy is a rule of the HTML,
not of the scripts: mkdocs.yml's content_security_policy, which finish/policy.py writes into every page overrides/main.html renders.
"""
import json
import re
import sys

from .embed import DRAWN_STEPS, MAX_TOKENS
from .heatmap import DARK_TEXT, LIGHT_TEXT, MASKED_FILL, TEXT_THRESHOLD, scale_nodes
from .text import BY_HAND_DIGITS, DIGITS, PROBLEM_DIGITS, PROBLEM_WIDE_CHARS, SUBSCRIPTED, TIE_DIGITS, TIE_NOISE

# Each page loads only what its scripts read: a module per reader, published beside the scripts that import it.
MODULES = {
    "contract.js": ("DIGITS", "TIE_DIGITS", "TIE_NOISE", "BY_HAND_DIGITS", "DRAWN_STEPS", "MAX_TOKENS", "DIVERGING", "SEQUENTIAL",
                    "MASKED_FILL", "TEXT_COLOURS", "TEXT_THRESHOLD"),  # the heatmap's scripts (attention-math.js, heatmap.js)
    "contract-problems.js": ("PROBLEM_DIGITS", "PROBLEM_WIDE_CHARS", "SUBSCRIPTED"),  # problems.js
}


def constants():
    """{name: value} of every rule the JavaScript reads, as it reads them."""
    return {
        "DIGITS": DIGITS,
        "TIE_DIGITS": TIE_DIGITS,
        "TIE_NOISE": TIE_NOISE,
        "BY_HAND_DIGITS": BY_HAND_DIGITS,
        "PROBLEM_DIGITS": PROBLEM_DIGITS,
        "PROBLEM_WIDE_CHARS": PROBLEM_WIDE_CHARS,
        "DRAWN_STEPS": list(DRAWN_STEPS),
        "MAX_TOKENS": MAX_TOKENS,
        "DIVERGING": " ".join(scale_nodes("scores")),
        "SEQUENTIAL": " ".join(scale_nodes("weights")),
        "MASKED_FILL": MASKED_FILL.lstrip("#"),
        "TEXT_COLOURS": [DARK_TEXT, LIGHT_TEXT],
        "TEXT_THRESHOLD": TEXT_THRESHOLD,
        "SUBSCRIPTED": SUBSCRIPTED,
    }


def literal(value):
    """`value` as JavaScript: JSON, or a regular expression literal (the same syntax in both languages for the
    patterns here; `u`: its characters are code points, as in Python)."""
    if isinstance(value, re.Pattern):
        if "/" in value.pattern or "\n" in value.pattern or value.flags & ~re.UNICODE:
            raise ValueError(f"{value.pattern!r} cannot be written as a JavaScript /…/u literal as it is")
        return f"/{value.pattern}/u"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def module(name):
    """ES module `name` of MODULES: one `export const` of its rules, written as compactly as a minified script."""
    rules = constants()
    return "export const " + ",".join(f"{rule}={literal(rules[rule])}" for rule in MODULES[name]) + ";\n"


def public(_):
    """The Snippets item's files: {path under generated/public/: text}."""
    return {f"javascripts/{name}": module(name) for name in MODULES}


if __name__ == "__main__":  # the Node unit tests read the contract from here (tests/js/contract-loader.mjs)
    print(module(sys.argv[1]), end="")
