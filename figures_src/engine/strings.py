"""The words our JavaScript shows, one string table per reader and language, emitted with the contract.

A script's words live in `words/scripts/<reader>.md` (and, in Chinese, `words/zh/scripts/<reader>.md`), a words
file like any page's (engine/words.py): one section per string, each on one line, its holes `{{ name }}` left for
the script to fill. The build publishes each file as a small ES module, `javascripts/strings-<reader>.js` (the
Chinese build's at `zh/javascripts/strings-<reader>.js`):

    export const S={"status-loading":"Loading the model…","status-size":"Downloading the model ({{ size }})…"};

A script reads its table through docs/javascripts/dom.js's `strings`, which imports the module of the page's
language (`<html lang>`), and `fill`s a string's holes (they live in dom.js, which every widget imports, not in a
module of their own: a file more cost the heatmap's page view about 90 bytes gzipped, against its 10 KB budget):

    import { fill, strings } from "../../javascripts/dom.js";
    const S = await strings("smollm");
    status.textContent = fill(S["status-size"], { size: "93 MB" });

So no word a reader sees is a literal in the JavaScript, and a language is a folder of words files: the Chinese
build fails, listing them, when a section of an English table has no Chinese entry (figures_src/build.py).
"""
import json
import sys
from pathlib import Path

from .errors import BuildError
from .words import ROOT, Words, _one_line

FOLDER = "words/scripts"
# The readers that have a string table, named here and not found by a glob: a build records the files an item reads,
# not a folder's listing (engine/inputs.py), so a new table is published because this line changed.
READERS = ("heatmap", "heatmap-static", "problems", "smollm", "watch-it-write", "your-sentence")
# The tables a page needs as it loads travel in the page itself: the heatmap's, in its template (every page has it;
# figures_src/pages/index.py writes the table into it), so a page's first view loads no table of its own and stays
# within its JavaScript budget. `json(reader)` is what the page carries.
IN_PAGE = ("heatmap",)


def readers():
    """READERS, checked against the words files of words/scripts/."""
    files = sorted(path.stem for path in (ROOT / FOLDER).glob("*.md"))
    if files != sorted(READERS):
        raise BuildError(f"{FOLDER}/: its files ({', '.join(files)}) are not engine/strings.py's READERS "
                         f"({', '.join(READERS)}): name a new reader's table there")
    return READERS


def table(reader):
    """{section: its text on one line, holes unfilled} of one reader's words file, in the file's order."""
    words = Words(f"{FOLDER}/{reader}.md")
    return {name: _one_line(text, f"{words.path}, section {name}") for name, text in words.sections().items()}


def as_json(reader):
    """The reader's table as compact JSON, as a page carries it (IN_PAGE)."""
    return json.dumps(table(reader), ensure_ascii=False, separators=(",", ":"))


def module(reader):
    """The reader's table as one `export const S`, as compact as a minified script."""
    return "export const S=" + as_json(reader) + ";\n"


def public(_):
    """The Snippets item's files: {path under generated/public/: text}."""
    return {f"javascripts/strings-{reader}.js": module(reader) for reader in readers() if reader not in IN_PAGE}


if __name__ == "__main__":  # the Node unit tests read a table from here (tests/js/contract-loader.mjs)
    print(module(sys.argv[1]), end="")
