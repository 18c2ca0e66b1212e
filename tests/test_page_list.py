"""mkdocs.yml's nav is the one list of pages: a page is its Markdown, its module and one nav line
(figures_src/registry.py). The throw-away page is built on a copy of the repository, alone (--only), in a few
seconds."""
import json
import subprocess
import sys
import textwrap

import pytest

from figures_src import registry
from figures_src.engine import BuildError
from repo_copy import copy_repository, run_build

THROWAWAY = '''
"""A throw-away page: one worked example and one sentence of generated text."""
from ..engine import Example, Snippets
from . import sentences

EX_THROWAWAY = Example("ex-throwaway", title="The running sentence, once more",
                       data=lambda: sentences.self_attention_example(sentences.RUNNING))

ITEMS = [EX_THROWAWAY, Snippets("throwaway-note", data=lambda: {"n": 3}, snippets=lambda data: {"": f"{data['n']} rows."})]
'''


@pytest.mark.parametrize("markdown, module", [("qkv.md", "figures_src.pages.qkv"),
                                              ("multi-head.md", "figures_src.pages.multi_head"),
                                              ("guide/first-steps.md", "figures_src.pages.guide.first_steps")])
def test_a_nav_entry_names_its_module(markdown, module):
    assert registry.module_name(markdown) == module


@pytest.mark.parametrize("markdown", ["Scores.md", "scores", "my_page.md", "../x.md"])
def test_a_nav_entry_the_rule_cannot_read_is_refused(markdown):
    with pytest.raises(BuildError, match="lower-case words joined by hyphens"):
        registry.module_name(markdown)


def test_the_page_modules_are_the_nav_s_in_order():
    nav = registry.nav()
    assert [page.module for page in nav if page.has_module] == registry.page_modules()
    assert nav[0].markdown == "index.md" and nav[-1].markdown == "cite.md"


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """The repository with one page added the everyday way: Markdown, module, one nav line after Cost."""
    copy = copy_repository(tmp_path_factory.mktemp("repository"))
    (copy / "docs" / "throwaway.md").write_text(
        '---\ndescription: A page that exists for one test.\n---\n# Throwaway\n\n'
        '--8<-- "generated/snippets/ex-throwaway-cite.md"\n\n--8<-- "generated/snippets/throwaway-note.md"\n')
    (copy / "figures_src" / "pages" / "throwaway.py").write_text(textwrap.dedent(THROWAWAY))
    config = copy / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - Cost: cost.md\n", "  - Cost: cost.md\n  - Throwaway: throwaway.md\n"))
    return copy


def in_copy(copy, code):
    return subprocess.run([sys.executable, "-c", code], cwd=copy, capture_output=True, text=True, check=True).stdout


@pytest.mark.slow  # builds in a copy of the repository
def test_a_page_added_in_three_places_is_in_the_registry_and_built(copy):
    modules = in_copy(copy, "from figures_src import registry; print(*registry.page_modules())").split()
    assert modules[modules.index("figures_src.pages.cost") + 1] == "figures_src.pages.throwaway"
    assert run_build(copy, "--only", "throwaway") == ["ex-throwaway", "throwaway-note"]
    example = json.loads((copy / "generated/public/examples/ex-throwaway.json").read_text())
    assert example["page"] == "throwaway/", "the example takes its page from the nav, not from a declaration"
    assert (copy / "generated/snippets/throwaway-note.md").read_text() == "3 rows.\n"


@pytest.mark.slow  # builds in a copy of the repository
def test_a_page_module_the_nav_does_not_name_stops_the_build(copy, tmp_path):
    orphan = copy / "figures_src" / "pages" / "orphan.py"
    orphan.write_text(textwrap.dedent(THROWAWAY).replace("throwaway", "orphan"))
    try:
        result = subprocess.run([sys.executable, "-m", "figures_src.build", "--out", str(tmp_path)], cwd=copy,
                                capture_output=True, text=True)
    finally:
        orphan.unlink()
    assert result.returncode == 1
    assert "figures_src/pages/orphan.py declares ITEMS, but mkdocs.yml's nav names no page for it" in result.stderr


def test_an_example_no_nav_page_lists_has_no_page():
    from figures_src.engine import Example  # noqa: PLC0415

    stray = Example("ex-stray", title="Declared, listed in no page's ITEMS", data=dict)
    with pytest.raises(BuildError, match="example ex-stray is listed in no page module's ITEMS"):
        stray.url_path
    assert Example("ex-named", title="A test page's example", data=dict, page="scores.md").url_path == "scores/"
