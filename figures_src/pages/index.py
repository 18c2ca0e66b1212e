"""Attention as a weighted average (docs/index.md): the running sentence's weights, shown before anything else,
and the list of the site's pages, made from mkdocs.yml's nav and each page's `description:` front matter."""
from pathlib import Path

import yaml

from ..engine import Snippets, example_heatmap
from ..engine.errors import BuildError
from ..engine.style import PHONE_WIDTH
from .softmax import EX_SOFTMAX

PAGE = "index.md"
ROOT = Path(__file__).resolve().parents[2]
# What the list of pages is made from: the nav, and every page it lists (the build checks that none is missing).
INPUTS = ["mkdocs.yml", "docs/index.md", "docs/qkv.md", "docs/scores.md", "docs/scaling.md", "docs/softmax.md",
          "docs/demo.md", "docs/output.md", "docs/multi-head.md", "docs/masks.md", "docs/cost.md", "docs/learning.md",
          "docs/watch-it-write.md",
          "docs/problems.md", "docs/real-heads.md", "docs/your-sentence.md", "docs/cite.md"]


class _ConfigLoader(yaml.SafeLoader):
    """Reads mkdocs.yml for its nav: MkDocs' own tags (!ENV, !relative) are read as nothing."""


_ConfigLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def front_matter(path):
    """A Markdown file's YAML front matter as a dict ({} when it has none)."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---\n", 4)
    if end < 0:
        raise BuildError(f"{path.relative_to(ROOT)}: its front matter has no closing ---")
    return yaml.safe_load(text[4:end]) or {}


def nav_pages():
    """mkdocs.yml's nav as [(title, Markdown file)], in order."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_ConfigLoader)
    nav = config.get("nav") or []
    pages = []
    for entry in nav:
        if not (isinstance(entry, dict) and len(entry) == 1 and isinstance(next(iter(entry.values())), str)):
            raise BuildError(f"mkdocs.yml: nav entry {entry!r} is not `Title: page.md`; the list on Home reads only those")
        ((title, file),) = entry.items()
        pages.append((title, file))
    return pages


def pages_data():
    """Every nav page but Home: its title, its file and the one-line `description:` of its front matter."""
    pages = []
    for title, file in nav_pages():
        if f"docs/{file}" not in INPUTS:
            raise BuildError(f"figures_src/pages/index.py: add docs/{file} to INPUTS (the list on Home reads it)")
        description = front_matter(ROOT / "docs" / file).get("description")
        if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
            raise BuildError(f"docs/{file}: give the page a one-line `description:` in its front matter "
                             "(Home's list of pages shows it)")
        if file != PAGE:
            pages.append({"title": title, "file": file, "description": description.strip()})
    return pages


def pages_snippets(pages):
    """A numbered list; each description starts lower-case after its colon unless it opens with an acronym."""
    def lead(text):
        return text if text[:2].isupper() else text[0].lower() + text[1:]
    return {"": "\n".join(f"{number}. [{page['title']}]({page['file']}): {lead(page['description'])}"
                          for number, page in enumerate(pages, 1))}


def weights_caption(example):
    return (
        f"Attention weights for “{' '.join(example['tokens'])}”. Each row is one query and adds up to 1; "
        "column j says how much of key j's value that query takes. Brighter means more."
    )


ITEMS = [
    example_heatmap("home-weights", EX_SOFTMAX, "weights", size=(PHONE_WIDTH, 3.2),
                    title="Attention weights of a five-token sentence: who looks at whom.", caption=weights_caption,
                    controls=()),  # the weights alone: the controls come on the pages that explain them
    Snippets("index-pages", data=pages_data, snippets=pages_snippets),
]
