"""One module per page of the site that has generated content (mkdocs.yml's nav names it: figures_src/registry.py),
beside the running sentences.

Each page module declares, in ITEMS, the worked examples, figures and generated text its page includes
(docs/<page>.md); a page that needs several files is a package (problems/, real_heads/).
"""
from .. import registry  # noqa: F401  (imported with any page: an Example asks it for its page)
