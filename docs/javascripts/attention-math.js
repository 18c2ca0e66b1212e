// attention/'s arithmetic, and how the page prints and colours its numbers: pure functions, no DOM.
// Matrices are arrays of rows; masks hold booleans, true = may attend. The rules the static figures follow too
// (digits, ties, colour scales, the text colour) come from the build: contract.js (figures_src/engine/contract.py).
import { BY_HAND_DIGITS, DIGITS, DIVERGING, MASKED_FILL, SEQUENTIAL, TEXT_COLOURS, TEXT_THRESHOLD, TIE_DIGITS, TIE_NOISE } from "./contract.js";

// Q (n_q, d_k), K (n_k, d_k) -> Q Kᵀ (n_q, n_k)
export const scores = (Q, K) => Q.map((query) => K.map((key) => query.reduce((sum, x, c) => sum + x * key[c], 0)));

export const scaleScores = (S, factor, mask) =>
  S.map((row, i) => row.map((score, j) => (mask && !mask[i][j] ? -Infinity : score * factor)));

// a row of scores -> weights; -Infinity gets 0; a row with nothing allowed is all 0
export function softmax(row) {
  const largest = Math.max(...row);
  const shift = largest > -Infinity ? largest : 0; // subtracting the largest keeps exp from overflowing
  const exponentials = row.map((score) => Math.exp(score - shift));
  const total = exponentials.reduce((sum, x) => sum + x, 0);
  return exponentials.map((x) => (total > 0 ? x / total : 0));
}

// in nats, 0·log 0 = 0
export const entropy = (weights) => weights.reduce((total, w) => (w > 0 ? total - w * Math.log(w) : total), 0);

// weights (n_k), V (n_k, d_v) -> Σ_j w_j v_j (d_v)
export const weightedSum = (weights, V) => V[0].map((_, c) => weights.reduce((sum, w, j) => sum + w * V[j][c], 0));

export const causalMask = (n_q, n_k) =>
  Array.from({ length: n_q }, (_, i) => Array.from({ length: n_k }, (_, j) => j <= i));

// every step from the raw scores S = Q Kᵀ on
export function attendScores(S, V, factor, mask) {
  const scaled = scaleScores(S, factor, mask);
  const weights = scaled.map(softmax);
  return { scores: S, scaled_scores: scaled, weights, entropy: weights.map(entropy), out: weights.map((w) => weightedSum(w, V)) };
}

// The mask menu's name for a published mask: "causal", "padding", "padding + causal", or "published" for any
// other pattern. A padding mask lets every query see the same keys, so its last row says which.
export function classifyMask(mask) {
  const lastRow = mask.at(-1);
  const follows = (allows) => mask.every((row, i) => row.every((allowed, j) => allowed === allows(i, j)));
  if (follows((i, j) => j <= i)) return "causal";
  if (follows((i, j) => lastRow[j])) return "padding";
  if (follows((i, j) => j <= i && lastRow[j])) return "padding + causal";
  return "published";
}

// One name for the masks of all heads or sequences: causal only if every one is (a batch with one padded
// sequence is a padding batch).
export const classifyMasks = (masks) => masks.map(classifyMask).find((name) => name !== "causal") || "causal";

// as figures_src/engine/text.py's num: `digits` decimals, an exact tie rounded to even (unlike toFixed), a
// true minus and never "−0", −∞ for a masked score (tests/test_contract.py runs both over the same cases). For
// numbers below 2^53 / 10^digits: NaN and +∞, which num refuses, never get here (heatmap.js's exampleProblem
// refuses an example with one before anything is drawn).
export function formatNumber(x, digits = DIGITS) {
  if (x === -Infinity) return "−∞";
  const magnitude = Math.abs(x);
  const truncated = Math.floor(magnitude * 10 ** digits);
  const doubled = magnitude * 2 ** (digits + 1); // an odd integer iff magnitude·10^digits ends in exactly .5
  const tie = Number.isInteger(doubled) && doubled % 2;
  const text = tie ? ((truncated + (truncated % 2)) / 10 ** digits).toFixed(digits) : magnitude.toFixed(digits);
  return x < 0 && /[1-9]/.test(text) ? "−" + text : text;
}

// [1.00, −0.50]
export const formatVector = (vector) => `[${vector.map((x) => formatNumber(x)).join(", ")}]`;

// The fewest decimals from `fewest` to `most` that print x exactly (up to float noise); `most` if none does.
export function exactDigits(x, fewest = 2, most = 4) {
  for (let digits = fewest; digits < most; digits++) {
    const shifted = x * 10 ** digits;
    if (Math.abs(shifted - Math.round(shifted)) < 1e-6) return digits;
  }
  return most;
}

// whether x lies halfway between two numbers of `digits` decimals (up to float noise): printed either way
export const isTie = (x, digits = DIGITS) => Math.abs(Math.abs((x * 10 ** digits) % 1) - 0.5) < TIE_NOISE;

// a heatmap cell's number, as text.py's cell: 2 decimals, or 3 where 2 would round an exact tie (0.415)
export const formatCell = (x) => formatNumber(x, isTie(x) ? TIE_DIGITS : DIGITS);

// the number a printed text stands for: "−0.185" -> -0.185
export const parseNumber = (text) => Number(text.replace("−", "-"));

// x as the reader sees it printed with `digits` decimals
export const printed = (x, digits = 2) => parseNumber(formatNumber(x, digits));

// One output row worked by hand, by text.py's rule (output.py's weighted_sum_by_hand): every weight printed with
// the same decimals, BY_HAND_DIGITS or, where those miss the printed output, the fewest more (at most 8) that
// give it; whatever the scale, a weight keeps its precision. -> [digits, the weights as printed, their sums]
export function weightsByHand(weights, values, output) {
  for (let digits = BY_HAND_DIGITS; ; digits++) {
    const shown = weights.map((w) => printed(w, digits)), sums = weightedSum(shown, values);
    if (digits > 7 || sums.every((x, c) => formatNumber(x) === formatNumber(output[c]) && !isTie(x))) return [digits, shown, sums];
  }
}

// x to `significant` digits, 2.718 or 1.235e+4 (e^s grows fast)
export const formatSignificant = (x, significant = 4) => x.toPrecision(significant).replace("-", "−");

// printed terms added up, "0.50 + (−1.20) + 0.30": a negative term in brackets, so "+ −" never appears
export const formatSum = (terms) => terms.map((term) => (term.startsWith("−") ? `(${term})` : term)).join(" + ");

// figures_src/engine/heatmap.py's colormaps as matplotlib reads them: RdBu_r (its nodes), viridis (21 samples)
const hexColours = (text) => text.split(" ").map((hex) => hex.match(/../g).map((channel) => parseInt(channel, 16)));
export const SCALES = { diverging: hexColours(DIVERGING), sequential: hexColours(SEQUENTIAL) };

// the colour at t in [0, 1], as matplotlib picks it: t to one of 256 levels, then between the scale's two nearest colours
export function ramp(scale, t) {
  const level = Math.min(255, Math.max(0, Math.floor(t * 256)));
  const position = (level / 255) * (scale.length - 1);
  const below = Math.min(scale.length - 2, Math.floor(position));
  return scale[below].map((channel, c) => channel + (scale[below + 1][c] - channel) * (position - below));
}

// weights on [0, 1]; scores within ±limit; masked grey
export const cellColour = (value, quantity, limit) =>
  value === -Infinity ? hexColours(MASKED_FILL)[0]
    : quantity === "weights" ? ramp(SCALES.sequential, value)
      : ramp(SCALES.diverging, 0.5 + value / (2 * limit));

// the largest |finite score|, or 1 when there is none; a loop, not Math.max(...all): a spread of a large
// table's entries into one call overflows the stack
export const scoreLimit = (S) =>
  S.reduce((largest, row) => row.reduce((most, x) => (Number.isFinite(x) ? Math.max(most, Math.abs(x)) : most), largest), 0) || 1;

// WCAG's relative luminance of an sRGB colour (channels 0 to 255)
const CHANNEL_WEIGHTS = [0.2126, 0.7152, 0.0722];
const linearChannel = (channel) => {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
export const luminance = (rgb) => rgb.reduce((total, channel, c) => total + CHANNEL_WEIGHTS[c] * linearChannel(channel), 0);

// dark or light text, whichever contrasts more (WCAG), as figures_src/engine/heatmap.py's text_colour
export const textColour = (rgb) => TEXT_COLOURS[+(luminance(rgb) < TEXT_THRESHOLD)];

export const cssColour = (rgb) => `rgb(${rgb.map(Math.round)})`;
