"""Compare two built sites (or two generated/ folders) file by file: what a change to the build really changed.

    .venv/bin/python scripts/compare_sites.py OLD_SITE NEW_SITE [--context 2]

Build both with the same SOURCE_DATE_EPOCH (the sitemap carries the build date). Prints the files only in one
tree, then, for each file that differs, the first differing lines (or, for a long line such as inlined SVG, the
first differing stretch of characters). Exits 1 when the trees differ.
"""
import argparse
import difflib
import sys
from pathlib import Path

SKIP_SUFFIXES = {".gz"}  # compressed twins of files compared as text (sitemap.xml.gz)


def files(root):
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.suffix not in SKIP_SUFFIXES}


def first_difference(old, new, context):
    """A short description of where two texts first part ways."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    diff = list(difflib.unified_diff(old_lines, new_lines, lineterm="", n=context))
    shown = []
    for line in diff[2:]:
        if len(line) > 200 and line[0] in "+-":
            partner = next((other for other in diff if other[0] in "+-" and other[0] != line[0]), "")
            start = next((i for i, (a, b) in enumerate(zip(line[1:], partner[1:])) if a != b), 0)
            line = f"{line[0]}…{line[1 + max(0, start - 60):1 + start + 100]}…"
        shown.append(line)
        if len(shown) >= 12:
            shown.append("…")
            break
    return "\n".join(shown)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--context", type=int, default=1, help="lines of context around a difference")
    args = parser.parse_args(argv)
    old, new = files(args.old), files(args.new)
    for path in sorted(old - new):
        print(f"only in {args.old}: {path}")
    for path in sorted(new - old):
        print(f"only in {args.new}: {path}")
    changed = []
    for path in sorted(old & new):
        a, b = (args.old / path).read_bytes(), (args.new / path).read_bytes()
        if a != b:
            changed.append(path)
            print(f"\n== {path}")
            try:
                print(first_difference(a.decode("utf-8"), b.decode("utf-8"), args.context))
            except UnicodeDecodeError:
                print(f"(binary: {len(a)} -> {len(b)} bytes)")
    same = len(old & new) - len(changed)
    print(f"\n{same} files identical, {len(changed)} differ, {len(old - new)} only in old, {len(new - old)} only in new")
    return 1 if changed or old != new else 0


if __name__ == "__main__":
    sys.exit(main())
