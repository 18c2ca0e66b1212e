"""What MkDocs' search index reads: highlighted code as plain text, formulas as text, no tables of numbers.

MkDocs' search plugin indexes each page's content before the site is finished (finish/), so the formulas are
still LaTeX there: each is swapped for its search text (finish.mathml.search_text) until the page is rendered,
then put back for the post-build pass to render as MathML.

Pygments wraps every token of a code listing in a <span>; the search plugin walks each of them with
Python's HTML parser, which makes the listings of attention/ (shown with snippets) the most expensive
part of indexing. Between Markdown and the search plugin this hook swaps each highlighted block for the
same code as plain text in a placeholder; once the page is rendered it puts the highlighted block back.
The page's HTML is unchanged. A long listing (more than LISTING_LINES lines: a whole file of the library,
shown in a collapsed block) is left out of the index: it was half of the index, which every page view
downloads, and the prose around it names what it holds. Short blocks (commands, a few lines) stay searchable.
So does a table, unless it is a table of numbers (most of its cells a number: a matrix, a worked step's values):
no reader searches for 0.4417, and the printed matrices of multi-head/, learning/ and block/ took a fifth of the
index.
"""
import html as markup
import re

from mkdocs.exceptions import PluginError

from finish import mathml
from finish.site import FinishError

_BLOCK = re.compile(r'<div class="(?:language-[\w+-]+ )?highlight">.*?</code></pre></div>', re.S)
_SLOT = re.compile(r'<div class="aih-code-slot" data-block="(\d+)"(?: data-search-exclude)?><pre><code>.*?</code></pre></div>', re.S)
LISTING_LINES = 30
_TAG = re.compile(r"<[^>]+>")
_TABLE = re.compile(r"<table\b(?![^>]*data-search-exclude)([^>]*)>(.*?)</table>", re.S)
_CELL = re.compile(r"<td\b[^>]*>(.*?)</td>", re.S)
_NUMBER = re.compile(r"[−\-+]?[\d,]*\.?\d+(?:e[−\-+]?\d+)?")
_MATH_SLOT = re.compile(r'<span class="aih-math-slot" data-math="(\d+)">.*?</span>', re.S)
_blocks = {}  # page src_uri -> the highlighted blocks taken out of it, in order
_formulas = {}  # page src_uri -> the math marks taken out of it, in order


def on_page_content(html, page, config, files):
    taken = _blocks[page.file.src_uri] = []

    def swap(match):
        taken.append(match.group(0))
        plain = _TAG.sub("", match.group(0))
        exclude = " data-search-exclude" if plain.count("\n") > LISTING_LINES else ""
        return f'<div class="aih-code-slot" data-block="{len(taken) - 1}"{exclude}><pre><code>{plain}</code></pre></div>'

    return _TABLE.sub(numbers_unsearched, _BLOCK.sub(swap, formulas_as_text(html, page.file.src_uri)))


def formulas_as_text(html, name):
    """Each formula as its search text in a placeholder; on_post_page puts the mark back."""
    taken = _formulas[name] = []

    def swap(match):
        display, inline = match.groups()
        latex = markup.unescape(display or inline)
        try:
            text = mathml.search_text(mathml.latex_to_mathml(latex, display is not None, name))
        except (FinishError, ValueError, mathml.ElementTree.ParseError) as exc:
            raise PluginError(f"{name}: no search text for the formula {latex.strip()!r}: {exc}") from None
        taken.append(match.group(0))
        return f'<span class="aih-math-slot" data-math="{len(taken) - 1}">{text}</span>'

    return mathml.MARK.sub(swap, html)


def numbers_unsearched(match):
    """A table whose cells are mostly numbers, marked for the search index to leave out."""
    cells = [_TAG.sub("", cell).strip() for cell in _CELL.findall(match.group(2))]
    numbers = sum(bool(_NUMBER.fullmatch(cell)) for cell in cells)
    if cells and numbers * 2 > len(cells):
        return f"<table{match.group(1)} data-search-exclude>{match.group(2)}</table>"
    return match.group(0)


def on_post_page(output, page, config):
    taken, formulas = _blocks.pop(page.file.src_uri, []), _formulas.pop(page.file.src_uri, [])
    output = _SLOT.sub(lambda m: taken[int(m.group(1))], output)
    output = _MATH_SLOT.sub(lambda m: formulas[int(m.group(1))], output)
    if 'class="aih-code-slot"' in output or 'class="aih-math-slot"' in output:
        raise PluginError(f"{page.file.src_uri}: a code block's or a formula's placeholder was left in the page")
    return output


def on_post_build(config):
    mathml.save_cache()  # the formulas converted for search text, kept for the pass that renders them
