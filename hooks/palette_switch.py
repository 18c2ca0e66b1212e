"""Publish the theme's palette stylesheet without its colour-switching rule, which restyles every page at load.

Material's palette component (the light/dark toggle) runs as every page starts, not only when the reader
switches. It sets `data-md-color-switching` on <body>, reads the header's computed colours for the
theme-color meta tag, and removes the attribute a task later. The stylesheet's one rule for that attribute,
`[data-md-color-switching] *` (and the two pseudo-elements), turns transitions off while colours change. A
rule that reaches every element through an attribute on <body> makes Chromium restyle every element each
time the attribute comes or goes: twice at load, on every page, whatever the reader does.
Measured at 4× CPU, median of 5 loads: style recalculation 438 → 311 ms on learning, 417 → 295 ms on output.

Without the rule, a reader who switches schemes sees the elements the theme gives a colour transition (links,
navigation links, code blocks, table rows, the search box: 125–250 ms) fade to their new colour instead of
changing at once; the page's background and text change at once, as before.
A tool that runs no hooks (Zensical) publishes the theme's file as it is: the toggle works the same, and the
page pays the restyles.
"""
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

PALETTE = re.compile(r"assets/stylesheets/palette\.[0-9a-f]+\.min\.css")
SWITCHING_RULE = ("[data-md-color-switching] *,[data-md-color-switching] :after,"
                  "[data-md-color-switching] :before{transition-duration:0s!important}")


def without_switching_rule(css, name):
    if css.count(SWITCHING_RULE) != 1:
        raise PluginError(f"palette_switch: {name} does not hold the rule {SWITCHING_RULE} once. Material has "
                          "changed it: see what its palette component does at load, then update or drop this hook")
    return css.replace(SWITCHING_RULE, "")


def on_files(files, config):
    sheets = [file for file in files if PALETTE.fullmatch(file.src_uri)]
    if len(sheets) != 1:
        raise PluginError(f"palette_switch: the theme has {len(sheets)} stylesheets named like "
                          f"{PALETTE.pattern}, not one (mkdocs.yml sets a palette)")
    sheet = sheets[0]
    css = without_switching_rule(Path(sheet.abs_src_path).read_text(encoding="utf-8"), sheet.src_uri)
    files.remove(sheet)
    files.append(File.generated(config, sheet.src_uri, content=css))
    return files
