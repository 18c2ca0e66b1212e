"""Rewrite tests/golden/examples.json from the worked examples as they are now.

    .venv/bin/python tests/golden/update.py

Run it only when changing a published number is the point; commit the new golden file with the change
and say in the commit message which cited numbers moved.
"""
import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from figures_src import build  # noqa: E402

GOLDEN = Path(__file__).with_name("examples.json")


def published_examples():
    """{id: the example exactly as its JSON download publishes it}, for every example in the registry."""
    examples = {}
    for dotted in build.registry_modules():
        module = importlib.import_module(dotted)
        if hasattr(module, "example"):
            name = build.item_name(dotted)
            examples[name] = json.loads(build.example_json(module.example(), name))
    return examples


def main():
    GOLDEN.write_text(json.dumps(published_examples(), indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
