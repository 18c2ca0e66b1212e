"""One module per page of the site, in the order of figures_src/registry.py, beside the running sentences.

Each page module declares, in ITEMS, the worked examples, figures and generated text its page includes
(docs/<page>.md); a page that needs several files is a package (problems/, real_heads/).
"""
