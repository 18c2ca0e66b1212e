"""The site's own JavaScript: its Node unit tests pass, and all of it stays within 8 KB gzipped."""
import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

from hooks.minify_js import minify

ROOT = Path(__file__).resolve().parents[1]
JS_BUDGET_BYTES = 8 * 1024


def test_node_unit_tests_pass():
    node = shutil.which("node")
    assert node, "Node.js is needed for tests/js (make test installs the npm tooling with it)"
    result = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout[-2000:]


def gzipped_sizes():
    """Each of our JavaScript files -> the size readers download: the shipped copy (hooks/minify_js.py: no
    comments or indentation) gzipped at level 9, as a server would send it."""
    files = sorted((ROOT / "docs").rglob("*.js"))
    return {f.relative_to(ROOT).as_posix(): len(gzip.compress(minify(f.read_text()).encode(), 9, mtime=0)) for f in files}


def test_all_our_javascript_fits_in_8_kb_gzipped():
    sizes = gzipped_sizes()
    assert "docs/javascripts/heatmap.js" in sizes and "docs/javascripts/attention-math.js" in sizes, sizes
    total = sum(sizes.values())
    assert total <= JS_BUDGET_BYTES, f"our JS is {total} bytes gzipped, over the {JS_BUDGET_BYTES}-byte budget: {sizes}"


def test_the_site_ships_exactly_the_minified_source():
    shipped = ROOT / "site" / "javascripts"
    if not shipped.is_dir():
        pytest.skip("site/ is not built (make test builds it first)")
    for source in sorted((ROOT / "docs" / "javascripts").glob("*.js")):
        assert (shipped / source.name).read_text() == minify(source.read_text()), source.name
    assert len(minify("// a comment\nconst a = 1;\n")) < len("// a comment\nconst a = 1;\n")
