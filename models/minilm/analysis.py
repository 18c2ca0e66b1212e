"""What each head does, measured: one number per layer × head, pooled over the sentences.

A row of a head's weights is one query's attention. The pattern scores average one entry of every row
(the previous token, the next token, [CLS], [SEP], the query itself) over all the rows of all the
sentences, so each is "the share of a row's weight that lands there, on average". The link scores read
a single row: the weight from a word to the word its sentence was chosen for (and to a distractor).
The page's callouts name the head with the highest score of each kind; nothing is picked by eye.
"""
from dataclasses import dataclass

import numpy as np

import attention

PATTERNS = {
    "previous": "the previous token",
    "next": "the next token",
    "cls": "[CLS]",
    "sep": "[SEP]",
    "self": "itself",
}


def _pattern_entries(weights):
    """weights (L, H, n, n) -> {pattern: (L, H, rows)}: the entry of each row that a pattern looks at."""
    n = weights.shape[-1]
    rows = np.arange(n)
    return {
        "previous": weights[..., rows[1:], rows[:-1]],  # query i -> key i-1, for i >= 1
        "next": weights[..., rows[:-1], rows[1:]],  # query i -> key i+1, for i <= n-2
        "cls": weights[..., :, 0],
        "sep": weights[..., :, n - 1],
        "self": weights[..., rows, rows],
    }


@dataclass(frozen=True)
class HeadScores:
    """Per-head scores, each (n_layers, n_heads), pooled over every row of every sentence."""

    patterns: dict  # pattern name -> mean weight on that position
    entropy: np.ndarray  # mean row entropy, in nats
    links: dict  # sentence id -> {"key": (L, H) weight query -> key, "distractor": (L, H), "link": Link}
    n_rows: dict  # pattern name -> how many rows its mean averages (over all sentences): a first row has no previous token

    @property
    def shape(self):
        return self.entropy.shape

    def sink(self):
        """The weight a row puts on [CLS] and [SEP] together, per head."""
        return self.patterns["cls"] + self.patterns["sep"]


def head_scores(sentence_heads):
    """Scores for every head from a list of SentenceHeads (data.extract() or data.load())."""
    if not sentence_heads:
        raise ValueError("head_scores needs at least one sentence")
    pooled = {name: [] for name in PATTERNS}
    entropies, links = [], {}
    for heads in sentence_heads:
        w = heads.weights  # (L, H, n, n)
        if w.ndim != 4 or w.shape[-1] != w.shape[-2] or w.shape[-1] != len(heads.tokens):
            raise ValueError(f"sentence {heads.sentence.id!r}: weights of shape {w.shape} for {len(heads.tokens)} tokens")
        for name, entries in _pattern_entries(w).items():
            pooled[name].append(entries)
        entropies.append(attention.row_entropy(w))  # (L, H, n)
        link = heads.sentence.link
        if link is not None:
            q = heads.position(link.query)
            links[heads.sentence.id] = {
                "link": link,
                "key": w[..., q, heads.position(link.key)],
                "distractor": w[..., q, heads.position(link.distractor)],
            }
    pooled = {name: np.concatenate(parts, axis=-1) for name, parts in pooled.items()}  # (L, H, rows)
    patterns = {name: entries.mean(axis=-1) for name, entries in pooled.items()}
    n_rows = {name: entries.shape[-1] for name, entries in pooled.items()}
    entropy = np.concatenate(entropies, axis=-1)
    return HeadScores(patterns=patterns, entropy=entropy.mean(axis=-1), links=links, n_rows=n_rows)


@dataclass(frozen=True)
class Pick:
    """The head with the highest score of one kind, and what the others scored, for the callout."""

    kind: str
    layer: int
    head: int
    score: float
    runner_up: float  # the best score among the other heads
    runner_up_layer: int
    runner_up_head: int
    median: float  # the median head's score

    @property
    def runner_up_label(self):
        return f"layer {self.runner_up_layer + 1}, head {self.runner_up_head + 1}"  # counted from 1, as on the page

    @property
    def label(self):
        """Counted from 1, as everywhere on the site: layer 0, head 2 reads "layer 1, head 3"."""
        return f"layer {self.layer + 1}, head {self.head + 1}"  # counted from 1, as on the page


def best_head(kind, table):
    """The argmax of a (n_layers, n_heads) table as a Pick."""
    table = np.asarray(table, dtype=float)
    first, second = np.argsort(-table.ravel(), kind="stable")[:2]  # ties: the earlier head
    layer, head = np.unravel_index(first, table.shape)
    runner_layer, runner_head = np.unravel_index(second, table.shape)
    return Pick(kind, int(layer), int(head), float(table[layer, head]), float(table[runner_layer, runner_head]),
                int(runner_layer), int(runner_head), float(np.median(table)))


def pick_heads(scores):
    """The callout heads: {kind: Pick} for previous, next, sink and each sentence's link."""
    picks = {
        "previous": best_head("previous", scores.patterns["previous"]),
        "next": best_head("next", scores.patterns["next"]),
        "sink": best_head("sink", scores.sink()),
    }
    for sentence_id, link in scores.links.items():
        picks[sentence_id] = best_head(sentence_id, link["key"])
    return picks


# ---------------------------------------------------------------- the your-sentence page's scores, one sentence

PRONOUNS = frozenset("it its he him his she her they them their".split())
# words a pronoun does not stand for: the pronoun link looks past them (and past the word just before it)
FUNCTION_WORDS = frozenset((
    "a an the and or but because so if when while that which who this these those of to in on at by for with "
    "from as is are was were be been am do does did not no has have had will would can could "
    "it its he him his she her they them their i me my we us our you your").split())


def sentence_scores(weights, tokens):
    """What docs/widgets/your-sentence/your-sentence-app.js scores for one sentence (tests hold the two equal):
    weights (L, H, n, n), tokens (n,) -> {kind: (L, H) table} for "previous", "next", "sink" (the mean over
    the rows of the weight on the previous token, the next token, [CLS] plus [SEP]) and, when the sentence
    has a pronoun with a content word at least two tokens before it, "pronoun": the largest weight from the
    first such pronoun to such a word. Also returns the pronoun link's (query, key per head) or None."""
    weights = np.asarray(weights, dtype=float)
    n = len(tokens)
    if weights.ndim != 4 or weights.shape[-2:] != (n, n):
        raise ValueError(f"weights of shape {weights.shape} for {n} tokens: expected (n_layers, n_heads, {n}, {n})")
    rows = np.arange(n)
    tables = {
        "previous": weights[..., rows[1:], rows[:-1]].mean(axis=-1),
        "next": weights[..., rows[:-1], rows[1:]].mean(axis=-1),
        "sink": (weights[..., :, 0] + weights[..., :, n - 1]).mean(axis=-1),
    }
    content = [j > 0 and token.isalnum() and token not in FUNCTION_WORDS for j, token in enumerate(tokens)]
    query = next((i for i, token in enumerate(tokens) if token in PRONOUNS and any(content[:max(i - 1, 0)])), None)
    if query is None:
        return tables, None
    candidates = [j for j in range(1, query - 1) if content[j]]
    row = weights[..., query, candidates]  # (L, H, candidates)
    tables["pronoun"] = row.max(axis=-1)
    return tables, (query, np.asarray(candidates)[row.argmax(axis=-1)])


def named_heads(table, tie_margin):
    """The head(s) the page names for one score table: the highest (the earlier head on a tie), and with it the
    runner-up when the two are closer than `tie_margin` -> ([(layer, head), …], margin between the two)."""
    pick = best_head("", table)
    first, second = (pick.layer, pick.head), (pick.runner_up_layer, pick.runner_up_head)
    margin = pick.score - pick.runner_up
    return ([first, second] if margin < tie_margin else [first]), margin
