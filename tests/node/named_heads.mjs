// node tests/node/named_heads.mjs MANIFEST SENTENCES.json TIE_MARGIN: for each {tokens, ids} of SENTENCES.json, runs
// the JS encoder on the shipped weights and names the heads as the your-sentence page's table does (its own
// functions), printing per sentence {pattern: "layer 4, head 2 and layer 6, head 12 (tied within rounding)", …}
// as JSON, for tests/test_your_sentence.py.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createEncoder, inflate, loadParams } from "../../docs/widgets/your-sentence/encoder.js";
import { namedHeads, patternScores, pronounLinks, standout } from "../../docs/widgets/your-sentence/your-sentence-app.js";

const [manifestPath, sentencesPath, tieMargin] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
const file = readFileSync(join(dirname(manifestPath), "..", manifest.files.weights));
const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
const params = loadParams(manifest.tensors, await inflate(buffer), manifest.config);
const encode = await createEncoder(params, manifest.config, readFileSync(join(dirname(manifestPath), "..", manifest.files.kernels)));
const heads = manifest.config.n_heads;
const named = JSON.parse(readFileSync(sentencesPath, "utf8")).map(({ tokens, ids }) => {
  const weights = encode(ids, { attentionOnly: true }).weights.map((layer) => new Float32Array(layer)); // as the worker sends them
  const patterns = patternScores(weights, heads, tokens.length);
  const result = Object.fromEntries(["previous", "next", "sink"].map((kind) => [kind, namedHeads(standout(patterns[kind]), Number(tieMargin))]));
  const links = pronounLinks(weights, heads, tokens);
  if (links) result.pronoun = namedHeads(standout(links.table, (entry) => entry.weight), Number(tieMargin));
  return result;
});
process.stdout.write(JSON.stringify(named));
