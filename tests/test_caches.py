"""The build's caches are checked on read: a bad entry is recomputed, never published, and never crashes."""
import json
import re

import pygments
import pymdownx.highlight
import pytest
from mkdocs.exceptions import PluginError
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from finish import mathml
from hooks import highlight_cache

SOURCE = "def softmax(x):\n    return x\n"


@pytest.fixture
def highlight(tmp_path, monkeypatch):
    monkeypatch.setattr(highlight_cache, "CACHE", tmp_path / "highlight")
    calls = []

    def counting_highlight(src, lexer, formatter, outfile=None):
        calls.append(src)
        return pygments.highlight(src, lexer, formatter, outfile)

    cached = highlight_cache._cached(counting_highlight)
    return lambda: cached(SOURCE, PythonLexer(), HtmlFormatter()), calls


def test_a_good_highlight_entry_is_read_back(highlight):
    colour, calls = highlight
    first = colour()
    assert colour() == first == pygments.highlight(SOURCE, PythonLexer(), HtmlFormatter())
    assert len(calls) == 1


@pytest.mark.parametrize("corrupt", [b"", b"<pre>garbage</pre>", b"\xff\xfe\x00",
                                     "TRUNCATE", "EDIT"])
def test_a_bad_highlight_entry_is_recoloured_and_rewritten_never_published(highlight, corrupt):
    colour, calls = highlight
    good = colour()
    (entry,) = highlight_cache.CACHE.glob("*.html")
    stored = entry.read_bytes()
    if corrupt == "TRUNCATE":
        corrupt = stored[: len(stored) // 2]
    elif corrupt == "EDIT":
        corrupt = stored.replace(b"softmax", b"s0ftmax")
    entry.write_bytes(corrupt)
    assert colour() == good
    assert len(calls) == 2
    assert entry.read_bytes() == stored
    assert colour() == good and len(calls) == 2


@pytest.fixture
def configure_highlight(monkeypatch):
    """The hook's on_config, with the cache on; pymdownx's highlight is put back afterwards."""
    monkeypatch.delenv("AIH_BUILD_CACHE", raising=False)
    monkeypatch.setattr(pymdownx.highlight, "highlight", pymdownx.highlight.highlight)
    return lambda: highlight_cache.on_config({})


def test_a_file_where_the_highlight_cache_goes_is_replaced_by_the_folder(highlight, configure_highlight):
    """It stopped the build with FileExistsError halfway through the pages, after site/ was cleaned."""
    colour, calls = highlight
    highlight_cache.CACHE.write_text("not a folder")
    configure_highlight()  # before the build touches site/
    assert highlight_cache.CACHE.is_dir()
    assert colour() == colour() == pygments.highlight(SOURCE, PythonLexer(), HtmlFormatter())
    assert len(calls) == 1


def test_a_highlight_cache_folder_that_cannot_be_made_stops_the_build_before_it_starts(tmp_path, monkeypatch,
                                                                                      configure_highlight):
    (tmp_path / "cache").write_text("a file where the cache's parent folder goes")
    monkeypatch.setattr(highlight_cache, "CACHE", tmp_path / "cache" / "highlight")
    with pytest.raises(PluginError, match=re.escape(f"{tmp_path / 'cache' / 'highlight'}: cannot make") + ".*disposable"):
        configure_highlight()


@pytest.fixture
def formulas(tmp_path, monkeypatch):
    monkeypatch.setattr(mathml, "CACHE", tmp_path / "mathml.json")
    monkeypatch.setattr(mathml, "_cache", None)
    monkeypatch.setattr(mathml, "_cache_changed", False)
    monkeypatch.delenv("AIH_BUILD_CACHE", raising=False)
    return mathml.CACHE


def convert_fresh():
    mathml._cache = None
    return mathml.latex_to_mathml(r"\sqrt{d_k}", False)


def expected():
    return mathml._convert(r"\sqrt{d_k}", False, "test")


@pytest.mark.parametrize("stored", ["[]", '{"formulas": []}', "null", "3", '"text"', "{not json",
                                    '{"version": "VERSION", "formulas": {"inline\\u0000\\\\sqrt{d_k}": 7}}',
                                    '{"version": "VERSION", "formulas": []}'])
def test_a_malformed_mathml_cache_is_ignored_not_a_crash(formulas, stored):
    formulas.write_text(stored.replace("VERSION", mathml._VERSION))
    assert convert_fresh() == expected()


def test_an_edited_mathml_entry_is_recomputed_never_published(formulas):
    assert convert_fresh() == expected()
    mathml.save_cache()
    stored = json.loads(formulas.read_text())
    assert stored["version"] == mathml._VERSION
    key = next(iter(stored["formulas"]))
    stored["formulas"][key] = "<math><mi>garbage</mi></math>"
    formulas.write_text(json.dumps(stored))
    assert convert_fresh() == expected()


def test_a_good_mathml_cache_is_read_back_without_converting(formulas, monkeypatch):
    convert_fresh()
    mathml.save_cache()
    monkeypatch.setattr(mathml, "_convert", lambda *args: pytest.fail("converted a cached formula"))
    assert convert_fresh().startswith("<math")
