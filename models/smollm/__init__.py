"""SmolLM2-135M-Instruct, a current Llama-style decoder, read from the GGUF file its pinned package carries.

`model` finds the file and reads its shape (`Config`); the numpy reference, its tokenizer and the format the
browser downloads live beside it.
"""
