"""The committed extraction of the real model, and what the page computes from it: every head's scores, the
heads it names, and how they are labelled. Everything reads data/real_heads.{npz,json}, written by
`make real-heads`; the model is never loaded during the site build.
"""
import functools

from models.minilm import analysis
from models.minilm import data as realdata

from ...engine import Words
from ...engine.text import head_label

WORDS = Words("words/real-heads.md")  # the whole page's words: this module, text.py, grid.py, rollout.py, __init__.py
N_LAYERS = 6  # all-MiniLM-L6-v2; `extraction()` checks the committed data agrees
PATTERN_KINDS = {"previous": "real-heads-kind/previous", "next": "real-heads-kind/next", "sink": "real-heads-kind/sink"}
# Which sentence shows each kind of head: the long one for the neighbour heads, the others their own.
KIND_SENTENCE = {"previous": "long", "next": "long", "sink": "coreference", "coreference": "coreference", "agreement": "agreement"}
# Each sentence's name and what it tests, as the pages print them (models/minilm/data.py's ids are data: JSON keys,
# file names, example ids).
SENTENCE_NAMES = {"coreference": "real-heads-sentence/coreference", "agreement": "real-heads-sentence/agreement",
                  "long": "real-heads-sentence/long"}
SENTENCE_ABOUT = {"coreference": "real-heads-sentence-about/coreference",
                  "agreement": "real-heads-sentence-about/agreement", "long": "real-heads-sentence-about/long"}


@functools.cache
def extraction():
    """-> (provenance dict, {sentence id: SentenceHeads}) from the committed files."""
    meta, sentence_heads = realdata.load()
    if meta["architecture"]["n_layers"] != N_LAYERS:
        raise ValueError(f"data/real_heads.json: {meta['architecture']['n_layers']} layers; the page declares {N_LAYERS}")
    return meta, {heads.sentence.id: heads for heads in sentence_heads}


@functools.cache
def scores():
    _, by_id = extraction()
    return analysis.head_scores(list(by_id.values()))


@functools.cache
def picks():
    return analysis.pick_heads(scores())


def kind_name(kind):
    """"previous token", …, or a sentence's link: "“it” → “animal”"."""
    if kind in PATTERN_KINDS:
        return WORDS.line(PATTERN_KINDS[kind])
    link = scores().links[kind]["link"]
    return WORDS.line("real-heads-kind/link", query=link.query, key=link.key)


def sentence_name(sentence_id):
    """A sentence's name as the pages print it ("coreference"): its id stays data (a JSON key, a file name)."""
    return WORDS.line(SENTENCE_NAMES[sentence_id])


def sentence_about(sentence_id):
    """What a sentence was chosen to test, in words ("a pronoun and the noun it refers to")."""
    return WORDS.line(SENTENCE_ABOUT[sentence_id])


def pick_label(pick):
    """The head a Pick names, as head_label writes it."""
    return head_label(pick.layer, pick.head)


def runner_up_label(pick):
    """The next-best head of a Pick, as head_label writes it."""
    return head_label(pick.runner_up_layer, pick.runner_up_head)
