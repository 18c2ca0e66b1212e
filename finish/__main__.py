"""python -m finish site/ [--config mkdocs.yml]: the post-build pass over a built site (see finish/__init__.py)."""
import argparse
import sys
import time

from . import FinishError, finish


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m finish", description="The post-build pass over a built site.")
    parser.add_argument("site", help="the folder the engine built (site/)")
    parser.add_argument("--config", help="mkdocs.yml (default: the repository's)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        site = finish(args.site, args.config)
    except FinishError as exc:
        print(f"finish: {exc}", file=sys.stderr)
        return 1
    print(f"finish: {len(site.pages)} pages finished in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
