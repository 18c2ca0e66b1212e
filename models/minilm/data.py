"""The site's sentences, their extraction from the model, and the committed data file.

`make real-heads` runs `extract()` and `save()`: data/real_heads.npz holds, for every sentence, the
queries, keys and values of every layer and head as float16 (n_layers, n_heads, n, d_k), and
data/real_heads.json the provenance (model, package and version, tokenizer, library version) and each
sentence's text and tokens. The site build reads only these two files (`load()`), never the model, and
computes the scores, weights and entropies from Q, K and V with `attention/`, as every page does.
"""
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import attention

from .encoder import encode
from .model import DISTRIBUTION, MODEL_NAME

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "data"
ARRAYS_FILE = "real_heads.npz"
PROVENANCE_FILE = "real_heads.json"
STORED = ("Q", "K", "V")  # per sentence, (n_layers, n_heads, n, d_k) float16
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Link:
    """A word the sentence was chosen to test, the word it should look at, and a plausible wrong one."""

    query: str
    key: str
    distractor: str


@dataclass(frozen=True)
class Sentence:
    id: str
    text: str
    about: str  # in the provenance; the pages print words/real-heads.md's real-heads-sentence-about/<id>
    link: Link | None = None


SENTENCES = (
    Sentence(
        "coreference",
        "The animal didn't cross the street because it was too tired.",
        "a pronoun and the noun it refers to",
        Link(query="it", key="animal", distractor="street"),
    ),
    Sentence(
        "agreement",
        "The keys to the old cabinet in the hallway are on the table.",
        "a verb and its plural subject, six words apart",
        Link(query="are", key="keys", distractor="cabinet"),
    ),
    Sentence(
        "long",
        "The author who wrote the letters that the editor rejected finally published them herself in a small magazine.",
        "a longer sentence, where heads that look at neighbours stand out",
    ),
)


@dataclass(frozen=True)
class SentenceHeads:
    """One sentence's attention in every layer and head."""

    sentence: Sentence
    tokens: list  # n strings, [CLS] first and [SEP] last
    ids: np.ndarray  # (n,) token ids
    Q: np.ndarray  # (n_layers, n_heads, n, d_k): each head's queries, X·W_Q + b_Q cut into heads
    K: np.ndarray  # (n_layers, n_heads, n, d_k)
    V: np.ndarray  # (n_layers, n_heads, n, d_k)
    weights: np.ndarray  # (n_layers, n_heads, n, n): softmax(QKᵀ/√d_k) per head

    def position(self, word):
        """The index of `word` among the tokens; it must occur exactly once."""
        found = [i for i, token in enumerate(self.tokens) if token == word]
        if len(found) != 1:
            raise ValueError(f"sentence {self.sentence.id!r}: token {word!r} occurs {len(found)} times in {self.tokens}")
        return found[0]


def head_projections(params, config, hidden_states):
    """Every layer's per-head Q, K, V from the layers' inputs: 3 × (n_layers, n_heads, n, d_k).

    hidden_states[l] (n, d_model) is what layer l projects; head h's Q is its d_k columns of
    X·W_Q + b_Q (and so for K and V), exactly as inside `multi_head_attention`.
    """
    Q, K, V = [], [], []
    for X, layer in zip(hidden_states, params.layers):
        for out, W, b in ((Q, layer.W_Q, layer.b_Q), (K, layer.W_K, layer.b_K), (V, layer.W_V, layer.b_V)):
            out.append(attention.split_heads(X @ W + b, config.n_heads))  # (n, d_model) -> (n_heads, n, d_k)
    return np.stack(Q), np.stack(K), np.stack(V)


def extract(model, sentences=SENTENCES):
    """Run the numpy encoder on each sentence -> list of SentenceHeads (float32, straight from the model)."""
    result = []
    for sentence in sentences:
        tokens, ids = model.tokenize(sentence.text)
        output = encode(model.params, model.config, ids)
        Q, K, V = head_projections(model.params, model.config, output.hidden_states[:-1])
        heads = SentenceHeads(sentence, tokens, ids, Q, K, V, output.weights)
        if sentence.link:
            for word in (sentence.link.query, sentence.link.key, sentence.link.distractor):
                heads.position(word)  # each must be one token, once
        result.append(heads)
    return result


def provenance(model, package_version):
    """Where the numbers come from, for data/real_heads.json."""
    return {
        "format_version": FORMAT_VERSION,
        "model": MODEL_NAME,
        "package": DISTRIBUTION,
        "package_version": package_version,
        "tokenizer": "tokenizer.json of the package, read with tokenizers (BERT WordPiece, uncased)",
        "tokenizers_version": _version("tokenizers"),
        "safetensors_version": _version("safetensors"),
        "library_version": attention.__version__,
        "numpy_version": np.__version__,
        "architecture": {
            "n_layers": model.config.n_layers,
            "n_heads": model.config.n_heads,
            "d_model": model.config.d_model,
            "d_k": model.config.d_k,
        },
        "stored": {name: "float16 (n_layers, n_heads, n, d_k), rounded from the float32 forward pass" for name in STORED},
        "command": "make real-heads",
    }


def save(extracted, meta, directory=DATA_DIR):
    """Write <directory>/real_heads.npz (float16 arrays) and real_heads.json (provenance, sentences).

    The .npz is written with fixed zip timestamps, so extracting twice gives identical bytes.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for heads in extracted:
        arrays[f"{heads.sentence.id}/ids"] = heads.ids.astype(np.int32)
        for name in STORED:
            arrays[f"{heads.sentence.id}/{name}"] = getattr(heads, name).astype(np.float16)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key, value in sorted(arrays.items()):
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            member = io.BytesIO()
            np.lib.format.write_array(member, value, allow_pickle=False)
            archive.writestr(info, member.getvalue())
    (directory / ARRAYS_FILE).write_bytes(buffer.getvalue())
    document = dict(meta)
    document["sentences"] = [
        {
            "id": heads.sentence.id,
            "text": heads.sentence.text,
            "about": heads.sentence.about,
            "link": None if heads.sentence.link is None else vars(heads.sentence.link),
            "tokens": heads.tokens,
        }
        for heads in extracted
    ]
    (directory / PROVENANCE_FILE).write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load(directory=DATA_DIR):
    """-> (provenance dict, list of SentenceHeads) from the committed files.

    Q, K and V are the stored float16 numbers as float64; the weights are computed from them with
    `attention.attend`, as the pages compute theirs.
    """
    directory = Path(directory)
    arrays_path, meta_path = directory / ARRAYS_FILE, directory / PROVENANCE_FILE
    for path in (arrays_path, meta_path):
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: it is committed to the repository; `make real-heads` rewrites it")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{meta_path}: format_version {meta.get('format_version')!r}, this code reads {FORMAT_VERSION}")
    result = []
    with np.load(arrays_path, allow_pickle=False) as arrays:
        for entry in meta.pop("sentences"):
            link = None if entry["link"] is None else Link(**entry["link"])
            sentence = Sentence(entry["id"], entry["text"], entry["about"], link)
            n = len(entry["tokens"])
            stored = {}
            for name in STORED:
                value = arrays[f"{sentence.id}/{name}"].astype(np.float64)
                if value.ndim != 4 or value.shape[-2] != n:
                    raise ValueError(f"{arrays_path}: {sentence.id}/{name} has shape {value.shape} for {n} tokens")
                stored[name] = value
            ids = arrays[f"{sentence.id}/ids"].astype(np.int64)
            _, weights = attention.attend(stored["Q"], stored["K"], stored["V"])  # (n_layers, n_heads, n, n)
            result.append(SentenceHeads(sentence, entry["tokens"], ids, weights=weights, **stored))
    return meta, result


def _version(distribution):
    import importlib.metadata

    return importlib.metadata.version(distribution)
