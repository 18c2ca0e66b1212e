// The your-sentence page's rollout heatmap: the worker's attention rollout (rollout.js) drawn on a
// canvas, input tokens across and positions down, in the weights' colours, with a sentence that says what the
// numbers add up to (for the screen reader and for everyone).
import { cellColour, formatNumber } from "../../javascripts/attention-math.js";
import { fill, strings } from "../../javascripts/dom.js";

const S = await strings("your-sentence"); // the words this script writes (words/scripts/your-sentence.md)

const SIDE = 220; // CSS pixels for the cells
const MARGIN = 64; // room for the token labels
const LABEL = 9; // CSS pixels a label needs across its rows (or columns): with smaller cells, only every k-th token has one

// rollout (n × n, row-major), n -> { own, special }: the mean share a position keeps of its own token, and the mean
// share it takes from [CLS] and [SEP] together
export function rolloutSummary(rollout, n) {
  let own = 0;
  let special = 0;
  for (let i = 0; i < n; i++) {
    own += rollout[i * n + i];
    special += rollout[i * n] + (n > 1 ? rollout[i * n + n - 1] : 0);
  }
  return { own: own / n, special: special / n };
}

export function drawRollout(canvas, summary, rollout, tokens) {
  const n = tokens.length;
  const cell = SIDE / n;
  const ratio = devicePixelRatio || 1;
  const side = MARGIN + SIDE;
  Object.assign(canvas, { width: side * ratio, height: side * ratio });
  canvas.style.width = `${side}px`;
  const context = canvas.getContext("2d");
  context.scale(ratio, ratio);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const [red, green, blue] = cellColour(Math.min(1, Math.max(0, rollout[i * n + j])), "weights", 1);
      context.fillStyle = `rgb(${red},${green},${blue})`;
      context.fillRect(MARGIN + j * cell, MARGIN + i * cell, Math.ceil(cell), Math.ceil(cell));
    }
  }
  context.fillStyle = getComputedStyle(canvas).color;
  const step = Math.ceil(LABEL / cell); // 1 up to 24 tokens, 3 at 64
  const size = Math.min(11, cell * step * 0.9);
  context.font = `${size}px sans-serif`;
  context.textBaseline = "middle";
  const short = (token) => (token.length > 8 ? `${token.slice(0, 7)}…` : token);
  tokens.forEach((token, index) => {
    if (index % step) return;
    context.textAlign = "right";
    context.fillText(short(token), MARGIN - 4, MARGIN + (index + 0.5) * cell);
    context.save();
    context.translate(MARGIN + (index + 0.5) * cell, MARGIN - 4);
    context.rotate(-Math.PI / 2);
    context.textAlign = "left";
    context.fillText(short(token), 0, 0);
    context.restore();
  });
  const { own, special } = rolloutSummary(rollout, n);
  const shares = { own: formatNumber(own, 2), special: formatNumber(special, 2) };
  canvas.setAttribute("aria-label", fill(S["rollout-label"], { n, summary: fill(S.rollout, shares) }));
  // with fewer labels than tokens, the sentence says which are labelled: every second, third or step-th
  const labelled = step === 1 ? "rollout" : step <= 3 ? `rollout/${step}` : "rollout/more";
  summary.textContent = fill(S[labelled], { ...shares, n, step });
}
