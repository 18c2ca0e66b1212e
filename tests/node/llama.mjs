// node tests/node/llama.mjs FOLDER JOBS.json OUT.json: runs docs/widgets/smollm/llama.js on the shipped files in
// FOLDER (layout.json, kernels.wasm and one file per stem, as tests/test_smollm_engine.py writes them). JOBS.json is
// a list of jobs, each {ids, steps, mode, eos}: "prefill" (the default) runs the whole prompt at once, "stepwise"
// feeds it one token at a time through the cache; then `steps` tokens are decoded, each the argmax of the last
// logits (stopping after `eos`, if given). OUT.json: per job {promptLogits (the prompt's last token's), logits (the last), tokens, weights (the last
// forward's), decodeMilliseconds (a decode step's mean)}.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLlama } from "../../docs/widgets/smollm/llama.js";

const [folder, jobsPath, outPath] = process.argv.slice(2);
const layout = JSON.parse(readFileSync(join(folder, "layout.json"), "utf8"));
const jobs = JSON.parse(readFileSync(jobsPath, "utf8"));
const capacity = Math.max(...jobs.map(({ ids, steps = 0 }) => ids.length + steps));
const llama = await createLlama(layout, readFileSync(join(folder, "kernels.wasm")), capacity);
layout.shards.forEach((stem, index) => llama.shard(index).set(readFileSync(join(folder, stem))));
llama.prepare();
const argmax = (values) => values.reduce((best, value, index) => (value > values[best] ? index : best), 0);
const results = jobs.map(({ ids, steps = 0, mode = "prefill", eos = -1 }) => {
  llama.reset();
  let result;
  if (mode === "stepwise") for (const id of ids) result = llama.forward([id]);
  else result = llama.forward(ids);
  const promptLogits = Array.from(result.logits);
  const tokens = [];
  const started = performance.now();
  for (let step = 0; step < steps && tokens.at(-1) !== eos; step++) {
    tokens.push(argmax(result.logits));
    result = llama.forward([tokens.at(-1)]);
  }
  return { promptLogits, logits: Array.from(result.logits), tokens, weights: Array.from(result.weights),
    decodeMilliseconds: tokens.length ? (performance.now() - started) / tokens.length : null };
});
writeFileSync(outPath, JSON.stringify(results));
