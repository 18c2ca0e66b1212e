// node tests/node/tokenize.mjs VOCAB CORPUS.json MAX_TOKENS: prints {"full": [ids…], "cut": [ids…]} per string,
// the JS tokenizer's ids without a limit and with MAX_TOKENS (for tests/test_your_sentence.py).
import { readFileSync } from "node:fs";
import { WordPiece } from "../../docs/widgets/your-sentence/wordpiece.js";

const [vocabularyPath, corpusPath, maxTokens] = process.argv.slice(2);
const tokenizer = new WordPiece(readFileSync(vocabularyPath, "utf8"),
  { specialTokens: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] });
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
const results = corpus.map((text) => {
  const cut = tokenizer.encode(text, Number(maxTokens));
  return { full: tokenizer.encode(text).ids, cut: cut.ids, cutNote: cut.cut };
});
process.stdout.write(JSON.stringify(results));
