"""SmolLM2's tokenizers against transformers' own, loaded from the same GGUF file.

- models/smollm/tokenizer.py (Python) gives transformers' ids on every string of tests/smollm_strings.py (over 300,
  hostile ones included), decodes them to transformers' text, and round-trips wherever transformers does;
  `piece(id)` is transformers' decoding of that one token, for every token of the vocabulary.
- docs/widgets/smollm/bpe.js (the browser's twin), run by Node on `tokenizer_json()`, gives the same ids, the same
  decoded text and the same pieces.
- `tokenizer_json()` is the GGUF's vocabulary, byte for byte the same on every call.

transformers' tokenizer cannot take a lone surrogate (Rust strings are UTF-8): it is given the string with each
one replaced by U+FFFD, which is what both of ours do first (as the browser's TextEncoder does).
"""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from models.smollm.model import gguf_path
from models.smollm.tokenizer import BYTE_CHARACTERS, load_tokenizer, pre_tokenize, tokenizer_json
from smollm_strings import ENGLISH, PROMPTS, STRINGS

ROOT = Path(__file__).resolve().parents[1]
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
LONG_PROMPT = " ".join(ENGLISH * 3)[:2000]  # the page's box holds 2,000 characters


def without_surrogates(text):
    return LONE_SURROGATE.sub("\ufffd", text)


@pytest.fixture(scope="module")
def hf_tokenizer():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer  # noqa: PLC0415: a few seconds to import, for the slow tests only

    path = gguf_path()
    return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)


@pytest.fixture(scope="module")
def expected(hf_tokenizer):
    """transformers' ids and decoded text for every string."""
    ids = [hf_tokenizer.encode(without_surrogates(text), add_special_tokens=False) for text in STRINGS]
    return ids, [hf_tokenizer.decode(each) for each in ids]


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer()


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """bpe.js's ids and decoded text for LONG_PROMPT and every string, its piece of every token id, its timing."""
    folder = tmp_path_factory.mktemp("smollm-tokenizer")
    (folder / "tokenizer.json").write_bytes(tokenizer_json())
    (folder / "corpus.json").write_text(json.dumps([LONG_PROMPT, *STRINGS]), encoding="utf-8")
    executable = shutil.which("node")
    assert executable, "Node.js is needed (make test installs it)"
    result = subprocess.run([executable, "tests/node/smollm_tokenize.mjs", str(folder / "tokenizer.json"),
                             str(folder / "corpus.json")], cwd=ROOT, capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    return json.loads(result.stdout)


def test_the_strings_are_over_300_with_the_hostile_ones():
    assert len(STRINGS) >= 300, "the tokenizers are compared on at least 300 strings"
    for hostile in ["", " ", "a" * 5000, "\x00", "a\ud800b", "<|im_start|>", "\u200b", "family 👨‍👩‍👧‍👦 and couple 👩‍❤️‍👨"]:
        assert hostile in STRINGS, f"the strings include {hostile[:20]!r}"
    assert set(PROMPTS) <= set(STRINGS), "the model's prompts are among the strings"


@pytest.mark.slow
def test_python_tokenizer_gives_transformers_ids_on_every_string(tokenizer, expected):
    differ = [(text, ours, theirs) for text, theirs in zip(STRINGS, expected[0])
              if (ours := tokenizer.encode(text)) != theirs]
    assert not differ, (f"models/smollm/tokenizer.py gives transformers' ids on every string: {len(differ)} differ, "
                        f"first {differ[0][0][:60]!r}: {differ[0][1][:12]} against {differ[0][2][:12]}")


@pytest.mark.slow
def test_python_decode_gives_transformers_text_and_round_trips_where_it_does(tokenizer, expected):
    ids, texts = expected
    differ = [text for text, each, theirs in zip(STRINGS, ids, texts) if tokenizer.decode(each) != theirs]
    assert not differ, f"decode gives transformers' text for the same ids: {len(differ)} differ, first {differ[0][:60]!r}"
    round_trips = [text for text, theirs in zip(STRINGS, texts) if theirs == without_surrogates(text)]
    lossy = [text for text in STRINGS if any(BYTE_CHARACTERS[byte] not in tokenizer.ids
                                             for byte in without_surrogates(text).encode("utf-8"))]
    assert set(STRINGS) - set(round_trips) == set(lossy), \
        "transformers round-trips every string but those with a byte that has no token (U+0004, U+0006, …)"
    broken = [text for text in round_trips if tokenizer.decode(tokenizer.encode(text)) != without_surrogates(text)]
    assert not broken, f"decode(encode(text)) is the text wherever transformers round-trips: not for {broken[0][:60]!r}"


@pytest.mark.slow
def test_piece_is_transformers_decoding_of_each_token(tokenizer, hf_tokenizer):
    differ = [id for id in range(len(tokenizer.tokens)) if tokenizer.piece(id) != hf_tokenizer.decode([id])]
    assert not differ, (f"piece(id) is the token's text as transformers decodes it alone: {len(differ)} differ, "
                        f"first {differ[0]}: {tokenizer.piece(differ[0])!r} against {hf_tokenizer.decode([differ[0]])!r}")


@pytest.mark.slow
def test_js_twin_gives_transformers_ids_and_text(js, expected, tokenizer):
    ids, texts = expected
    differ = [text for text, ours, theirs in zip(STRINGS, js["ids"][1:], ids) if ours != theirs]
    assert not differ, f"bpe.js gives transformers' ids on every string: {len(differ)} differ, first {differ[0][:60]!r}"
    differ = [text for text, ours, theirs in zip(STRINGS, js["decoded"][1:], texts) if ours != theirs]
    assert not differ, f"bpe.js decodes to transformers' text: {len(differ)} differ, first {differ[0][:60]!r}"
    assert js["ids"][0] == tokenizer.encode(LONG_PROMPT), "bpe.js tokenizes a 2,000-character prompt as Python does"
    differ = [id for id, piece in enumerate(js["pieces"]) if piece != tokenizer.piece(id)]
    assert not differ, f"bpe.js's piece(id) is Python's for every token: {len(differ)} differ, first {differ[0]}"
    print(f"bpe.js: built in {js['timing']['build']:.0f} ms; a 2,000-character prompt in {js['timing']['cold']:.1f} ms "
          f"(cold), {js['timing']['warm']:.2f} ms (warm)")


def test_tokenizer_json_is_the_gguf_vocabulary_the_same_on_every_call(tokenizer):
    content = tokenizer_json()
    assert content == tokenizer_json(), "tokenizer_json() gives the same bytes on every call"
    data = json.loads(content)
    assert data["tokens"] == tokenizer.tokens, "the JSON's tokens are the GGUF's, in id order"
    assert len(data["merges"]) == 48900 and data["merges"][0] == "Ġ t", "the JSON's merges are the GGUF's, best first"
    assert data["special"] == list(range(17)) and data["tokens"][2] == "<|im_end|>" and data["eos"] == 2, \
        "the special tokens are ids 0 … 16, and the end of a reply is <|im_end|> (id 2)"


def test_pre_tokenizer_follows_gpt2s_pattern():
    assert pre_tokenize("it's  a\n\n\nb 12 x!? ") == ["it", "'s", " ", " a", "\n\n", "\n", "b", " 12", " x", "!?", " "], \
        "GPT-2's pattern: contractions, a space sticks to the next word, the last white space before a word goes with it"
    assert pre_tokenize("") == [], "the empty text has no pieces"


def test_bad_input_is_named(tokenizer):
    with pytest.raises(TypeError, match="encode takes a str"):
        tokenizer.encode(b"bytes")
    with pytest.raises(ValueError, match="49152 is not a token id"):
        tokenizer.decode([1, 49152])
    with pytest.raises(ValueError, match="-1 is not a token id"):
        tokenizer.piece(-1)
    assert tokenizer.encode("") == [] and tokenizer.decode([]) == "", "the empty text is no tokens, and back"
