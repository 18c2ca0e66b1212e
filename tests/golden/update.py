"""Rewrite tests/golden/examples.json from the worked examples as they are now.

    .venv/bin/python tests/golden/update.py

Run it only when changing a published number is the point; commit the new golden file with the change
and say in the commit message which cited numbers moved.
"""
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from figures_src import build, registry  # noqa: E402

GOLDEN = Path(__file__).with_name("examples.json")


def published_examples():
    """{id: the example exactly as its JSON download publishes it}, built by the one entry point: every example
    computed from seeded inputs (the real model's, seed null, are checked against the committed extraction)."""
    with tempfile.TemporaryDirectory() as tmp:
        build.build(only=[example.id for example in registry.examples()], force=True, out=tmp, log=lambda *_: None)
        folder = Path(tmp) / "public" / "examples"
        examples = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))}
    return {name: example for name, example in examples.items() if example["seed"] is not None}


def main():
    GOLDEN.write_text(json.dumps(published_examples(), indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
