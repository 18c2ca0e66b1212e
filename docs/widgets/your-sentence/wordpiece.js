// BERT's uncased WordPiece tokenizer, as the model's own tokenizer.json sets it up (Hugging Face `tokenizers`:
// BertNormalizer, BertPreTokenizer, WordPiece, then [CLS] … [SEP]). Pure functions, no DOM: the worker and
// Node's tests import it. tests/test_your_sentence.py checks its ids against `tokenizers` string by string.

const CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u; // what clean_text drops (unassigned code points stay)
const WHITESPACE = /\p{White_Space}/u;
const PUNCTUATION = /\p{P}/u;
const NONSPACING_MARK = /\p{Mn}/u;
// tokenizers' is_chinese_char: the CJK Unified Ideographs blocks and their compatibility forms
const CJK_RANGES = [
  [0x4e00, 0x9fff], [0x3400, 0x4dbf], [0x20000, 0x2a6df], [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f], [0x2b920, 0x2ceaf], [0xf900, 0xfaff], [0x2f800, 0x2fa1f],
];

// `tokenizers` classifies characters with Unicode tables older than the browser's: characters added or
// recategorised since are ordinary letters to it. Found by comparing every code point with `tokenizers`
// (tests/test_your_sentence.py repeats the sweep): these the browser calls marks or format characters, which
// clean_text and strip_accents would drop, and these it calls punctuation, which the pre-tokenizer would split.
const parseRanges = (text) => text.split(" ").map((range) => range.split("-").map((hex) => parseInt(hex, 16)));
const inRanges = (ranges, character) => {
  const code = character.codePointAt(0);
  return ranges.some(([low, high = low]) => code >= low && code <= high);
};
const NEWER_MARKS = parseRanges("7fd 890-891 897-89f 8ca-8e2 9fe afa-aff b55 c04 c3c d00 d3b-d3c d81 eba ece 180f 1885-1886 1abf-1add 1ae0-1aeb 1df6-1dfb a82c a8c5 a8ff a9bd 10d24-10d27 10d69-10d6d 10eab-10eac 10efa-10eff 10f46-10f50 10f82-10f85 11070 11073-11074 110c2 110cd 111c9 111cf 1123e 11241 1133b 113bb-113c0 113ce 113d0 113d2 113e1-113e2 11438-1143f 11442-11444 11446 1145e 1182f-11837 11839-1183a 1193b-1193c 1193e 11943 119d4-119d7 119da-119db 119e0 11a01-11a0a 11a33-11a38 11a3b-11a3e 11a47 11a51-11a56 11a59-11a5b 11a8a-11a96 11a98-11a99 11b60 11b62-11b64 11b66 11c30-11c36 11c38-11c3d 11c3f 11c92-11ca7 11caa-11cb0 11cb2-11cb3 11cb5-11cb6 11d31-11d36 11d3a 11d3c-11d3d 11d3f-11d45 11d47 11d90-11d91 11d95 11d97 11ef3-11ef4 11f00-11f01 11f36-11f3a 11f40 11f42 11f5a 13430-13440 13447-13455 1611e-16129 1612d-1612f 16f4f 16fe4 1cf00-1cf2d 1cf30-1cf46 1e000-1e006 1e008-1e018 1e01b-1e021 1e023-1e024 1e026-1e02a 1e08f 1e130-1e136 1e2ae 1e2ec-1e2ef 1e4ec-1e4ef 1e5ee-1e5ef 1e6e3 1e6e6 1e6ee-1e6ef 1e6f5 1e944-1e94a");
const NEWER_PUNCTUATION = parseRanges("61d 9fd a76 c77 c84 166d 1b4e-1b4f 1b7d-1b7f 2e43-2e4f 2e52-2e5d 10d6e 10ead 10ed0 10f55-10f59 10f86-10f89 113d4-113d5 113d7-113d8 1144b-1144f 1145a-1145b 1145d 11660-1166c 116b9 1183b 11944-11946 119e2 11a3f-11a46 11a9a-11a9c 11a9e-11aa2 11b00-11b09 11be1 11c41-11c45 11c70-11c71 11ef7-11ef8 11f43-11f4f 11fff 12ff1-12ff2 16d6d-16d6f 16e97-16e9a 16fe2 1e5ff 1e95e-1e95f");
const keptByTokenizers = (character) => character.codePointAt(0) >= 0x7fd && inRanges(NEWER_MARKS, character);

export const isWhitespace = (character) => WHITESPACE.test(character);
export const isControl = (character) =>
  !"\t\n\r".includes(character) && CONTROL.test(character) && !keptByTokenizers(character);
export const isCJK = (character) => {
  const code = character.codePointAt(0);
  return CJK_RANGES.some(([low, high]) => code >= low && code <= high);
};
// ASCII punctuation counts whatever its Unicode category ($, +, <, =, >, ^, `, |, ~ are symbols)
export const isPunctuation = (character) => {
  const code = character.codePointAt(0);
  return (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) ||
    (code >= 123 && code <= 126) || (PUNCTUATION.test(character) && !inRanges(NEWER_PUNCTUATION, character));
};

// BertNormalizer: drop NUL, U+FFFD and control characters, turn whitespace into spaces, put spaces around CJK
// ideographs, strip accents (NFD, then drop non-spacing marks), lower-case one character at a time.
export function normalize(text) {
  let cleaned = "";
  for (const character of text) {
    if (character === "\0" || character === "\ufffd" || isControl(character)) continue;
    cleaned += isWhitespace(character) ? " " : isCJK(character) ? ` ${character} ` : character;
  }
  let normalized = "";
  for (const character of cleaned.normalize("NFD")) {
    if (!NONSPACING_MARK.test(character) || keptByTokenizers(character)) normalized += character.toLowerCase();
  }
  return normalized;
}

// BertPreTokenizer: split on whitespace (dropped) and around every punctuation character (kept, alone).
export function preTokenize(text) {
  const words = [];
  let word = "";
  for (const character of text) {
    if (isWhitespace(character) || isPunctuation(character)) {
      if (word) words.push(word);
      word = "";
      if (!isWhitespace(character)) words.push(character);
    } else word += character;
  }
  if (word) words.push(word);
  return words;
}

export class WordPiece {
  // vocabulary: vocab.txt's text, one token a line, the line number being its id
  constructor(vocabulary, { unknown = "[UNK]", prefix = "##", maxInputCharsPerWord = 100, specialTokens = [] } = {}) {
    this.tokens = vocabulary.split("\n");
    if (this.tokens.at(-1) === "") this.tokens.pop();
    this.ids = new Map(this.tokens.map((token, id) => [token, id]));
    Object.assign(this, { unknown, prefix, maxInputCharsPerWord });
    for (const token of [unknown, "[CLS]", "[SEP]", ...specialTokens]) {
      if (!this.ids.has(token)) throw new Error(`the vocabulary has no ${token}`);
    }
    // special tokens typed in the text are matched as they are, before any normalization
    this.specialTokens = specialTokens;
  }

  // One word -> its pieces: the longest prefix in the vocabulary, then the longest "##" continuation, and so
  // on; a word with a part no piece covers, or over maxInputCharsPerWord characters, is one unknown token.
  wordPieces(word) {
    const characters = [...word];
    if (characters.length > this.maxInputCharsPerWord) return [this.unknown];
    const pieces = [];
    for (let start = 0; start < characters.length;) {
      let end = characters.length;
      let piece = null;
      for (; end > start; end--) {
        const candidate = (start ? this.prefix : "") + characters.slice(start, end).join("");
        if (this.ids.has(candidate)) {
          piece = candidate;
          break;
        }
      }
      if (piece === null) return [this.unknown];
      pieces.push(piece);
      start = end;
    }
    return pieces;
  }

  // The text's pieces between [CLS] and [SEP], without a length limit.
  pieces(text) {
    const pieces = [];
    for (const part of this.splitSpecial(text)) {
      if (this.specialTokens.includes(part)) pieces.push(part);
      else for (const word of preTokenize(normalize(part))) pieces.push(...this.wordPieces(word));
    }
    return pieces;
  }

  splitSpecial(text) {
    if (!this.specialTokens.length) return [text];
    const escaped = this.specialTokens.map((token) => token.replace(/[[\]]/g, "\\$&"));
    return text.split(new RegExp(`(${escaped.join("|")})`)).filter((part) => part !== "");
  }

  // text -> { tokens, ids, pieceCount, cut }: [CLS], the pieces, [SEP]; past maxTokens in all, the pieces are
  // cut (cut = true) to leave room for [SEP], as `tokenizers` truncates.
  encode(text, maxTokens = Infinity) {
    const pieces = this.pieces(text);
    const kept = pieces.slice(0, Math.max(0, maxTokens - 2));
    const tokens = ["[CLS]", ...kept, "[SEP]"];
    return { tokens, ids: tokens.map((token) => this.ids.get(token)), pieceCount: pieces.length, cut: kept.length < pieces.length };
  }
}
