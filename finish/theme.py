"""What the theme's templates leave out, added to the finished pages, so no template of the theme is copied here.

- The search dialog's accessible name (axe: aria-dialog-name). Material 9.8.2 writes
  `<div class="md-search" data-md-component="search" role="dialog">` without one; Zensical writes its own search,
  named. The name is the one the theme gives the dialog's search field, in the page's language.
"""
import re

from .site import FinishError

_DIALOG = re.compile(r'<div class="md-search" data-md-component="search" role="dialog">')
_FIELD = re.compile(r'<input type="text" class="md-search__input" name="query" aria-label="([^"]+)"')


def name_the_search_dialog(html, name):
    dialog = _DIALOG.search(html)
    if dialog is None:
        return html
    field = _FIELD.search(html, dialog.end())
    if field is None:
        raise FinishError(f"{name}: the theme's search dialog has no labelled search field to take its name from")
    return f'{html[:dialog.end() - 1]} aria-label="{field.group(1)}">{html[dialog.end():]}'


def run(site):
    for page in site.pages:
        page.update(name_the_search_dialog(page.html, page.name))
