"""The interactive heatmap's markup in every page: docs/widgets/heatmap/template.html with its words
(words/widgets/heatmap.md), as the figure build filled it (snippets/heatmap-template.md, figures_src/pages/index.py),
put into the empty <template id="aih-heatmap"> that overrides/main.html leaves in each page the theme renders,
404.html included. A page takes the one of its language (site.generated_for: generated/zh/ for a zh/ page).

heatmap.js clones the template for each heatmap figure and fills in the numbers; the words are the template's,
and the few the script writes itself are its string table's (words/scripts/heatmap.md).
An embed page (embed/<id>/) has no theme and no template: its embed.js takes the one in 404.html. The template
file's lines go in one level deeper than the empty element stood, so a page is the same, byte for byte, as if the
theme had rendered the markup itself. mkdocs.yml's exclude_docs keeps the file from being published on its own.
"""
import re

from .site import FinishError

TEMPLATE = "snippets/heatmap-template.md"  # under the figure build's folder of the page's language
EMPTY = re.compile(r'^([ \t]*)<template id="aih-heatmap"></template>$', re.M)
INDENT = "  "


def filled(html, markup, name):
    """`html` with its empty heatmap template holding `markup`, each line indented one level below the element."""
    found = list(EMPTY.finditer(html))
    if len(found) != 1:
        raise FinishError(f'{name}: {len(found)} empty <template id="aih-heatmap"> on a line of its own, where '
                          "overrides/main.html leaves one in every page")
    indent = found[0].group(1)
    lines = "".join(f"{indent}{INDENT}{line}" if line.strip() else line for line in markup.splitlines(keepends=True))
    start, end = found[0].span()
    return f'{html[:start]}{indent}<template id="aih-heatmap">\n{lines}{indent}</template>{html[end:]}'


def markup(folder):
    """The filled template under `folder` (generated/ or generated/<lang>/), checked."""
    path = folder / TEMPLATE
    if not path.is_file():
        raise FinishError(f"{path}: the interactive heatmap's template is missing (run `make figures`: the figure "
                          "build fills docs/widgets/heatmap/template.html)")
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n") or "</template>" in text:
        raise FinishError(f"{path}: the markup of the template's content, ending in a new line, with no "
                          "</template> of its own")
    return text


def run(site):
    filled_in = {}  # folder -> its template's markup
    for page in site.pages:
        folder = site.generated_for(page)
        if folder not in filled_in:
            filled_in[folder] = markup(folder)
        page.update(filled(page.html, filled_in[folder], page.name))
