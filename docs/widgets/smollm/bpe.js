// SmolLM2's byte-level BPE tokenizer, the twin of models/smollm/tokenizer.py (whose docstring gives the steps):
// special tokens first, GPT-2's pre-tokenizing pattern, UTF-8 bytes as GPT-2's stand-in characters, then merges
// lowest rank first, leftmost first, as tokenizers' priority queue does. Pure functions, no DOM: the worker and
// Node's tests import it. Its data is the build's tokenizer JSON (models/smollm/tokenizer.py's tokenizer_json):
// {tokens: [id -> token], merges: ["left right", best first], special: [ids], eos}.
// tests/test_smollm_tokenizer.py checks its ids against transformers' string by string.

// Unicode's White_Space, spelled out: JavaScript's \s adds U+FEFF and leaves out U+0085
const SPACE = "\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PIECES = new RegExp(`'(?:s|t|re|ve|m|ll|d)| ?\\p{L}+| ?\\p{N}+| ?[^${SPACE}\\p{L}\\p{N}]+|[${SPACE}]+(?![^${SPACE}])|[${SPACE}]+`, "gu");
const LONE_SURROGATE = /\p{Cs}/gu;
const MAX_CACHED_WORDS = 20000;

// GPT-2's stand-ins: printable Latin-1 bytes stand for themselves, the other bytes are 256, 257, … in byte order
export const BYTE_CHARACTERS = (() => {
  const printable = (byte) => (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
  let extra = 256;
  return Array.from({ length: 256 }, (_, byte) => String.fromCharCode(printable(byte) ? byte : extra++));
})();

export const preTokenize = (text) => text.match(PIECES) ?? [];

// A binary heap of [rank, position, merged id], smallest rank then position on top
function push(heap, entry) {
  let index = heap.push(entry) - 1;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!before(heap[index], heap[parent])) break;
    [heap[index], heap[parent]] = [heap[parent], heap[index]];
    index = parent;
  }
}

function pop(heap) {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length) {
    heap[0] = last;
    for (let index = 0; ;) {
      const left = 2 * index + 1;
      const smallest = [left, left + 1].reduce((best, child) =>
        (child < heap.length && before(heap[child], heap[best]) ? child : best), index);
      if (smallest === index) break;
      [heap[index], heap[smallest]] = [heap[smallest], heap[index]];
      index = smallest;
    }
  }
  return top;
}

const before = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

export class BPE {
  constructor({ tokens, merges, special }) {
    this.tokens = tokens;
    this.ids = new Map(tokens.map((token, id) => [token, id]));
    this.merges = new Map(); // left id · 65536 + right id -> [rank, merged id]
    merges.forEach((merge, rank) => {
      const [left, right] = merge.split(" ");
      this.merges.set(this.ids.get(left) * 65536 + this.ids.get(right), [rank, this.ids.get(left + right)]);
    });
    this.special = new Set(special);
    const names = special.map((id) => tokens[id]).sort((a, b) => b.length - a.length);
    this.specialPattern = names.length
      ? new RegExp(`(${names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`) : null;
    this.byteOf = new Map(BYTE_CHARACTERS.map((character, byte) => [character, byte]));
    this.words = new Map();
    this.utf8 = new TextEncoder();
    this.text = new TextDecoder("utf-8", { ignoreBOM: true }); // a leading U+FEFF is text, not a byte-order mark
  }

  encode(text) {
    const ids = [];
    const parts = (this.specialPattern ? text.replace(LONE_SURROGATE, "\ufffd").split(this.specialPattern)
      : [text.replace(LONE_SURROGATE, "\ufffd")]);
    parts.forEach((part, index) => {
      if (index % 2) ids.push(this.ids.get(part)); // split's captured groups: the special tokens
      else for (const word of preTokenize(part)) ids.push(...this.word(word));
    });
    return ids;
  }

  word(text) {
    let ids = this.words.get(text);
    if (ids) return ids;
    const symbols = [];
    for (const byte of this.utf8.encode(text)) {
      const id = this.ids.get(BYTE_CHARACTERS[byte]);
      if (id !== undefined) symbols.push(id); // a byte with no token is dropped, as tokenizers drops it
    }
    ids = this.bpe(symbols);
    if (this.words.size >= MAX_CACHED_WORDS) this.words.clear();
    this.words.set(text, ids);
    return ids;
  }

  // Merge the symbols lowest rank first, leftmost first among equal ranks; a queued merge whose pair has
  // changed since is skipped (tokenizers' word.rs merge_all)
  bpe(symbols) {
    const count = symbols.length;
    const next = Array.from({ length: count }, (_, index) => (index + 1 < count ? index + 1 : -1));
    const previous = Array.from({ length: count }, (_, index) => index - 1);
    const alive = new Array(count).fill(true);
    const heap = [];
    const queue = (position) => {
      const merge = this.merges.get(symbols[position] * 65536 + symbols[next[position]]);
      if (merge) push(heap, [merge[0], position, merge[1]]);
    };
    for (let position = 0; position + 1 < count; position++) queue(position);
    while (heap.length) {
      const [, position, merged] = pop(heap);
      const right = next[position];
      if (!alive[position] || right < 0 || this.merges.get(symbols[position] * 65536 + symbols[right])?.[1] !== merged) continue;
      symbols[position] = merged;
      alive[right] = false;
      next[position] = next[right];
      if (next[right] >= 0) previous[next[right]] = position;
      if (previous[position] >= 0) queue(previous[position]);
      if (next[position] >= 0) queue(position);
    }
    return symbols.filter((_, index) => alive[index]);
  }

  bytes(id) {
    const token = this.tokens[id];
    if (token === undefined) throw new Error(`${id} is not a token id: the vocabulary has ids 0 … ${this.tokens.length - 1}`);
    return this.special.has(id) ? [...this.utf8.encode(token)] : Array.from(token, (character) => this.byteOf.get(character));
  }

  // ids -> text: the tokens' bytes joined, decoded as UTF-8 (a broken sequence becomes U+FFFD)
  decode(ids) {
    return this.text.decode(new Uint8Array(ids.flatMap((id) => this.bytes(id))));
  }

  // The readable text of one token ("Ġcapital" -> " capital")
  piece(id) {
    return this.decode([id]);
  }
}
