"""Every worked example with its permalink and its data download."""
import attention

from . import (build, ex_demo, ex_mask_causal, ex_mask_combined, ex_mask_padding, ex_mask_window, ex_multi_head,
               ex_output, ex_qkv, ex_scores, ex_softmax, registry)
from .tables import table

MODULES = [ex_qkv, ex_scores, ex_softmax, ex_demo, ex_output, ex_multi_head, ex_mask_causal, ex_mask_padding,
           ex_mask_combined, ex_mask_window]


def data():
    listed = {m.__name__.rsplit(".", 1)[-1] for m in MODULES}
    registered = {item for item in registry.ITEMS if item.startswith("ex_")}
    if listed != registered:
        raise RuntimeError(f"cite_table lists {sorted(listed)} but the registry has {sorted(registered)}: update MODULES")
    return {"examples": [(m.example(), build.item_name(m.__name__)) for m in MODULES], "site_url": build.site_url(),
            "version": attention.__version__}


def snippets(data):
    rows = []
    for example, name in data["examples"]:
        page = example["page"]
        permalink = f"{data['site_url']}{page}#{name}"
        rows.append([f"[`{name}`]({page.rstrip('/')}.md#{name}): {example['title']}",
                     f"<{permalink}><br>[{name}.json](examples/{name}.json)"])
    bibtex = (
        "```bibtex\n"
        "@misc{attention_is_a_heatmap,\n"
        "  title        = {Attention Is a Heatmap},\n"
        "  author       = {{Attention Is a Heatmap contributors}},\n"
        f"  howpublished = {{\\url{{{data['site_url']}}}}},\n"
        f"  note         = {{attention library {data['version']}}}\n"
        "}\n"
        "```\n"
    )
    return {"bibtex": bibtex, "": table(["example", "permalink and data"], rows, align=["---", "---"])}
