"""The smollm page's build (figures_src/pages/smollm.py) without a browser: every snippet it writes is on the page,
and the manifest's config is checked against the GGUF's, never defaulted to it.

test_pipeline.py's test_every_output_is_used_by_a_page states the first rule for every page, on a forced build of
everything (make test); this one reads the shared build (generated/), so the page's own quick run catches it.
"""
import pytest

import figures_src.pages.smollm as smollm
from figures_src.engine.errors import BuildError

from conftest import ROOT


def test_every_snippet_the_page_writes_is_included(generated):
    page = (ROOT / "docs" / "smollm.md").read_text(encoding="utf-8")
    written = sorted(path.name for path in (generated / "snippets").glob("smollm*.md"))
    assert "smollm.md" in written, f"the shared build wrote no generated/snippets/smollm.md (only {written})"
    for name in written:
        assert f'--8<-- "generated/snippets/{name}"' in page, f"generated/snippets/{name} is written but docs/smollm.md never includes it"


def test_a_layout_without_config_fails_the_build(monkeypatch):
    from models.smollm import shipped

    fake = shipped.Shipped(files={"smollm-weights-0": b"w", "smollm-tokenizer": b"t", "smollm-kernels": b"k"}, layout={})
    monkeypatch.setattr(shipped, "ship", lambda *args, **kwargs: fake)
    monkeypatch.setattr(smollm, "greedy_sample", lambda: {"prompt": [], "written": []})
    with pytest.raises(BuildError, match="config"):
        smollm.model_data()
