"""Build the site with Zensical into a folder of its own, beside MkDocs' site/: what `make site ENGINE=zensical`
does, without touching site/. Zensical has no option for where it writes (it writes its config's site_dir, inside
the config's folder), so the tree it reads is copied into `into`; the post-build pass then reads the repository's
generated/ itself. Used by tests/conftest.py (the zensical_site fixture) and scripts/bench_lighthouse.py --zensical.

    .venv/bin/python scripts/zensical_site.py OUT      (builds OUT/site)
"""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What Zensical reads: the pages, the theme's overrides, the appended notation link, the library's files the pages
# list, and the figure build's snippets and placeholders.
TREE = ["mkdocs.yml", "zensical.yml", "docs", "overrides", "includes", "attention", "generated/snippets", "generated/figures"]


def build_zensical(into):
    """Zensical's build of the repository's pages, finished by the pass, in into/site. -> that folder."""
    sys.path.insert(0, str(ROOT))
    from finish import finish  # noqa: PLC0415

    into = Path(into)
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    for name in TREE:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, into / name)
    result = subprocess.run([sys.executable, "-m", "zensical", "build", "--strict", "-f", "zensical.yml"], cwd=into, capture_output=True,
                            text=True)
    if result.returncode:
        raise RuntimeError(f"zensical build failed:\n{(result.stdout + result.stderr)[-4000:]}")
    finish(into / "site", config_file=into / "mkdocs.yml", generated=ROOT / "generated")
    return into / "site"


if __name__ == "__main__":
    print(build_zensical(sys.argv[1]))
