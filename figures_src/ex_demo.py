"""Scaled scores and weights of a six-token sentence."""
from . import sentences


def example():
    return sentences.self_attention_example(
        "ex-demo", __doc__.strip().rstrip("."), "demo/", sentences.DEMO
    )
