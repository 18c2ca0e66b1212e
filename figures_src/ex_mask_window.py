"""A sliding-window mask of width 3 on a six-token sentence."""
import attention

from . import sentences

WINDOW = 3


def example():
    sentence = sentences.DEMO
    return sentences.self_attention_example(
        "ex-mask-window", __doc__.strip().rstrip("."), "masks/", sentence,
        mask=attention.sliding_window_mask(sentence.n, WINDOW), window=WINDOW,
    )
