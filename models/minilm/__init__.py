"""A real pretrained transformer's attention, computed by the site's own numpy code.

`encoder` is the forward pass (it calls `attention.multi_head_attention` in every layer), `model`
finds and loads the pretrained weights and tokenizer, `analysis` scores what each head does, `data`
reads and writes the committed extraction. Importing the package needs numpy only.
"""
from .encoder import (EncoderConfig, EncoderOutput, EncoderParams, LayerSteps, encode, encoder_layer_steps, erf, gelu,
                      layer_norm)

__all__ = ["EncoderConfig", "EncoderOutput", "EncoderParams", "LayerSteps", "encode", "encoder_layer_steps", "erf", "gelu",
           "layer_norm"]
