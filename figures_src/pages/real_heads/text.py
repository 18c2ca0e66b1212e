"""The real-heads page's sentences and tables, carrying the numbers the head analysis computed; their words are in
words/real-heads.md."""
import numpy as np

from ...engine.text import num
from ...engine.words import _one_line, listed
from .grid import thumbnail_label
from .committed import (WORDS, extraction, kind_name, pick_label, picks, runner_up_label, scores, sentence_about,
                        sentence_name)

HAVING = {"previous": "real-heads-text-rows/previous", "next": "real-heads-text-rows/next"}  # the rows a pattern can score
CALLOUTS = {  # each pattern's callout: its title and its body (a link's are kind_name and real-heads-text-callout-link)
    "previous": ("real-heads-text-callout-previous/title", "real-heads-text-callout-previous"),
    "next": ("real-heads-text-callout-next/title", "real-heads-text-callout-next"),
}
TABLE_WHAT = {"previous": "real-heads-text-table/previous", "next": "real-heads-text-table/next",
              "sink": "real-heads-text-table/sink"}


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
    return WORDS.fill("real-heads-text-provenance", model=meta["model"], package=meta["package"],
                      version=meta["package_version"], layers=arch["n_layers"], heads=arch["n_heads"],
                      d_model=arch["d_model"], d_k=arch["d_k"], safetensors=meta["safetensors_version"],
                      tokenizers=meta["tokenizers_version"], library=meta["library_version"])


def sentence_list(data):
    return "\n".join(WORDS.line("real-heads-text-sentences", sentence=sentence_name(sentence_id),
                                tokens=len(heads.tokens), about=sentence_about(sentence_id), text=heads.sentence.text)
                     for sentence_id, heads in data["by_id"].items())


def rows_averaged(scores, *patterns):
    """The rows the analysis averaged these patterns over, in words: "all 53 rows of the three sentences", or
    "the 50 rows ... that have a token before them" (a first row has no previous token, a last row no next one)."""
    counts = {scores.n_rows[pattern] for pattern in patterns}
    if len(counts) != 1:
        raise ValueError(f"patterns {patterns} average over different numbers of rows: {sorted(counts)}")
    count, every = counts.pop(), scores.n_rows["self"]
    if count == every:
        return WORDS.line("real-heads-text-rows/all", count=count)
    having = listed([WORDS.line(HAVING[p]) for p in patterns])
    return WORDS.line("real-heads-text-rows/having", count=count, having=having)


def callout(data, kind):
    """An admonition naming the head and the numbers that picked it."""
    pick = data["picks"][kind]
    scores = data["scores"]
    runner = dict(head=runner_up_label(pick), score=num(pick.runner_up), median=num(pick.median))
    if kind in CALLOUTS:
        title, body = CALLOUTS[kind]
        title = WORDS.line(title)
        body = WORDS.fill(body, rows=rows_averaged(scores, kind), score=num(pick.score),
                          runner=WORDS.line("real-heads-text-callout/runner", **runner))
    elif kind == "sink":
        title = WORDS.line("real-heads-text-callout-sink/title")
        cls = scores.patterns["cls"][pick.layer, pick.head]
        sep = scores.patterns["sep"][pick.layer, pick.head]
        body = WORDS.fill("real-heads-text-callout-sink", rows=rows_averaged(scores, "cls", "sep"), cls=num(cls),
                          sep=num(sep), score=num(pick.score), runner=WORDS.line("real-heads-text-callout/runner", **runner))
    else:
        link = scores.links[kind]
        L = link["link"]
        title = kind_name(kind)
        body = WORDS.fill("real-heads-text-callout-link", query=L.query, key=L.key, score=num(pick.score),
                          distractor=L.distractor, distractor_score=num(link["distractor"][pick.layer, pick.head]),
                          runner=WORDS.line("real-heads-text-callout/runner-link", key=L.key, **runner))
        same = [k for k, p in data["picks"].items() if k != kind and (p.layer, p.head) == (pick.layer, pick.head)]
        if same:
            body = WORDS.fill("real-heads-text-callout-link/also", body=body,
                              kinds=listed([kind_name(k) for k in same], "comma"))
    return WORDS.fill("real-heads-text-callout", title=title, head=pick_label(pick), body=body)


def sink_paragraph(data):
    scores = data["scores"]
    cls, sep = scores.patterns["cls"], scores.patterns["sep"]  # (L, H)
    n_layers, n_heads = cls.shape
    by_layer = listed([WORDS.line("real-heads-text-sink/layer", share=num(v), layer=k)
                       for k, v in enumerate(cls.mean(axis=1), start=1)], "comma")
    majority = int(np.sum(cls + sep > 0.5))
    heavier, lighter = ("[CLS]", "[SEP]") if cls.mean() >= sep.mean() else ("[SEP]", "[CLS]")
    return WORDS.fill("real-heads-text-sink", heads=n_layers * n_heads, rows=rows_averaged(scores, "cls", "sep"),
                      cls=num(cls.mean()), sep=num(sep.mean()), by_layer=by_layer, majority=majority, heavier=heavier,
                      lighter=lighter)


def caveat(data):
    """The link heads, read with care: what else the same head does, and how close the next head comes."""
    picks, scores = data["picks"], data["scores"]
    pick = picks["coreference"]
    link = scores.links["coreference"]["link"]
    others = [k for k in scores.links if k != "coreference" and (picks[k].layer, picks[k].head) == (pick.layer, pick.head)]
    weights = dict(key=link.key, score=num(pick.score), runner_up=runner_up_label(pick),
                   runner_up_score=num(pick.runner_up))
    evidence = (WORDS.line("real-heads-text-caveat/also", **weights,
                           kinds=listed([kind_name(k) for k in others], "comma"))
                if others else WORDS.line("real-heads-text-caveat/runner-up", **weights))
    return WORDS.fill("real-heads-text-caveat", link=kind_name("coreference"), head=pick_label(pick),
                      evidence=evidence)


def picks_table(data):
    rows = [WORDS.line("real-heads-text-table/row",
                       what=(WORDS.line(TABLE_WHAT[kind]) if kind in TABLE_WHAT else
                             WORDS.line("real-heads-text-table/link", link=kind_name(kind))),
                       head=pick_label(pick), score=num(pick.score), runner_up_score=num(pick.runner_up),
                       runner_up=runner_up_label(pick), median=num(pick.median))
            for kind, pick in data["picks"].items()]
    return WORDS.fill("real-heads-text-table", rows="\n".join(rows))


def viewer_status(data):
    """The viewer's status line, the coreference pick's name at first; its sentence (data-showing, a hole left for
    docs/widgets/real-heads/real-heads.js) takes the name of whichever thumbnail the reader opens."""
    pick = data["picks"]["coreference"]
    thumbnail = thumbnail_label("coreference", pick.layer, pick.head)
    return WORDS.html("real-heads-text-viewer-status", showing=_one_line(WORDS.text("real-heads-showing"), "showing"),
                      status=WORDS.line("real-heads-showing", thumbnail=thumbnail))
