"""The site's own JavaScript: its Node unit tests pass, and all of it stays within 8 KB gzipped."""
import gzip
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JS_BUDGET_BYTES = 8 * 1024


def test_node_unit_tests_pass():
    node = shutil.which("node")
    assert node, "Node.js is needed for tests/js (make test installs the npm tooling with it)"
    result = subprocess.run([node, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout[-2000:]


def gzipped_sizes():
    """Each of our JavaScript files under docs/ -> its size gzipped at level 9, as a server would send it."""
    files = sorted((ROOT / "docs").rglob("*.js"))
    return {f.relative_to(ROOT).as_posix(): len(gzip.compress(f.read_bytes(), 9, mtime=0)) for f in files}


def test_all_our_javascript_fits_in_8_kb_gzipped():
    sizes = gzipped_sizes()
    assert "docs/javascripts/heatmap.js" in sizes and "docs/javascripts/attention-math.js" in sizes, sizes
    total = sum(sizes.values())
    assert total <= JS_BUDGET_BYTES, f"our JS is {total} bytes gzipped, over the {JS_BUDGET_BYTES}-byte budget: {sizes}"
