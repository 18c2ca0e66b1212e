// node tests/node/rollout.mjs CASES.json: for each case {weights: (n_layers, n_heads, n, n) nested lists} runs
// docs/widgets/your-sentence/rollout.js and prints the rollouts (n × n, row-major) as JSON, for tests/test_rollout.py.
import { readFileSync } from "node:fs";
import { attentionRollout } from "../../docs/widgets/your-sentence/rollout.js";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const results = cases.map(({ weights }) => {
  const n = weights[0][0].length;
  const layers = weights.map((layer) => Float32Array.from(layer.flat(2))); // as the worker holds them
  return Array.from(attentionRollout(layers, weights[0].length, n));
});
process.stdout.write(JSON.stringify(results));
