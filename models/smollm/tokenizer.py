"""SmolLM2's tokenizer: byte-level BPE, built from the GGUF file's own vocabulary and merges.

What transformers builds from the same file (tokenizer.ggml.model "gpt2", pre "smollm"), step by step:

1. Special tokens typed in the text are found first, longest match leftmost (the 17 tokens of type "control",
   such as <|im_start|> and <|im_end|>), and kept as they are; the text between them goes on alone.
2. Pre-tokenization, GPT-2's pattern: 's 't 're 've 'm 'll 'd | ' '? letters | ' '? digits | ' '? anything else
   but white space | white space not followed by a non-space | white space. Letters are Unicode's L categories,
   digits its N categories, white space its White_Space property (`WHITESPACE`). A space sticks to the word after
   it, and of a run of white space before a word, all but the last character form a piece of their own.
3. Each piece's UTF-8 bytes become GPT-2's printable stand-ins (a byte b -> `BYTE_CHARACTERS[b]`: the space is
   "Ġ", the newline "Ċ"), one symbol per byte. 21 bytes have no token (six control characters such as U+0004,
   and lead bytes such as 0xF1 of planes 4 to 11): they are dropped, as tokenizers drops a symbol outside the
   vocabulary when there is no unknown token.
4. BPE: repeatedly, the adjacent pair of symbols whose merge comes first in the merges list is merged, leftmost
   first when a pair occurs twice (tokenizers' priority queue, done the same way here); what is left are tokens.

No beginning-of-text token is added (add_bos_token is false). Lone surrogates (which UTF-8 cannot encode) become
U+FFFD first, as the browser's TextEncoder makes them. `decode` joins the tokens' bytes and decodes them as UTF-8,
a broken sequence becoming U+FFFD; `piece` does that for one token.

`tokenizer_json()` is what the browser's twin (docs/widgets/smollm/bpe.js) reads: the tokens, the merges and the
special tokens' ids, as compact UTF-8 JSON.
"""
import heapq
import json
import re
import unicodedata
from functools import cache

from .model import metadata

CONTROL = 3  # tokenizer.ggml.token_type of a special token (1 is an ordinary one)
# Unicode's White_Space property: what tokenizers' pattern means by \s (str.isspace also takes U+001C … U+001F)
WHITESPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                       "\u2028\u2029\u202f\u205f\u3000")
CONTRACTIONS = ("s", "t", "re", "ve", "m", "ll", "d")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def byte_characters():
    """GPT-2's stand-ins: byte b -> a printable character; printable Latin-1 bytes stand for themselves, the
    others (controls, space, …) are 256 + k, in byte order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    characters, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            characters[byte] = chr(byte)
        else:
            characters[byte] = chr(256 + extra)
            extra += 1
    return [characters[byte] for byte in range(256)]


BYTE_CHARACTERS = byte_characters()
BYTE_OF = {character: byte for byte, character in enumerate(BYTE_CHARACTERS)}


def kind(character):
    """"space", "letter", "digit" or "other": the classes of the pre-tokenizer's pattern."""
    if character in WHITESPACE:
        return "space"
    category = unicodedata.category(character)[0]
    return {"L": "letter", "N": "digit"}.get(category, "other")


def pre_tokenize(text):
    """text -> its pieces, GPT-2's pattern applied left to right (see the module's step 2)."""
    pieces, start, n = [], 0, len(text)
    while start < n:
        character = text[start]
        if character == "'":
            contraction = next((c for c in CONTRACTIONS if text.startswith(c, start + 1)), None)
            if contraction:
                pieces.append(text[start:start + 1 + len(contraction)])
                start += 1 + len(contraction)
                continue
        first = start + 1 if character == " " and start + 1 < n and kind(text[start + 1]) != "space" else start
        wanted = kind(text[first])
        end = first + 1
        while end < n and kind(text[end]) == wanted:
            end += 1
        if wanted == "space" and end < n and end - start > 1:
            end -= 1  # white space before a non-space: its last character goes with what follows
        pieces.append(text[start:end])
        start = end
    return pieces


class Tokenizer:
    """The BPE tokenizer of `tokens` (id -> token, in GPT-2's byte stand-ins) and `merges` ("left right", best
    first); `special`: the ids of the tokens matched whole in the text."""

    def __init__(self, tokens, merges, special):
        self.tokens = list(tokens)
        self.ids = {token: id for id, token in enumerate(self.tokens)}
        self.merges = {}  # (left id, right id) -> (rank, merged id)
        for rank, merge in enumerate(merges):
            left, right = merge.split(" ")
            self.merges[self.ids[left], self.ids[right]] = (rank, self.ids[left + right])
        self.special = sorted(special)
        names = sorted((self.tokens[id] for id in self.special), key=len, reverse=True)  # longest first
        self.special_pattern = re.compile("|".join(map(re.escape, names))) if names else None
        self.words = {}  # piece -> ids, as tokenizers caches them

    def encode(self, text):
        """text -> token ids."""
        if not isinstance(text, str):
            raise TypeError(f"encode takes a str, got {type(text).__name__}: {text!r:.60}")
        text = LONE_SURROGATE.sub("\ufffd", text)
        ids, start = [], 0
        for match in self.special_pattern.finditer(text) if self.special_pattern else ():
            ids += self.encode_ordinary(text[start:match.start()])
            ids.append(self.ids[match.group()])
            start = match.end()
        return ids + self.encode_ordinary(text[start:])

    def encode_ordinary(self, text):
        ids = []
        for piece in pre_tokenize(text):
            if piece not in self.words:
                symbols = (self.ids.get(BYTE_CHARACTERS[byte]) for byte in piece.encode("utf-8"))
                self.words[piece] = self.bpe([symbol for symbol in symbols if symbol is not None])
            ids += self.words[piece]
        return ids

    def bpe(self, symbols):
        """Merge a piece's symbols (ids), lowest rank first, leftmost first among equal ranks (tokenizers'
        word.rs: a heap of candidate merges, an entry dropped when its pair has changed since)."""
        following = list(range(1, len(symbols))) + [-1]
        previous = list(range(-1, len(symbols) - 1))
        alive = [True] * len(symbols)
        queue = [(self.merges[pair][0], position, self.merges[pair][1])  # (rank, where, merged id)
                 for position, pair in enumerate(zip(symbols, symbols[1:])) if pair in self.merges]
        heapq.heapify(queue)
        while queue:
            rank, position, merged = heapq.heappop(queue)
            right = following[position]
            if not alive[position] or right < 0 or self.merges.get((symbols[position], symbols[right]), (0, -1))[1] != merged:
                continue  # stale: one of the pair's symbols has changed since it was queued
            symbols[position] = merged
            alive[right] = False
            following[position] = following[right]
            if following[right] >= 0:
                previous[following[right]] = position
            for left in (previous[position], position):
                if left >= 0 and following[left] >= 0:
                    pair = (symbols[left], symbols[following[left]])
                    if pair in self.merges:
                        heapq.heappush(queue, (self.merges[pair][0], left, self.merges[pair][1]))
        return [symbol for symbol, kept in zip(symbols, alive) if kept]

    def token_bytes(self, id):
        token = self.token(id)
        if id in self.special:
            return token.encode("utf-8")
        return bytes(BYTE_OF[character] for character in token)

    def token(self, id):
        if not isinstance(id, int) or isinstance(id, bool) or not 0 <= id < len(self.tokens):
            raise ValueError(f"{id!r} is not a token id: the vocabulary has ids 0 … {len(self.tokens) - 1}")
        return self.tokens[id]

    def decode(self, ids):
        """ids -> text: the tokens' bytes joined, decoded as UTF-8 (a broken sequence becomes U+FFFD)."""
        return b"".join(self.token_bytes(int(id)) for id in ids).decode("utf-8", errors="replace")

    def piece(self, id):
        """The readable text of one token: its bytes decoded ("Ġcapital" -> " capital"; part of a character's
        bytes -> U+FFFD)."""
        return self.token_bytes(int(id)).decode("utf-8", errors="replace")


def gguf_vocabulary(path=None):
    """(tokens, merges, special ids) as the GGUF file's tokenizer.ggml.* keys hold them."""
    tokens = metadata("tokenizer.ggml.tokens", path)
    types = metadata("tokenizer.ggml.token_type", path)
    return tokens, metadata("tokenizer.ggml.merges", path), [id for id, kind in enumerate(types) if kind == CONTROL]


@cache
def load_tokenizer(path=None):
    return Tokenizer(*gguf_vocabulary(path))


def encode(text):
    return load_tokenizer().encode(text)


def decode(ids):
    return load_tokenizer().decode(ids)


def piece(id):
    return load_tokenizer().piece(id)


def tokenizer_json(path=None):
    """The browser twin's data, UTF-8 JSON bytes (the same for the same file): {"tokens": [id -> token],
    "merges": ["left right", best first], "special": [ids matched whole in the text], "eos": id}."""
    tokens, merges, special = gguf_vocabulary(path)
    content = {"tokens": tokens, "merges": merges, "special": special,
               "eos": int(metadata("tokenizer.ggml.eos_token_id", path))}
    return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
