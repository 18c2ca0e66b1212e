// node --import ./tests/js/contract-loader.mjs tests/node/decode.mjs WEIGHTS.json SOURCES.json OUT.json: runs the
// watch-it-write page's decoder (docs/widgets/watch-it-write/decoder.js) on each source, with the KV cache and
// recomputing everything, and writes per source {tokens, cached: logits per step, recomputed: logits per step,
// dotProducts, cacheBytes}.
import { readFileSync, writeFileSync } from "node:fs";
import { generate } from "../../docs/widgets/watch-it-write/decoder.js";

const [weightsPath, sourcesPath, outPath] = process.argv.slice(2);
const model = JSON.parse(readFileSync(weightsPath, "utf8"));
const results = JSON.parse(readFileSync(sourcesPath, "utf8")).map((source) => {
  const cached = generate(model, source);
  const recomputed = generate(model, source, true);
  return {
    tokens: cached.tokens, recomputedTokens: recomputed.tokens,
    cached: cached.steps.map((step) => step.logits), recomputed: recomputed.steps.map((step) => step.logits),
    weights: cached.steps.map((step) => step.weights),
    dotProducts: [cached.steps.map((step) => step.dotProducts), recomputed.steps.map((step) => step.dotProducts)],
    cacheBytes: cached.steps.map((step) => step.cacheBytes),
  };
});
writeFileSync(outPath, JSON.stringify(results));
