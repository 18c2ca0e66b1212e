"""Padding and a causal mask combined, in a batch of two sentences."""
from . import batch_masks


def example():
    return batch_masks.batch_example("ex-mask-combined", __doc__.strip().rstrip("."), causal=True)
