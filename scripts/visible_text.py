"""What a reader can see, compared between two built sites: proof that a change to the build moved no word or number.

    .venv/bin/python scripts/visible_text.py OLD_SITE NEW_SITE

For every page (every .html file), the text a reader meets, with runs of whitespace made one space: the text of the
page (a <template>'s and a <noscript>'s included, scripts and styles left out) and the words in its attributes
(alt, title, aria-*, placeholder, value, content, data-*). Then the search index's entries, every worked
example's and problem set's JSON, compared as parsed values, and the downloads: each figure's CSV, BibTeX and
SVG (its text), and the problems kit. Prints each difference with its page and exits 1 if
there is any; the byte-level companion is scripts/compare_sites.py.
"""
import argparse
import difflib
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

WORDS_IN = re.compile(r"alt|title|aria-.*|placeholder|value|content|data-.*")
HIDDEN = {"script", "style"}
SEARCH_INDEXES = ["search/search_index.json", "search.json"]
JSON_FOLDERS = ["examples", "problems"]
DOWNLOADS = ["figures/*.csv", "figures/*.bib", "figures/*.svg", "problems/*.py"]  # the figures' words and numbers


class Visible(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in HIDDEN:
            self.hidden += 1
        for name, value in attrs:
            if value and WORDS_IN.fullmatch(name):
                self.lines.append(f"[{tag} {name}] {' '.join(value.split())}")

    def handle_endtag(self, tag):
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        text = " ".join(data.split())
        if text and not self.hidden:
            self.lines.append(text)


def visible(path):
    parser = Visible()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.lines


def search_entries(path):
    index = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(index, dict):
        index = index.get("docs", index.get("items", []))
    return [f"{entry.get('location', '')}: {' '.join(str(entry.get('title', '')).split())} | "
            f"{' '.join(str(entry.get('text', '')).split())}" for entry in index]


def compare(name, old, new):
    if old == new:
        return 0
    print(f"--- {name}")
    for line in list(difflib.unified_diff(old, new, lineterm="", n=1))[2:40]:
        print("   ", line[:300])
    return 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    differences = 0
    pages = lambda root: {p.relative_to(root).as_posix() for p in root.rglob("*.html")}  # noqa: E731
    old_pages, new_pages = pages(args.old), pages(args.new)
    for only, where in ((old_pages - new_pages, "old"), (new_pages - old_pages, "new")):
        for page in sorted(only):
            print(f"only in {where}: {page}")
            differences += 1
    for page in sorted(old_pages & new_pages):
        differences += compare(page, visible(args.old / page), visible(args.new / page))
    for index in SEARCH_INDEXES:
        if (args.old / index).exists() or (args.new / index).exists():
            differences += compare(index, search_entries(args.old / index), search_entries(args.new / index))
    for folder in JSON_FOLDERS:
        found = lambda root: {p.name: p for p in (root / folder).glob("*.json")}  # noqa: E731
        old_files, new_files = found(args.old), found(args.new)
        for name in sorted(old_files.keys() | new_files.keys()):
            if name not in old_files or name not in new_files:
                print(f"only in {'old' if name in old_files else 'new'}: {folder}/{name}")
                differences += 1
            elif json.loads(old_files[name].read_text(encoding="utf-8")) != json.loads(new_files[name].read_text(encoding="utf-8")):
                print(f"--- {folder}/{name}: the parsed JSON differs")
                differences += 1
    for pattern in DOWNLOADS:
        found = lambda root: {p.relative_to(root).as_posix(): p for p in root.glob(pattern)}  # noqa: E731
        old_files, new_files = found(args.old), found(args.new)
        for name in sorted(old_files.keys() | new_files.keys()):
            if name not in old_files or name not in new_files:
                print(f"only in {'old' if name in old_files else 'new'}: {name}")
                differences += 1
            else:
                read = visible if name.endswith(".svg") else lambda p: p.read_text(encoding="utf-8").splitlines()
                differences += compare(name, read(old_files[name]), read(new_files[name]))
    print(f"{differences} difference(s) in what a reader sees" if differences else
          f"what a reader sees is the same: {len(old_pages)} pages, the search index, "
          f"{' and '.join(JSON_FOLDERS)} JSON, the figures' CSV, BibTeX and SVG, the problems kit")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
