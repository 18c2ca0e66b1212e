// Choosing the next token from the model's logits (one number per vocabulary entry). No DOM: the worker and Node's
// tests import it.
// - temperature 0: greedy, the largest logit (the lowest id among equals);
// - temperature T > 0: the top k logits (k = 0: all), as probabilities softmax(logit / T) (in float64), one of them
//   drawn with a number u from `random`: the first token, largest first (in id order when all are kept), at which
//   the probabilities' running sum passes u. The same seed, temperature and k give the same tokens.

// mulberry32 (Tommy Ettinger's 32-bit generator): the seed's 32 bits are its state, and each call returns the next
// number in [0, 1), a multiple of 2^-32. Small, fast, and the same in every browser.
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The ids of the k largest logits, largest first (the lower id first among equals)
export function topIds(logits, k) {
  if (k > 64) return Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b).slice(0, k);
  const ids = []; // kept in order by insertion: a few passes over the vocabulary for a small k
  for (let id = 0; id < logits.length; id++) {
    if (ids.length === k && logits[id] <= logits[ids[k - 1]]) continue;
    let at = ids.length === k ? k - 1 : ids.length;
    while (at > 0 && logits[ids[at - 1]] < logits[id]) ids[at] = ids[--at];
    ids[at] = id;
  }
  return ids;
}

// The probabilities of `ids` (top-k's) under softmax(logits / temperature) over those ids alone, in float64
function probabilities(logits, ids, temperature) {
  const largest = Math.max(...ids.map((id) => logits[id]));
  const weights = ids.map((id) => Math.exp((logits[id] - largest) / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((weight) => weight / total);
}

// The `count` most probable tokens at temperature 1 over the whole vocabulary: [{ id, p }], most probable first
export function mostProbable(logits, count) {
  const ids = topIds(logits, count), largest = logits[ids[0]];
  let total = 0;
  for (const logit of logits) total += Math.exp(logit - largest);
  return ids.map((id) => ({ id, p: Math.exp(logits[id] - largest) / total }));
}

// The next token's id: greedy at temperature 0, else drawn from the top k (k = 0 or >= the vocabulary: all)
export function sample(logits, { temperature = 0, topK = 0, random } = {}) {
  if (!(temperature > 0)) return topIds(logits, 1)[0];
  // the whole vocabulary in id order (no sort needed to draw from all of it), or the top k largest first
  const k = Math.floor(topK);
  const ids = k > 0 && k < logits.length ? topIds(logits, k) : Array.from(logits.keys());
  const chances = probabilities(logits, ids, temperature);
  let draw = random();
  for (let index = 0; index < ids.length; index++) {
    draw -= chances[index];
    if (draw < 0) return ids[index];
  }
  return ids[ids.length - 1]; // the rounding of the sum left a sliver past the last
}
