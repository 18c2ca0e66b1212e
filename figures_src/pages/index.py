"""Attention as a weighted average (docs/index.md): the running sentence's weights, shown before anything else,
and the list of the site's pages, made from mkdocs.yml's nav and each page's `description:` front matter.
The home page also publishes what every page's JavaScript shares with the build: javascripts/contract.js
(figures_src/engine/contract.py)."""
from pathlib import Path

import yaml

from .. import registry
from ..engine import Snippets, Words, contract, example_heatmap, strings
from ..engine.embed import heatmap_template
from ..engine.errors import BuildError
from ..engine.notebooks import code, markdown, notebook
from ..engine.site import docs_path, nav_title
from ..engine.style import PHONE_WIDTH
from . import sentences
from .softmax import EX_SOFTMAX

ROOT = Path(__file__).resolve().parents[2]
WORDS = Words("words/index.md")


def front_matter(path):
    """A Markdown file's YAML front matter as a dict ({} when it has none)."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---\n", 4)
    if end < 0:
        raise BuildError(f"{path.relative_to(ROOT)}: its front matter has no closing ---")
    return yaml.safe_load(text[4:end]) or {}


def pages_data():
    """Every nav page but Home: its title, its file and the one-line `description:` of its front matter."""
    pages = []
    for page in registry.nav():
        path = docs_path(page.markdown)
        description = front_matter(path).get("description")
        if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
            raise BuildError(f"{path.relative_to(ROOT)}: give the page a one-line `description:` in its front matter "
                             "(Home's list of pages shows it)")
        if page.module != __name__:
            pages.append({"title": nav_title(page.title), "file": page.markdown, "description": description.strip()})
    return pages


def lead(text):
    """A description after Home's colon: lower-case first letter ("Softmax turns…" -> "softmax turns…"), unless its
    first word is a name spelled with a capital or a digit after its first letter (SmolLM2, RoPE, GPT-2, KV)."""
    first = text.split()[0] if text.strip() else ""
    if any(c.isupper() or c.isdigit() for c in first[1:]):
        return text
    return text[:1].lower() + text[1:]


def pages_snippets(pages):
    """A numbered list; each description starts lower-case after its colon unless it opens with a name (lead)."""
    return {"": "\n".join(f"{number}. " + WORDS.line("pages-item", title=page["title"], file=page["file"],
                                                      description=lead(page["description"]))
                          for number, page in enumerate(pages, 1))}


def weights_caption(example):
    return WORDS.line("home-weights-caption", sentence=" ".join(example["tokens"]))


def notebook_cells():
    return [
        *sentences.notebook_cells("RUNNING"),
        markdown(WORDS.fill("nb-attend")),
        code("""
            tokens = list(RUNNING.tokens)
            X = token_vectors(RUNNING)
            W_Q, W_K, W_V = projections(RUNNING)
            Q, K, V = X @ W_Q, X @ W_K, X @ W_V
            O, A = attention.attend(Q, K, V)
            print("each row of A adds up to", A.sum(axis=1))
            A"""),
        markdown(WORDS.fill("nb-heatmap")),
        code("""
            fig, ax = plt.subplots(figsize=(4.4, 3.4))
            heatmap(ax, A, tokens, tokens, quantity="weights")
            plt.show()"""),
        markdown(WORDS.fill("nb-average")),
        code("""
            i = 0
            print(f"row {i + 1} of O (index {i}), {tokens[i]!r}:", O[i])
            print("its weights times the values, added:", A[i] @ V)"""),
        markdown(WORDS.fill("nb-example")),
        code("""
            example = self_attention_example(RUNNING)
            assert np.allclose(A, example["outputs"]["weights"], rtol=0, atol=1e-12), (
                "A: the step by hand differs from the site's own code on the same sentence")
            assert np.allclose(O, example["outputs"]["out"], rtol=0, atol=1e-12), (
                "O: the step by hand differs from the site's own code on the same sentence")"""),
    ]


ITEMS = [
    example_heatmap("home-weights", EX_SOFTMAX, "weights", size=(PHONE_WIDTH, 3.2),
                    title=WORDS.line("home-weights-title"), caption=weights_caption,
                    controls=()),  # the weights alone: the controls come on the pages that explain them
    Snippets("index-pages", data=pages_data, snippets=pages_snippets),
    Snippets("javascript-contract", data=lambda: None, public=contract.public),
    Snippets("javascript-strings", data=lambda: None, public=strings.public),
    # the interactive heatmap's markup with its words, which the post-build pass puts into every page (finish/widgets.py)
    Snippets("heatmap", data=lambda: None, snippets=lambda _: {"template": heatmap_template()}),
    notebook("index.md", notebook_cells),
]
