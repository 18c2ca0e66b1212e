// attention/'s arithmetic, pure (no DOM). Matrices are arrays of rows; masks hold booleans, true = may attend.

// Q (n_q, d_k), K (n_k, d_k) -> Q Kᵀ (n_q, n_k)
export const scores = (Q, K) => Q.map((q) => K.map((k) => q.reduce((s, x, c) => s + x * k[c], 0)));

export const scaleScores = (S, factor, mask) => S.map((r, i) => r.map((s, j) => (mask && !mask[i][j] ? -Infinity : s * factor)));

// a row of scores -> weights; -Infinity gets 0; a row with nothing allowed is all 0
export function softmax(row) {
  const top = Math.max(...row);
  const e = row.map((s) => Math.exp(s - (top > -Infinity ? top : 0)));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((x) => (total > 0 ? x / total : 0));
}

// in nats, 0·log 0 = 0
export const entropy = (w) => w.reduce((h, x) => (x > 0 ? h - x * Math.log(x) : h), 0);

// weights (n_k), V (n_k, d_v) -> Σ_j w_j v_j (d_v)
export const weightedSum = (w, V) => V[0].map((_, c) => w.reduce((s, x, j) => s + x * V[j][c], 0));

export const causalMask = (n_q, n_k) => Array.from({ length: n_q }, (_, i) => Array.from({ length: n_k }, (_, j) => j <= i));

// every step from the raw scores S = Q Kᵀ on
export function attendScores(S, V, factor, mask) {
  const scaled = scaleScores(S, factor, mask);
  const weights = scaled.map(softmax);
  return { scores: S, scaled_scores: scaled, weights, entropy: weights.map(entropy), out: weights.map((w) => weightedSum(w, V)) };
}

export const attend = (Q, K, V, factor, mask) => attendScores(scores(Q, K), V, factor, mask);

// as figures_src/heatmap.py's format_number: f"{x:.2f}" (an exact tie rounds to even, unlike toFixed), true minus
export function formatNumber(x, digits = 2) {
  if (x === -Infinity) return "−∞";
  const a = Math.abs(x);
  const n = Math.floor(a * 10 ** digits);
  const tie = a * 2 ** (digits + 1); // odd integer iff a·10^digits ends in .5
  const text = Number.isInteger(tie) && tie % 2 ? ((n + (n % 2)) / 10 ** digits).toFixed(digits) : a.toFixed(digits);
  return x < 0 && /[1-9]/.test(text) ? "−" + text : text;
}

// figures_src/heatmap.py's colormaps as matplotlib reads them: RdBu_r (its nodes), viridis (21 samples)
const stops = (hex) => hex.split(" ").map((c) => [0, 2, 4].map((k) => parseInt(c.slice(k, k + 2), 16)));
export const SCALES = {
  diverging: stops("053061 2166ac 4393c3 92c5de d1e5f0 f7f7f7 fddbc7 f4a582 d6604d b2182b 67001f"),
  sequential: stops(
    "440154 471365 482475 463480 414487 3b528b 355f8d 2f6c8e 2a788e 25848e 21918c 1e9c89 22a884 2fb47c 44bf70 5ec962 7ad151 9bd93c bddf26 dfe318 fde725"
  ),
};

export function ramp(scale, t) {
  const x = (Math.min(255, Math.max(0, Math.floor(t * 256))) / 255) * (scale.length - 1);
  const k = Math.min(scale.length - 2, Math.floor(x));
  return scale[k].map((c, m) => c + (scale[k + 1][m] - c) * (x - k));
}

// weights on [0, 1]; scores within ±limit; masked grey
export const cellColour = (v, quantity, limit) =>
  v === -Infinity ? [158, 158, 158] : quantity === "weights" ? ramp(SCALES.sequential, v) : ramp(SCALES.diverging, 0.5 + v / (2 * limit));

export const scoreLimit = (S) => Math.max(0, ...S.flat().filter(Number.isFinite).map(Math.abs)) || 1;

export const luminance = (rgb) =>
  rgb.reduce((l, c, m) => ((c /= 255), l + [0.2126, 0.7152, 0.0722][m] * (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)), 0);

// black or white text, whichever contrasts more (WCAG): at least 4.58:1
export const textColour = (rgb) => ((luminance(rgb) + 0.05) ** 2 >= 0.0525 ? "#000" : "#fff");

export const css = (rgb) => `rgb(${rgb.map(Math.round)})`;
