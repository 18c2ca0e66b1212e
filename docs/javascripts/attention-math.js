// Scaled dot-product attention in plain JavaScript: pure functions, no DOM, the same steps as attention/.
// Vectors are arrays, matrices arrays of rows. A mask is boolean rows, true = may attend.

export const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);

// Q (n_q, d_k), K (n_k, d_k) -> Q Kᵀ (n_q, n_k)
export const scores = (Q, K) => Q.map((q) => K.map((k) => dot(q, k)));

// S (n_q, n_k) times `factor`; -Infinity where the mask forbids the pair.
export const scaleScores = (S, factor, mask) =>
  S.map((row, i) => row.map((s, j) => (mask && !mask[i][j] ? -Infinity : s * factor)));

// One row of scores -> weights >= 0 summing to 1; -Infinity gets 0; a row with no finite score is all 0.
export function softmax(row) {
  const top = Math.max(...row);
  const e = row.map((s) => Math.exp(s - (top > -Infinity ? top : 0)));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((x) => (total > 0 ? x / total : 0));
}

// Entropy of one row of weights, in nats, with 0·log 0 = 0.
export const entropy = (w) => w.reduce((h, x) => (x > 0 ? h - x * Math.log(x) : h), 0);

// Weights (n_k) and values V (n_k, d_v) -> Σ_j w_j v_j (d_v)
export const weightedSum = (w, V) => V[0].map((_, c) => w.reduce((sum, x, j) => sum + x * V[j][c], 0));

export const causalMask = (n_q, n_k) => Array.from({ length: n_q }, (_, i) => Array.from({ length: n_k }, (_, j) => j <= i));

// Every step the page shows, for one head: the scores multiplied by `factor`, then masked.
export function attend(Q, K, V, factor, mask) {
  const raw = scores(Q, K);
  const scaled = scaleScores(raw, factor, mask);
  const weights = scaled.map(softmax);
  return { scores: raw, scaled_scores: scaled, weights, entropy: weights.map(entropy), out: weights.map((w) => weightedSum(w, V)) };
}

// The site's number format (figures_src/heatmap.py format_number): Python's f"{x:.2f}", which rounds
// exact binary ties to even where toFixed rounds them up, then a true minus sign and −∞.
export function formatNumber(x, digits = 2) {
  if (x === -Infinity) return "−∞";
  const half = Math.abs(x) * 2 ** (digits + 1);
  let text = Math.abs(x).toFixed(digits);
  if (Number.isInteger(half) && half % 2) {
    const n = Math.floor(Math.abs(x) * 10 ** digits);
    text = ((n % 2 ? n + 1 : n) / 10 ** digits).toFixed(digits);
  }
  return (x < 0 || Object.is(x, -0)) && /[1-9]/.test(text) ? "−" + text : text;
}

// Colour scales of figures_src/heatmap.py: RdBu_r (its ColorBrewer nodes) for scores, viridis (21 samples)
// for weights, each looked up through matplotlib's 256-entry table.
const stops = (hex) => hex.split(" ").map((h) => [0, 2, 4].map((k) => parseInt(h.slice(k, k + 2), 16)));
export const SCALES = {
  diverging: stops("053061 2166ac 4393c3 92c5de d1e5f0 f7f7f7 fddbc7 f4a582 d6604d b2182b 67001f"),
  sequential: stops(
    "440154 471365 482475 463480 414487 3b528b 355f8d 2f6c8e 2a788e 25848e 21918c 1e9c89 22a884 2fb47c 44bf70 " +
      "5ec962 7ad151 9bd93c bddf26 dfe318 fde725"
  ),
};
export const MASKED_RGB = [158, 158, 158];

// t in [0, 1] -> [r, g, b] (0-255, unrounded)
export function ramp(scale, t) {
  const x = (Math.min(255, Math.max(0, Math.floor(t * 256))) / 255) * (scale.length - 1);
  const k = Math.min(scale.length - 2, Math.floor(x));
  return scale[k].map((c, m) => c + (scale[k + 1][m] - c) * (x - k));
}

// A cell's colour: weights on [0, 1]; scores diverging about 0 with limits ±limit.
export function cellColour(value, quantity, limit) {
  if (value === -Infinity) return MASKED_RGB;
  return quantity === "weights" ? ramp(SCALES.sequential, value) : ramp(SCALES.diverging, 0.5 + value / (2 * (limit || 1)));
}

// The symmetric colour limit of a score table: its largest finite |value| (1 if there is none).
export const scoreLimit = (S) => Math.max(0, ...S.flat().filter(Number.isFinite).map(Math.abs)) || 1;

// WCAG relative luminance of an [r, g, b] colour
export const luminance = (rgb) =>
  rgb.map((c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)).reduce((l, c, m) => l + c * [0.2126, 0.7152, 0.0722][m], 0);

// Black or white text, whichever contrasts more with the fill: never below 4.58:1.
export const textColour = (rgb) => ((luminance(rgb) + 0.05) ** 2 >= 0.0525 ? "#000" : "#fff");

export const css = (rgb) => `rgb(${rgb.map(Math.round).join(",")})`;
