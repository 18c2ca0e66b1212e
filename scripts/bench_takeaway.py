"""What the take-away outputs (issue 16) cost, measured side by side in one run (CPU time of this process, so a
busy machine slows both sides alike): every figure drawn as the page's SVG alone, against the same drawing with
its downloads (standalone SVG, PNG at 2×, thumbnail; the CSV and BibTeX are string formatting); and the print
edition's assembly against reading the built pages it copies. Needs generated/ and site/ (make site).
Usage: python scripts/bench_takeaway.py [ROUNDS]
"""
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from figures_src import registry  # noqa: E402
from figures_src.engine import Figure  # noqa: E402
from figures_src.engine.figures import draw  # noqa: E402
from finish import edition  # noqa: E402
from finish.site import Site  # noqa: E402


def cpu(function):
    start = time.process_time()
    function()
    return time.process_time() - start


def main(rounds):
    figures = [item for item in registry.items() if isinstance(item, Figure)]
    data = {figure.name: figure.data() for figure in figures}
    page_only = with_downloads = 0.0
    for _ in range(rounds):
        for figure in figures:  # interleaved, figure by figure
            page_only += cpu(lambda: draw(figure, data[figure.name]))
            with_downloads += cpu(lambda: draw(figure, data[figure.name], {}))
    print(f"{len(figures)} figures × {rounds} rounds: page SVG alone {page_only:.1f} s CPU, with the downloads "
          f"{with_downloads:.1f} s: × {with_downloads / page_only:.2f}")

    site = Site.open(ROOT / "site")
    nav = edition.nav_pages(site.config)
    reading = assembling = 0.0
    for _ in range(rounds):
        reading += cpu(lambda: [site.path(dest).read_text(encoding="utf-8") for _, dest, _ in nav])
        assembling += cpu(lambda: edition.edition(site))
    print(f"print edition: reading the {len(nav)} pages {reading / rounds * 1000:.0f} ms, "
          f"assembling them {assembling / rounds * 1000:.0f} ms (including the reading)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
