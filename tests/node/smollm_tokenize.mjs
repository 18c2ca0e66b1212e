// node tests/node/smollm_tokenize.mjs TOKENIZER.json CORPUS.json: prints {ids: [[id…] per string], decoded:
// [text per string], pieces: [piece per token id], timing: {build, cold, warm} ms} from docs/widgets/smollm/bpe.js
// (for tests/test_smollm_tokenizer.py). timing: building the tokenizer, then encoding the corpus's first string
// with an empty word cache and again with a warm one.
import { readFileSync } from "node:fs";
import { BPE } from "../../docs/widgets/smollm/bpe.js";

const [tokenizerPath, corpusPath] = process.argv.slice(2);
const data = JSON.parse(readFileSync(tokenizerPath, "utf8"));
const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
let started = performance.now();
const tokenizer = new BPE(data);
const build = performance.now() - started;
started = performance.now();
tokenizer.encode(corpus[0]);
const cold = performance.now() - started;
started = performance.now();
tokenizer.encode(corpus[0]);
const warm = performance.now() - started;
const ids = corpus.map((text) => tokenizer.encode(text));
process.stdout.write(JSON.stringify({
  ids, decoded: ids.map((list) => tokenizer.decode(list)),
  pieces: data.tokens.map((_, id) => tokenizer.piece(id)), timing: { build, cold, warm },
}));
