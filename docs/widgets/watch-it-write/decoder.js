// The tiny decoder of the watch-it-write page (models/decoder.py), line by line: pure functions, no DOM.
// A model is the published JSON: {config: {length, d_model, n_heads, n_layers, vocab}, params: {E, P, "0.W_Q", ..., W_U}}.
// Vectors are plain arrays; a matrix is an array of rows (row vectors times matrices, as the library writes x·W_Q).
// Scores, scale, softmax and weighted sum are the heatmap's (attention-math.js): one arithmetic for both pages.
import { scaleScores, scores, softmax, weightedSum } from "../../javascripts/attention-math.js";

const LAYER_PARTS = ["W_Q", "W_K", "W_V", "W_O"];
export const SEPARATOR = 10;

// x (d_in) · W (d_in, d_out) -> (d_out): the weighted sum of W's rows
const times = weightedSum;
const add = (a, b) => a.map((value, c) => value + b[c]);

// E[token] + P[position] (d_model)
const embed = (model, token, position) => add(model.params.E[token], model.params.P[position]);

// the KV cache before the first token: per layer and head, key rows and value rows
export const emptyCache = ({ config }) =>
  Array.from({ length: config.n_layers }, () => Array.from({ length: config.n_heads }, () => ({ keys: [], values: [] })));

// bytes the cache holds as float64, as the page counts them: every number of every cached key and value row
export const cacheBytes = (cache) =>
  cache.flat().reduce((total, head) => total + 8 * (head.keys.length + head.values.length) * (head.keys[0]?.length ?? 0), 0);

// one layer for the rows `queries` (each a d_model vector at its position), attending to the head's keys and values
// 0 … position (the causal mask): -> { rows after the layer (residual added), weights per row [head][key], dot products }
function layer(model, index, inputs, cache, firstPosition) {
  const { n_heads, d_model } = model.config;
  const d_k = d_model / n_heads;
  const [W_Q, W_K, W_V, W_O] = LAYER_PARTS.map((part) => model.params[`${index}.${part}`]);
  const factor = 1 / Math.sqrt(d_k);
  const projected = inputs.map((x) => [W_Q, W_K, W_V].map((W) => times(x, W)));
  for (const [, key, value] of projected) {
    for (let head = 0; head < n_heads; head++) {
      cache[head].keys.push(key.slice(head * d_k, (head + 1) * d_k));
      cache[head].values.push(value.slice(head * d_k, (head + 1) * d_k));
    }
  }
  let dotProducts = 0;
  const weights = [];
  const outputs = projected.map(([query], row) => {
    const position = firstPosition + row;
    const rowWeights = [];
    const concat = [];
    for (let head = 0; head < n_heads; head++) {
      const q = query.slice(head * d_k, (head + 1) * d_k);
      const keys = cache[head].keys.slice(0, position + 1);
      dotProducts += keys.length;
      const w = softmax(scaleScores(scores([q], keys), factor)[0]); // one row: q against the keys up to its position
      rowWeights.push(w);
      concat.push(...weightedSum(w, cache[head].values)); // the sum runs over w's keys only
    }
    weights.push(rowWeights);
    return add(inputs[row], times(concat, W_O));
  });
  return { outputs, weights, dotProducts };
}

// token at position cache-length, with the KV cache: -> { logits, weights [layer][head][key], dotProducts: n per head and layer }
export function decodeStep(model, cache, token) {
  const position = cache[0][0].keys.length;
  let rows = [embed(model, token, position)];
  const weights = [];
  let dotProducts = 0;
  for (let index = 0; index < model.config.n_layers; index++) {
    const result = layer(model, index, rows, cache[index], position);
    rows = result.outputs;
    weights.push(result.weights[0]);
    dotProducts += result.dotProducts;
  }
  return { logits: times(rows[0], model.params.W_U), weights, dotProducts };
}

// every token again, no cache kept (models/decoder.py's forward); the last row's logits and weights, and the
// n² dot products of full tables: every query against every key, the masked ones too, as the library computes them
export function recomputeStep(model, tokens) {
  const n = tokens.length;
  let rows = tokens.map((token, position) => embed(model, token, position));
  const weights = [];
  for (let index = 0; index < model.config.n_layers; index++) {
    const result = layer(model, index, rows, emptyCache(model)[index], 0);
    rows = result.outputs;
    weights.push(result.weights[n - 1]);
  }
  const dotProducts = model.config.n_layers * model.config.n_heads * n * n;
  return { logits: times(rows[n - 1], model.params.W_U), weights, dotProducts };
}

export const argmax = (values) => values.reduce((best, value, index) => (value > values[best] ? index : best), 0);

// greedy decoding of `source` (length digits): the prompt, then one digit per step from the separator on.
// -> steps [{ read, position, written (or null), logits, weights, dotProducts, cacheBytes }], tokens
export function generate(model, source, recompute = false) {
  const { length } = model.config;
  const tokens = [...source, SEPARATOR];
  const cache = emptyCache(model);
  const steps = [];
  for (let position = 0; position < 2 * length; position++) {
    const step = recompute ? recomputeStep(model, tokens.slice(0, position + 1)) : decodeStep(model, cache, tokens[position]);
    const written = position >= length ? argmax(step.logits) : null;
    if (written !== null) tokens.push(written);
    steps.push({ ...step, read: tokens[position], position, written,
      cacheBytes: recompute ? 0 : cacheBytes(cache) });
  }
  return { steps, tokens };
}

// the digits a reader typed, white space anywhere ignored (" 314159", "3 1 4 1 5 9"): -> [3, 1, 4, 1, 5, 9], or
// null unless exactly `length` digits 0 to 9 remain
export function readDigits(text, length) {
  const digits = text.replace(/\s+/g, "");
  return new RegExp(`^[0-9]{${length}}$`).test(digits) ? [...digits].map(Number) : null;
}
