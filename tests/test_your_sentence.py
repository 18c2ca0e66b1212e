"""The in-browser model of the your-sentence page: its tokenizer, its forward pass and its shipped weights.

- The JS tokenizer (docs/widgets/your-sentence/wordpiece.js) gives `tokenizers`' ids on 2,000+ strings, and cuts
  at 64 tokens as `tokenizers` truncates; a sweep over every code point finds no other difference.
- The JS encoder (docs/widgets/your-sentence/encoder.js), run by Node on the shipped weights, equals the numpy
  encoder on the same dequantized weights: weights within 1e-4, hidden states within 1e-3, on 60 sentences.
- The shipped weights against the float32 model: the largest attention-weight difference, printed and bounded
  (0.005 on the site's sentences, the bound the page states; 0.01 on 60 others), and the page's head table, run by
  Node on the shipped weights, names the float32 model's heads for the three presets (two where tied within rounding).
- models/minilm/shipped.py reads safetensors as the safetensors library does and round-trips its own file.

Needs Node, the model package, tokenizers and safetensors (the test extra), and the built
generated/public/your-sentence/ (python -m figures_src.build).
"""
import hashlib
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from figures_src.pages import your_sentence
from models.minilm.encoder import EncoderParams, encode
from models.minilm.model import load_model
from models.minilm.analysis import named_heads, sentence_scores
from models.minilm.data import SENTENCES
from models.minilm.shipped import (Encoding, Format, dequantize, dequantize_groups, pack, quantize, quantize_groups,
                               quantize_steps, read_safetensors, unpack)
from your_sentence_texts import DOCS_SENTENCES

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ROOT / "generated" / "public"
WEIGHT_TOLERANCE = 1e-4  # JS vs numpy on the same weights (the bounds)
HIDDEN_TOLERANCE = 1e-3
SITE_ACCURACY_BOUND = 0.005  # shipped vs float32 weights, max |Δ|, on the site's three sentences (issue 43)
ACCURACY_BOUND = 0.01  # the same on these 60 sentences
DOWNLOAD_LIMIT = 30_000_000  # bytes
# Code points where the browser's Unicode (Node 20's ICU, Unicode 15.1+) and the older tables of `tokenizers`
# disagree beyond what wordpiece.js corrects for: decompositions and categories of scripts encoded in
# Unicode 14 to 16 (Tulu-Tigalari, Kirat Rai, Garay, Todhri, ...). Any other difference fails the sweep.
KNOWN_DIFFERENCES = {0x1734, 0x105C9, 0x105E4, 0x11383, 0x11385, 0x1138E, 0x11391, 0x113C5, 0x113C7, 0x113C8,
                     0x1171E, 0x11938, *range(0x16121, 0x16129), 0x16D68, 0x16D69, 0x16D6A, 0x166D, 0x111C9}

HAND_PICKED = [
    "", " ", "   \t\n  ", "\n", "The animal didn't cross the street because it was too tired.",
    "Héllo wörld, café naïve résumé Ångström São Paulo", "ÀÉÎÕÜ àéîõü ñ Ñ ç Ç ø Ø ß ẞ æ Æ œ ﬁ ﬂ",
    "Ελληνικά: ΣΟΦΙΑ σοφία ἀλήθεια Ἀθῆναι", "Русский текст, ёлка Ёж", "日本語のテキストです。", "中文字符测试，你好！",
    "한국어 문장입니다", "emoji 😀👍🏽 👨‍👩‍👧 ok 🇫🇷", "a\x00b\x07c\u200dd\ufffde\x7f\x1b[0m", "soft\u00adhyphen zero\u200bwidth",
    "https://example.com/path?query=1&b=2#frag", "mail me: someone@example.org", "3.14159 1,000,000 -42 1e-9 ½ ⅔ ²",
    "a" * 99, "a" * 100, "a" * 101, "x" * 500, "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "[MASK] is [CLS] and [SEP] or [UNK] [PAD]", "[mask] lower case is not special", "İstanbul ǅ ǈ ǋ ﬃ K Å",
    "don't won't y'all 'quoted' \"double\" «guillemets» „low“", "tabs\tand\nnewlines\r\nand\u2028separators\u3000ideographic",
    "(parentheses) [brackets] {braces} <angles> $100 + 5% = ~ ^ ` |", "C++ C# F# .NET node.js e.g. i.e. etc.",
    "\u0301combining at start", "e\u0301 vs é", "Zalgo t̸̢e̵x̷t̴", "עברית ועוד", "العربية نص", "हिन्दी पाठ", "ไทย ภาษา",
    "𠀀𠀁 𪜀 CJK extension B", "\U0002B820\U0002B91F\U0002B920 ranges", "Ⅻ ⅻ ① ⑳ ℃ ™ ©",
    " ".join(["word"] * 200), "The quick brown fox jumps over the lazy dog. " * 20,
]

ALPHABETS = [range(32, 127), range(0xA0, 0x250), range(0x300, 0x370), range(0x370, 0x400), range(0x400, 0x530),
             range(0x590, 0x700), range(0x900, 0x980), range(0x0, 0x20), range(0x2000, 0x2070), range(0x3000, 0x3100),
             range(0x4E00, 0x4F00), range(0xAC00, 0xAD00), range(0xF900, 0xF920), range(0xFF00, 0xFF70),
             range(0x1F300, 0x1F650), range(0x20000, 0x20020), range(0x2B800, 0x2B940), range(0xE000, 0xE010)]
WORDS = ["the", "attention", "Transformer", "queries", "keys", "values", "softmax", "naïve", "école", "Zürich",
         "unbelievably", "tokenization", "GPU's", "2024", "3.5", "x²", "—", "…", "!", "?", "(", ")", "ok", "cat", "sat"]


def generated_strings(count=2000, seed=0):
    """Random strings: half characters drawn from many scripts and control ranges, half shuffled words."""
    rng = random.Random(seed)
    strings = []
    for index in range(count):
        if index % 2:
            strings.append("".join(chr(rng.choice(rng.choice(ALPHABETS))) for _ in range(rng.randint(0, 40))))
        else:
            glue = rng.choice([" ", "  ", "", "\t", "-", "/"])
            strings.append(glue.join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))))
    return strings


def docs_sentences(count):
    """Real English: the first `count` sentences of the site's own pages with 4 to 40 words."""
    found = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = re.sub(r"`[^`]*`|\$[^$]*\$|--8<--.*|<[^>]+>|\[|\]\([^)]*\)|[#*_|>]", " ", page.read_text(encoding="utf-8"))
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
            if 4 <= len(sentence.split()) <= 40 and sentence not in found:
                found.append(sentence)
    assert len(found) >= count, f"the docs hold only {len(found)} usable sentences"
    return found[:count]


def node(*arguments, **kwargs):
    executable = shutil.which("node")
    assert executable, "Node.js is needed (make test installs it)"
    # the scripts import the build's contract.js, which the loader generates (tests/js/contract-loader.mjs)
    result = subprocess.run([executable, "--import", "./tests/js/contract-loader.mjs", *arguments], cwd=ROOT,
                            capture_output=True, timeout=600, **kwargs)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def tokenizer(model):
    from tokenizers import Tokenizer

    plain = Tokenizer.from_file(str(model.folder / "tokenizer.json"))
    plain.no_padding()
    plain.no_truncation()
    return plain


@pytest.fixture(scope="module")
def shipped(generated):
    """(manifest dict, manifest path, the weight file's bytes) as the build published them."""
    manifests = sorted(PUBLIC.glob("models/model.*.json"))
    assert len(manifests) == 1, f"expected one built manifest, found {manifests}: run python -m figures_src.build"
    manifest = json.loads(manifests[0].read_text(encoding="utf-8"))
    return manifest, manifests[0], (PUBLIC / manifest["files"]["weights"]).read_bytes()


def js_tokenize(model, strings, tmp_path, max_tokens=your_sentence.MAX_TOKENS):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(strings), encoding="utf-8")
    return json.loads(node("tests/node/tokenize.mjs", str(model.folder / "vocab.txt"), str(corpus), str(max_tokens)))


# ---------------------------------------------------------------- tokenizer


def test_js_tokenizer_gives_the_ids_of_tokenizers_on_2000_strings(model, tokenizer, tmp_path):
    strings = HAND_PICKED + generated_strings() + docs_sentences(60)
    assert len(strings) >= 2000
    results = js_tokenize(model, strings, tmp_path)
    differing = [(text, tokenizer.encode(text).tokens, result["full"]) for text, result in zip(strings, results)
                 if tokenizer.encode(text).ids != result["full"]]
    assert not differing, f"{len(differing)} of {len(strings)} strings differ, e.g. {differing[:3]}"
    assert any(100 in result["full"] for result in results), "the corpus never reaches [UNK]"
    assert any(result["cutNote"] for result in results), "the corpus never goes past the limit"


def test_js_tokenizer_cuts_at_64_tokens_as_tokenizers_truncates(model, tokenizer, tmp_path):
    strings = [text for text in HAND_PICKED + generated_strings(400, seed=1) if len(tokenizer.encode(text).ids) > 64]
    assert len(strings) >= 10
    results = js_tokenize(model, strings, tmp_path)
    tokenizer.enable_truncation(your_sentence.MAX_TOKENS)
    try:
        for text, result in zip(strings, results):
            assert result["cut"] == tokenizer.encode(text).ids, text
            assert len(result["cut"]) == 64 and result["cutNote"]
    finally:
        tokenizer.no_truncation()


@pytest.mark.slow
def test_every_code_point_normalizes_and_splits_as_tokenizers_does(tokenizer, tmp_path):
    """"x" + c + "y" for every code point c: the normalized text and its words, JS against tokenizers."""
    rows = []
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        normalized = tokenizer.normalizer.normalize_str(f"x{chr(code)}y")
        rows.append([code, normalized, [word for word, _ in tokenizer.pre_tokenizer.pre_tokenize_str(normalized)]])
    (tmp_path / "sweep.json").write_text(json.dumps(rows), encoding="utf-8")
    script = ('import { readFileSync } from "node:fs"; import { normalize, preTokenize } from "./docs/widgets/your-sentence/wordpiece.js";'
              'const rows = JSON.parse(readFileSync(process.argv[1], "utf8")); const differ = [];'
              'for (const [code, normalized, words] of rows) { const mine = normalize("x" + String.fromCodePoint(code) + "y");'
              'if (mine !== normalized || JSON.stringify(preTokenize(mine)) !== JSON.stringify(words)) differ.push(code); }'
              'process.stdout.write(JSON.stringify(differ));')
    differ = set(json.loads(node("--input-type=module", "-e", script, str(tmp_path / "sweep.json"))))
    assert differ - KNOWN_DIFFERENCES == set(), sorted(hex(c) for c in differ - KNOWN_DIFFERENCES)[:40]


# ---------------------------------------------------------------- the shipped weights


def test_read_safetensors_matches_the_safetensors_library(model):
    from safetensors.numpy import load_file

    ours = read_safetensors(model.folder / "model.safetensors")
    theirs = load_file(model.folder / "model.safetensors")
    assert ours.keys() == theirs.keys()
    for name in theirs:
        assert ours[name].dtype == theirs[name].dtype and np.array_equal(ours[name], theirs[name]), name


def test_quantize_groups_by_loops():
    """Every group's scale is its largest |value| / 127 and every value rounds to the nearest multiple."""
    matrix = np.random.default_rng(0).normal(size=(5, 64)).astype(np.float32)
    matrix[2, :32] = 0  # an all-zero group keeps scale 1
    q, scales = quantize_groups(matrix, 32)
    for r in range(5):
        for g in range(2):
            block = matrix[r, g * 32:(g + 1) * 32]
            scale = np.float32(np.abs(block).max() / 127) if np.abs(block).max() else np.float32(1)
            assert scales[r, g] == scale
            for k in range(32):
                assert q[r, g * 32 + k] == int(np.rint(block[k] / scale))
    assert np.abs(dequantize_groups(q, scales) - matrix).max() <= scales.max() / 2 + 1e-7


def test_the_shipped_file_is_what_quantize_writes_and_fits_the_limit(model, shipped):
    manifest, manifest_path, blob = shipped
    state = your_sentence.shipped_state(read_safetensors(model.folder / "model.safetensors"))
    layout, expected = quantize(state)
    # Decompressed, not pack(expected) compared byte for byte: deflate at level 9 takes 45 s over these 45 MB, and
    # the forced build that test_site compares with generated/ byte for byte has packed them again already.
    assert unpack(blob) == expected and manifest["tensors"] == layout  # one whole stream, as the page reads it
    assert blob[:2] == pack(b"")[:2] == bytes([0x78, 0xDA]), "zlib's header: deflate, the best compressions (7 to 9)"
    vocabulary = (PUBLIC / manifest["files"]["vocabulary"]).read_bytes()
    total = len(blob) + len(vocabulary) + len((PUBLIC / manifest["files"]["kernels"]).read_bytes()) + manifest_path.stat().st_size
    print(f"\ndownload: {total:,} bytes ({len(blob):,} weights, {len(vocabulary):,} vocabulary)")
    assert total <= DOWNLOAD_LIMIT
    for path in (manifest["files"]["weights"], manifest["files"]["vocabulary"], manifest_path.relative_to(PUBLIC).as_posix()):
        content = (PUBLIC / path).read_bytes()
        assert your_sentence.content_name(Path(path).name.split(".")[0], Path(path).suffix[1:], content) == path


def test_the_manifest_records_each_files_length_and_sha256_for_the_page_to_check(shipped):
    """The worker refuses a download whose length or SHA-256 differs from these (the browser tests corrupt one)."""
    manifest, _, _ = shipped
    assert sorted(manifest["integrity"]) == sorted(manifest["files"]) == ["kernels", "vocabulary", "weights"]
    for kind, path in manifest["files"].items():
        content = (PUBLIC / path).read_bytes()
        assert manifest["integrity"][kind] == {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}, kind


# ---------------------------------------------------------------- the JS forward pass


def parity_texts():
    """The 60 test sentences (scripts/weight_formats.py measures the weight formats on them too)."""
    return DOCS_SENTENCES + ["The animal didn't cross the street because it was too tired.",
                                 "The keys to the old cabinet in the hallway are on the table.", "Hi."]


@pytest.fixture(scope="module")
def parity_sentences():
    return parity_texts()


@pytest.fixture(scope="module")
def js_outputs(model, shipped, parity_sentences, tmp_path_factory):
    """Per sentence: (ids, JS weights (L, H, n, n), JS hidden states (L + 1, n, d))."""
    _, manifest_path, _ = shipped
    folder = tmp_path_factory.mktemp("encode")
    all_ids = [model.tokenize(text)[1].tolist()[:your_sentence.MAX_TOKENS] for text in parity_sentences]
    (folder / "ids.json").write_text(json.dumps(all_ids))
    node("tests/node/encode.mjs", str(manifest_path), str(folder / "ids.json"), str(folder / "out.bin"))
    flat = np.fromfile(folder / "out.bin", dtype="<f8")
    L, H, d = model.config.n_layers, model.config.n_heads, model.config.d_model
    outputs, offset = [], 0
    for ids in all_ids:
        n = len(ids)
        weights = flat[offset:offset + L * H * n * n].reshape(L, H, n, n)
        offset += L * H * n * n
        hidden = flat[offset:offset + (L + 1) * n * d].reshape(L + 1, n, d)
        offset += (L + 1) * n * d
        outputs.append((np.array(ids), weights, hidden))
    assert offset == flat.size
    return outputs


def test_js_encoder_equals_numpy_on_the_shipped_weights(model, shipped, js_outputs):
    manifest, _, blob = shipped
    params = EncoderParams.from_state_dict(dequantize(manifest["tensors"], unpack(blob)), model.config)  # float32, as shipped
    assert len(js_outputs) >= 50
    worst_weight = worst_hidden = 0.0
    for ids, weights, hidden in js_outputs:
        reference = encode(params, model.config, ids)
        worst_weight = max(worst_weight, float(np.abs(weights - reference.weights).max()))
        worst_hidden = max(worst_hidden, float(np.abs(hidden - np.stack(reference.hidden_states)).max()))
        assert np.allclose(weights.sum(axis=-1), 1)
    print(f"\nJS vs numpy on the shipped weights, {len(js_outputs)} sentences: "
          f"weights max |Δ| {worst_weight:.2e}, hidden states max |Δ| {worst_hidden:.2e}")
    assert worst_weight <= WEIGHT_TOLERANCE and worst_hidden <= HIDDEN_TOLERANCE


def test_shipped_weights_stay_close_to_the_float32_model(model, js_outputs):
    worst = 0.0
    for ids, weights, _ in js_outputs:
        worst = max(worst, float(np.abs(weights - encode(model.params, model.config, ids).weights).max()))
    print(f"\nshipped (JS) vs float32 (numpy) attention weights, {len(js_outputs)} sentences: max |Δ| {worst:.4f}")
    assert worst <= ACCURACY_BOUND


def test_the_build_writes_a_binary_download_once(tmp_path):
    from figures_src.build import write_atomic

    path = tmp_path / "models" / "weights.bin"
    content = bytes(range(256)) * 3
    write_atomic(path, content)
    assert path.read_bytes() == content
    first = path.stat().st_mtime_ns
    write_atomic(path, content)  # the same bytes: left alone
    assert path.stat().st_mtime_ns == first and not list(path.parent.glob(".*"))


# ---------------------------------------------------------------- the shipped format and the heads the page names


def test_quantize_steps_by_loops():
    """Every value rounds to the nearest whole number of its row's step, the row's standard deviation / fineness;
    the file stores the int16s as a plane of high bytes, then one of low bytes, and reads back the same."""
    matrix = np.random.default_rng(1).normal(size=(4, 48)).astype(np.float32)
    matrix[3] = 0  # a constant row keeps step 1
    q, steps = quantize_steps(matrix, 200)
    for r in range(4):
        step = np.float32(matrix[r].std() / 200) if matrix[r].std() else np.float32(1)
        assert steps[r] == step
        for k in range(48):
            assert q[r, k] == int(np.rint(matrix[r, k] / step))
    layout, blob = quantize({"m": matrix}, Format(Encoding("int16", fineness=200)))
    assert blob[:4 * 48] == bytes((int(v) >> 8) & 0xFF for v in q.ravel())  # high bytes first
    assert np.array_equal(dequantize(layout, unpack(pack(blob)))["m"], q * steps[:, None])


def test_a_format_refuses_what_it_cannot_store():
    with pytest.raises(ValueError, match="int16, int8, float16, not 'int4'"):
        Encoding("int4")
    with pytest.raises(ValueError, match="bytes after its end"):
        unpack(pack(b"weights") + b"\0")  # the page's DecompressionStream refuses them too
    with pytest.raises(ValueError, match="cut short"):
        unpack(pack(b"weights")[:-3])
    with pytest.raises(ValueError, match="beyond int16"):
        quantize_steps(np.array([[0, 0, 0, 1000]], dtype=np.float32), 30000)  # 1000 is 69,000 steps of 433 / 30,000


def test_shipped_weights_stay_within_the_bound_on_the_site_sentences(model, shipped):
    """The page's stated bound is measured on the shipped weights, and meets the issue's 0.005."""
    manifest, _, blob = shipped
    params = EncoderParams.from_state_dict(dequantize(manifest["tensors"], unpack(blob)), model.config)
    worst = max(float(np.abs(encode(params, model.config, model.tokenize(s.text)[1]).weights
                             - encode(model.params, model.config, model.tokenize(s.text)[1]).weights).max())
                for s in SENTENCES)
    snippet = (ROOT / "generated" / "snippets" / "your-sentence.md").read_text(encoding="utf-8")
    stated = float(re.search(r'data-tie-margin="([^"]+)"', snippet)[1]) / 2
    print(f"\nshipped vs float32 on the site's sentences: max |Δ weight| {worst:.4f} (the page states {stated:.4f})")
    assert worst == pytest.approx(stated, abs=5e-6) and worst <= SITE_ACCURACY_BOUND  # stated: to 5 decimals


def test_the_page_names_the_float32_models_heads_for_every_preset_and_pattern(model, shipped, tmp_path):
    """The page's own JS (encoder and head table, run by Node on the shipped weights) names, for each of the three
    presets and each pattern, the float32 model's strongest head, and the runner-up too, as tied within rounding,
    exactly where the float32 model's margin is below twice the stated bound."""
    _, manifest_path, _ = shipped
    snippet = (ROOT / "generated" / "snippets" / "your-sentence.md").read_text(encoding="utf-8")
    tie = float(re.search(r'data-tie-margin="([^"]+)"', snippet)[1])
    runs = []
    for sentence in SENTENCES:
        assert f'data-preset="{sentence.text.replace(chr(39), "&#x27;")}"' in snippet, f"{sentence.id} is not a preset"
        tokens, ids = model.tokenize(sentence.text)
        runs.append({"tokens": tokens, "ids": ids.tolist()})
    (tmp_path / "sentences.json").write_text(json.dumps(runs))
    on_page = json.loads(node("tests/node/named_heads.mjs", str(manifest_path), str(tmp_path / "sentences.json"), repr(tie)))
    label = lambda layer_head: f"layer {layer_head[0] + 1}, head {layer_head[1] + 1}"  # noqa: E731
    kinds = set()
    for sentence, run, page in zip(SENTENCES, runs, on_page):
        tables, _ = sentence_scores(encode(model.params, model.config, np.array(run["ids"])).weights, run["tokens"])
        assert sorted(tables) == sorted(page), sentence.id
        for kind, table in tables.items():
            heads, margin = named_heads(table, tie)
            expected = label(heads[0]) if len(heads) == 1 else f"{label(heads[0])} and {label(heads[1])} (tied within rounding)"
            print(f"{sentence.id:12} {kind:9} float32 margin {margin:.4f}: page {page[kind]!r}")
            assert page[kind] == expected, (sentence.id, kind, margin)
            kinds.add(kind)
    assert kinds == {"previous", "next", "sink", "pronoun"}


def test_what_runs_where_says_shipped_rounded_and_checked_in_three_sentences(generated):
    """your-sentence/ "What runs where" (issue 54, proofreader's item 16): what is shipped, how the weights are
    rounded, and how the files are checked are three sentences, each read in one pass; the numbers stay the build's."""
    honesty = (generated / "snippets" / "your-sentence-honesty.md").read_text(encoding="utf-8")
    download = honesty[honesty.index("The download is"):]
    sentences = re.split(r"(?<=[a-z)])\. (?=[A-Z])", download)[:3]
    shipped, rounded, checked = sentences
    assert re.match(r"The download is [\d.]+ MB: ", shipped) and "vocab.txt" in shipped and "kernels" in shipped
    assert "rounded" not in shipped and "SHA-256" not in shipped, "the sentence of what is shipped says only that"
    assert re.search(r"rounded to a whole number of steps of 1/\d+ of its row's spread", rounded) \
        and "SHA-256" not in rounded, "the rounding is a sentence of its own"
    assert "SHA-256" in checked and "checks every file" in checked, "the check is a sentence of its own"
