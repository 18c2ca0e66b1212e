"""Every text file the project reads or writes names its encoding, so the build does not follow the machine's
locale: with `PYTHONUTF8=0 LC_ALL=C`, Python's default is ASCII, and a page template holding "√" stopped the
build with a UnicodeDecodeError.

Read statically with `ast`: builtin open() in a text mode, Path.read_text and Path.write_text must pass
`encoding=` (a binary mode needs none).
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for folder in ("attention", "figures_src", "hooks", "models", "scripts")
                 for p in (ROOT / folder).rglob("*.py"))


def text_calls_without_encoding(source):
    """(line, call) for each text open(), read_text() or write_text() in `source` that names no encoding."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("read_text", "write_text"):
            found.append((node.lineno, f".{func.attr}()"))
        elif isinstance(func, ast.Name) and func.id == "open":
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if not (isinstance(mode, ast.Constant) and "b" in str(mode.value)):
                found.append((node.lineno, "open()"))
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_text_file_is_opened_with_its_encoding(path):
    found = text_calls_without_encoding(path.read_text(encoding="utf-8"))
    assert not found, (f"{path.relative_to(ROOT)}: " + ", ".join(f"line {line}: {call}" for line, call in found)
                       + " names no encoding: pass encoding=\"utf-8\" so the build does not depend on the locale")


def test_the_check_sees_each_form():
    source = 'open(a)\nopen(a, "w")\nopen(a, "rb")\np.read_text()\np.write_text(s, encoding="utf-8")\nImage.open(b)\n'
    assert text_calls_without_encoding(source) == [(1, "open()"), (2, "open()"), (4, ".read_text()")]
