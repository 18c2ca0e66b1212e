"""The site's three models, one home each, built on the pure functions of `attention/`.

- `decoder`: the tiny decoder-only transformer of Watch it write (docs/watch-it-write.md), which learns to reverse
  digit strings: its forward pass, decoding with the KV cache (`decode_step`, whose trace gives each layer's rows
  and weights to the page), its gradients and its training.
- `learning`: the one-head attention layer of Watch it learn (docs/learning.md), which learns to copy the
  previous token: its task, gradients (the library's own backward pass), Adam and the training run, with and
  without the 1/√d_k scale.
- `minilm`: the real pretrained encoder, all-MiniLM-L6-v2, run by the site's own numpy code (docs/real-heads.md,
  docs/block.md, docs/your-sentence.md): the forward pass, loading and shipping its weights, the head scores,
  attention rollout and the committed extraction.

What the pages show of training is trained once by `make train` (figures_src/trained.py) and committed in
data/trained/; the build only loads it. Importing a model needs numpy alone.
"""
