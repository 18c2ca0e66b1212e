// The interactive heatmap. Each <figure class="aih-heatmap" data-example data-quantity [data-head]> gets a copy
// of the page's <template id="aih-heatmap"> (template.html here, its words words/widgets/heatmap.md), filled in from
// examples/<id>.json: this script adds the numbers, and the few sentences it writes itself are its string table's
// (words/scripts/heatmap.md, in the page's language). Neighbouring figures of one example become one heatmap.
import {
  attendScores,
  causalMask,
  cellColour,
  classifyMasks,
  cssColour,
  exactDigits,
  formatCell,
  formatNumber,
  formatSignificant,
  formatSum,
  formatVector,
  isTie,
  parseNumber,
  printed,
  SCALES,
  scoreLimit,
  scores,
  textColour,
  weightsByHand,
} from "../../javascripts/attention-math.js";
import { DRAWN_STEPS, MAX_TOKENS } from "../../javascripts/contract.js";
import { ARROWS, fetchChecked, fill, h, loadNearViewport, slots, strings } from "../../javascripts/dom.js";
import { keptPins, rememberPlace } from "../../javascripts/place.js";

// The heatmap's string table, in the page's language: the build writes it into the page's template (engine/strings.py,
// IN_PAGE), which an embed page adopts before its heatmap draws, so it is read when first wanted
let table;
const words = () => (table ??= JSON.parse(document.getElementById("aih-heatmap").content.firstElementChild.dataset.words));
const say = (name, values) => fill(words()[name], values); // a sentence of the table, its holes filled
// the words of a figure that stays static (why, in the note under it), loaded only for one: most pages have none
const sayStatic = async (name, values) => fill((await strings("heatmap-static"))[name], values);

// Can the interactive heatmap draw this worked example's JSON? Pure, no DOM: enhance() asks before it touches the
// page, and keeps the static figure (with a note) when the answer is a problem. The steps it draws from,
// DRAWN_STEPS, and MAX_TOKENS, above which the grid is too slow and too small to read, are the build's
// (figures_src/engine/embed.py, via contract.js).

const isNumber = (x) => Number.isFinite(x); // false for null (a JSON −∞), strings, NaN
const isBoolean = (x) => typeof x === "boolean";

// what is wrong with `value` as `rows` lists of `columns` entries that pass `isEntry`, as [its table's section,
// its values], or null when nothing
function tableProblem(value, rows, columns, isEntry = isNumber) {
  if (!Array.isArray(value) || value.length !== rows) return ["rows", { rows }];
  const row = value.findIndex((entries) => !Array.isArray(entries) || entries.length !== columns || !entries.every(isEntry));
  return row < 0 ? null : [isEntry === isNumber ? "numbers" : "booleans", { row, columns }];
}

// What the widget cannot draw in `example` (the parsed JSON), in a few words naming the culprit by its key, or ""
// when it can draw it: the static figure's note says it, in the words of the heatmap-static table (its problem/…
// sections, loaded only then). head: the figure's data-head (a string, or undefined).
export async function exampleProblem(example, head) {
  const problem = (name, values) => sayStatic(`problem/${name}`, values);
  const { steps, outputs, inputs, n_heads: heads, batch_tokens: batch, leading_axis: axis } = example || {};
  if (!steps || !DRAWN_STEPS.every((name) => Array.isArray(steps[name]))) {
    return problem("steps", { steps: DRAWN_STEPS.slice(0, -1).join(", "), last: DRAWN_STEPS.at(-1) });
  }
  if (!isNumber(example.scale) || !(example.d_k > 0)) return problem("scale");
  // heads, sequences or another axis that names itself (a training run's steps) first: Q is a list of matrices
  const leadCount = Array.isArray(steps.Q[0]?.[0]) ? steps.Q.length : 0;
  if (axis !== undefined && !(typeof axis?.name === "string" && axis.name && Array.isArray(axis.labels) &&
    axis.labels.length === leadCount && axis.labels.every((label) => typeof label === "string" && label))) {
    return problem("axis", { count: leadCount });
  }
  if (head !== undefined && !(/^\d+$/.test(head) && head < Math.max(leadCount, 1))) return problem("no-head", { head });
  if (leadCount && !heads && batch?.length !== leadCount && !axis) return problem("lead");
  for (let lead = 0; lead < (leadCount || 1); lead++) {
    const pick = (array) => (leadCount ? array?.[lead] : array);
    const [Q, K, V] = [pick(steps.Q), pick(steps.K), pick(steps.V)];
    const count = Q?.length;
    if (count > MAX_TOKENS || K?.length > MAX_TOKENS) return problem("too-large", { count, keys: K.length, most: MAX_TOKENS });
    const tokens = leadCount && !heads && !axis ? batch[lead] : example.tokens;
    if (!count || K?.length !== count || !Array.isArray(tokens) || tokens.length !== count) return problem("tokens");
    const width = Q[0]?.length;
    const valueWidth = V?.[0]?.length;
    const checks = {
      Q: tableProblem(Q, count, width),
      K: tableProblem(K, count, width),
      V: tableProblem(V, count, valueWidth),
      weights: tableProblem(pick(steps.weights), count, count),
      entropy: tableProblem([pick(steps.entropy)], 1, count),
      scores: steps.scores && tableProblem(pick(steps.scores), count, count),
      heads: steps.heads && tableProblem(pick(steps.heads), count, valueWidth),
      out: !heads && tableProblem(pick(outputs?.out), count, valueWidth),
      mask: inputs?.mask && tableProblem(pick(inputs.mask), count, count, isBoolean),
    };
    const name = Object.keys(checks).find((key) => checks[key]);
    if (name) {
      const [kind, values] = checks[name];
      // a culprit on the leading axis is named by it: "weights (head 1)", "(sequence 0)", "(step 10)" (its own label)
      return problem(!leadCount ? kind : `${kind}/${axis ? "axis" : heads ? "head" : "sequence"}`,
        { name, lead: axis ? axis.labels[lead] : lead, axis: axis?.name, ...values });
    }
  }
  return "";
}

const widgetListeners = new WeakMap(); // figure -> the AbortController of its widget's listeners
const examples = new Map(); // path -> its JSON (a promise), fetched once for all the figures showing it

// The [query, key] cell a key moves the focus to in a grid of rowCount × columnCount cells (the keys of
// WAI-ARIA's grid pattern), or undefined for a key the grid leaves alone. Past an edge means: stay.
export function cellAfterKey(key, ctrlKey, [row, column], [rowCount, columnCount]) {
  const move = ARROWS[key];
  return move ? [row + move[0], column + move[1]] : {
    Home: [ctrlKey ? 0 : row, 0],
    End: [ctrlKey ? rowCount - 1 : row, columnCount - 1],
    PageUp: [0, column],
    PageDown: [rowCount - 1, column],
  }[key];
}

class Heatmap {
  constructor(figure, example) {
    // the shared JSON names its leading axis in English; a figure in another language carries its own words for it
    this.example = { ...example, leading_axis: JSON.parse(figure.dataset.leadingAxis ?? 0) || example.leading_axis };
    this.steps = example.steps;
    // heads (multi-head) or sequences (a padded batch) on a leading axis: the menu picks one grid
    this.leadCount = Array.isArray(this.steps.Q[0][0]) ? this.steps.Q.length : 0;
    this.publishedMask = example.inputs.mask; // one per head or sequence when there is a leading axis
    const publishedMasks = this.leadCount ? this.publishedMask : [this.publishedMask];
    this.publishedMaskName = this.publishedMask ? classifyMasks(publishedMasks) : "none";
    this.state = {
      quantity: figure.dataset.quantity, // "scores", "scaled_scores" or "weights"
      scaleMultiplier: 1, // times 1/√d_k
      maskName: this.publishedMaskName, // "none", "causal" or the published mask's name
      leadIndex: figure.dataset.head || 0,
      focusedCell: [0, 0], // [query, key]: the pair in the readout, the cell last hovered or focused
      pointed: false, // whether the reader has hovered or focused a cell: only then are its row and column outlined
      followedRow: null, // the query whose output is written out, if any
    };
    this.initialLead = this.state.leadIndex;
    // the entropy bars show unless the figure's data-controls leave them out (the rule heatmap.css hides them by)
    this.noEntropy = figure.matches("[data-controls]:not([data-controls~=entropy])");
    this.caption = figure.querySelector("figcaption");
    // the build's caption of each quantity this heatmap's figures show (neighbours of one example are merged)
    this.publishedCaptions = {};
    for (let shown = figure; shown?.matches("figure") && shown.dataset.example === figure.dataset.example;
      shown = shown.nextElementSibling) {
      const caption = shown.querySelector("figcaption");
      if (!caption) continue;
      caption.dataset.published ??= caption.textContent; // kept: this script rewrites the text
      this.publishedCaptions[shown.dataset.quantity] ??= caption.dataset.published;
    }
    this.queryCount = this.forLead(this.steps.Q).length;
    this.keyCount = this.forLead(this.steps.K).length;
    this.causalMask = causalMask(this.queryCount, this.keyCount);
    this.panel = document.getElementById("aih-heatmap").content.firstElementChild.cloneNode(true);
    this.grid = this.slot("grid");
    this.readout = this.panel.querySelector(".aih-readout");
    this.buildMenus();
    this.rows = this.buildGrid(); // the header row, then one row per query
  }

  forLead(array) {
    return this.leadCount ? array[this.state.leadIndex] : array;
  }

  slot(name) {
    return slots(this.panel, name)[0];
  }

  // {slotName: text}: every element of each slot (one number may show in several places)
  fill(texts) {
    for (const name in texts) {
      for (const element of slots(this.panel, name)) element.textContent = texts[name];
    }
  }

  buildMenus() {
    const { example, publishedMaskName } = this;
    const maskMenu = this.slot("mask");
    const leadMenu = this.slot("lead");
    // the template's menu has "none" and "causal"
    if (publishedMaskName !== "none" && publishedMaskName !== "causal") {
      maskMenu.add(new Option(words()[`mask/${publishedMaskName.replace(" + ", "-")}`], publishedMaskName));
    }
    if (this.leadCount) {
      this.panel.classList.add("aih-leads");
      this.fill({ leadName: words()[example.checkpoints ? "lead-steps" : example.n_heads ? "lead-head" : "lead-sequence"] });
      if (example.checkpoints) {
        // a training run's checkpoints: a slider through them instead of a menu
        const max = this.leadCount - 1;
        leadMenu.replaceWith(h("input", { type: "range", min: 0, max, step: 1, "data-slot": "lead" }),
          h("output", { "data-slot": "step" }));
      } else {
        const labels = Array.from({ length: this.leadCount }, (_, index) =>
          example.n_heads ? say("head", { number: index + 1 }) : example.batch_tokens[index].join(" "));
        leadMenu.append(...labels.map((label, index) => new Option(label, index)));
      }
    }
    maskMenu.value = this.state.maskName;
    this.slot("lead").value = this.state.leadIndex;
  }

  // The template's header row gets a column header per key; then a row per query: its token, a cell per key
  // (one tab stop for the whole grid: the first cell), and its entropy.
  buildGrid() {
    const { grid, queryCount, keyCount } = this;
    const span = (role, attributes) => h("span", { role, ...attributes });
    grid.firstChild.lastChild.before(...Array.from({ length: keyCount }, () => span("columnheader")));
    for (let i = 0; i < queryCount; i++) {
      const cells = Array.from({ length: keyCount }, (_, j) =>
        span("gridcell", { tabindex: i || j ? -1 : 0, "data-i": i, "data-j": j }));
      grid.append(h("div", { role: "row" }, span("rowheader"), ...cells, span("gridcell")));
    }
    grid.style.setProperty("--aih-keys", keyCount);
    return [...grid.children];
  }

  update(change) {
    Object.assign(this.state, change);
    this.redraw();
  }

  // Every state change ends here: recompute the numbers, then draw everything from the state.
  redraw() {
    this.drawFigure();
    this.drawWorking();
  }

  // The numbers for the state, and the grid, legend and caption that show them. The tokens, mask and result it
  // keeps are what the readout reads until the next redraw.
  drawFigure() {
    const { example, steps, state } = this;
    const { quantity, scaleMultiplier, maskName, leadIndex } = state;
    this.tokens = example.batch_tokens?.[leadIndex] || example.tokens; // of queries and keys alike
    this.mask = maskName === "none" ? null : maskName === "causal" ? this.causalMask : this.forLead(this.publishedMask);
    const rawScores = steps.scores ? this.forLead(steps.scores) : scores(this.forLead(steps.Q), this.forLead(steps.K));
    this.result = attendScores(rawScores, this.forLead(steps.V), example.scale * scaleMultiplier, this.mask);
    if (scaleMultiplier === 1 && maskName === this.publishedMaskName) {
      // nothing changed: the example's own numbers, as the static figure prints them
      this.result.weights = this.forLead(steps.weights);
      this.result.entropy = this.forLead(steps.entropy);
      this.result.out = example.n_heads ? steps.heads?.[leadIndex] || this.result.out : this.forLead(example.outputs.out);
    }
    const values = this.result[quantity];
    const limit = quantity === "weights" ? 1 : scoreLimit(values);
    // the words for the quantity shown, on its button in the template: its data-name, data-what and data-colours
    const modes = this.slot("modes");
    this.named = modes.querySelector(`[value=${quantity}]`).dataset;
    for (const button of modes.children) button.setAttribute("aria-pressed", button.value === quantity);
    this.slot("slider").setAttribute("aria-valuetext", say("slider-value", { multiplier: formatNumber(scaleMultiplier) }));
    if (example.checkpoints) {
      // the label names the axis ("Steps done", a checkpoint counts the updates before it); beside the slider
      // only its number, read out whole as "after 30 steps"
      const step = example.checkpoints[leadIndex];
      this.fill({ step });
      this.slot("lead").setAttribute("aria-valuetext", say("step-value", { step }));
    }
    this.drawGrid(values, limit);
    this.drawLegend(limit);
    this.drawCaption();
  }

  // The working under the grid: the readout of the pair pointed at, and the row followed into the output.
  drawWorking() {
    this.readout.style.minHeight = ""; // (see showPair)
    this.drawReadout();
    this.drawFollowedRow();
  }

  drawGrid(values, limit) {
    const { tokens, mask, result } = this;
    const { quantity } = this.state;
    const quantityName = this.named.name;
    const [headerRow, ...queryRows] = this.rows;
    this.grid.setAttribute("aria-label", words()[`grid/${quantity.replace("_", "-")}`]);
    tokens.forEach((token, j) => (headerRow.children[j + 1].textContent = token));
    this.tie = ""; // the first cell printed with 3 decimals, which the caption explains
    queryRows.forEach((gridRow, i) => {
      const [rowHeader, ...cells] = gridRow.children;
      const entropyCell = cells.pop();
      const entropy = formatNumber(result.entropy[i]);
      rowHeader.textContent = tokens[i];
      cells.forEach((cell, j) => {
        const masked = mask && !mask[i][j] && quantity !== "scores"; // raw scores come before the mask
        const colour = cellColour(values[i][j], quantity, limit);
        // 3 decimals where 2 would round an exact tie (0.415), as the static figure prints it (a masked weight, 0, is no tie)
        cell.textContent = masked && quantity === "weights" ? "0" : formatCell(values[i][j]);
        if (isTie(values[i][j])) this.tie ||= cell.textContent;
        cell.style.backgroundColor = cssColour(colour); // only the colour: .aih-masked adds its hatching
        cell.style.color = textColour(colour);
        cell.classList.toggle("aih-masked", !!masked);
        cell.setAttribute("aria-label", say("cell", { query: tokens[i], key: tokens[j], quantity: quantityName, value: cell.textContent }));
      });
      entropyCell.textContent = entropy;
      entropyCell.style.setProperty("--aih-entropy", result.entropy[i] / Math.log(this.allowedKeys(i)) || 0); // its bar: 1 is flat
      entropyCell.setAttribute("aria-label", say("row-entropy", { token: tokens[i], entropy }));
    });
  }

  drawLegend(limit) {
    const { quantity, scaleMultiplier } = this.state;
    const showsWeights = quantity === "weights";
    const scale = SCALES[showsWeights ? "sequential" : "diverging"];
    this.slot("gradient").style.background = `linear-gradient(to right,${scale.map(cssColour)})`;
    this.panel.classList.toggle("aih-masks", !!this.mask?.flat().includes(false));
    this.fill({
      scale: say("legend-scale", { multiplier: formatNumber(scaleMultiplier), scale: this.formatScaled(this.example.scale * scaleMultiplier) }),
      low: formatNumber(showsWeights ? 0 : -limit),
      high: formatNumber(limit),
      quantity: this.named.name,
    });
  }

  // The caption says what the grid shows now: the build's own caption while the grid shows what one of its
  // figures showed, else one made from the state.
  drawCaption() {
    if (!this.caption) return;
    const { quantity, scaleMultiplier, maskName, leadIndex } = this.state;
    const asBuilt = scaleMultiplier === 1 && maskName === this.publishedMaskName;
    const { what, colours } = this.named;
    const axis = this.example.leading_axis; // an axis that names itself: "step 20", its label, not its position
    // the build's caption of this grid (one per checkpoint, say), else of the figure, while it shows what that says
    const built = axis?.captions?.[quantity]?.[leadIndex] ??
      (leadIndex === this.initialLead ? this.publishedCaptions[quantity] : "");
    const lead = !this.leadCount ? "" : axis ? say("caption-axis", { name: axis.name, label: axis.labels[leadIndex] })
      : say(this.example.n_heads ? "caption-head" : "caption-sequence", { number: +leadIndex + 1 });
    const scale = scaleMultiplier === 1 ? "" : say("caption-scale", { multiplier: formatNumber(scaleMultiplier) });
    const mask = maskName === "none" ? "" : say("caption-mask", { mask: this.slot("mask").selectedOptions[0].text });
    const entropy = this.noEntropy ? "" : words()["caption-entropy"];
    this.caption.textContent = (asBuilt && built) || say(this.tie ? "caption/tie" : "caption",
      { what, tokens: this.tokens.join(" "), lead, scale, mask, colours, entropy, cell: this.tie });
  }

  // Hovering or focusing a cell redraws only the readout, which keeps the pointer quick on a large grid. The
  // readout's lines wrap differently from pair to pair: it keeps the tallest height it has had, so that what
  // follows it stays put as the pointer moves on, until the next full redraw or a new width (see keepHeight).
  showPair(row, column) {
    this.keepHeight(this.readout.getBoundingClientRect().height);
    this.state.focusedCell = [row, column];
    this.state.pointed = true;
    this.drawReadout();
    rememberPlace(); // the height it keeps, for Back (place.js)
  }

  // The readout is at least `height` px tall until the next full redraw, or until its width changes (listen).
  keepHeight(height) {
    this.readout.style.minHeight = `${height}px`;
    if (!this.watchingWidth) this.widthWatch.observe(this.readout);
    this.watchingWidth = true;
  }

  // A scaled score as the reader can check it: exactly when 1/√d_k is a fraction (d_k = 4: 0.37 × 1/2 = 0.185),
  // else to `most` decimals.
  formatScaled(x, most = 3) {
    return formatNumber(x, exactDigits(x, 2, Number.isInteger(Math.sqrt(this.example.d_k)) ? 8 : most));
  }

  // One pair's arithmetic on the numbers as printed, so that every line of the readout checks out by hand:
  // the vectors to 2 decimals, their products and sum exactly, the score times the printed factor.
  printedPair(row, column, most) {
    const query = this.forLead(this.steps.Q)[row].map((x) => printed(x));
    const key = this.forLead(this.steps.K)[column].map((x) => printed(x));
    const products = query.map((x, c) => formatNumber(x * key[c], exactDigits(x * key[c], 2, 4)));
    const sum = products.reduce((total, text) => total + parseNumber(text), 0);
    const score = formatNumber(sum, exactDigits(sum, 2, 4));
    const scaledScore = this.formatScaled(parseNumber(score) * this.example.scale * this.state.scaleMultiplier, most);
    return { query, key, products, score, scaledScore };
  }

  // The keys row i may attend to under the mask shown: an even spread over them is the row's largest entropy.
  allowedKeys(i) {
    return this.mask ? this.mask[i].filter(Boolean).length : this.keyCount;
  }

  // One pair's softmax on the printed scaled scores, each minus the row's largest s̃_max as softmax/ teaches:
  // e^(s̃ − s̃_max) and their total to `significant` digits, and the weight they give.
  printedWeight(row, column, most, significant) {
    const pair = this.printedPair(row, column, most);
    const scaled = this.result.scaled_scores[row].flatMap((score, j) =>
      (score > -Infinity ? [parseNumber(this.printedPair(row, j, most).scaledScore)] : []));
    const rowMax = Math.max(...scaled);
    const shift = (x) => formatNumber(x - rowMax, exactDigits(x - rowMax, 0, 8)); // exact: both are printed
    const exponents = scaled.map(shift);
    const shifted = shift(parseNumber(pair.scaledScore));
    const numerator = formatSignificant(Math.exp(parseNumber(shifted)), significant);
    const denominator = formatSignificant(exponents.reduce((total, x) => total + Math.exp(parseNumber(x)), 0), significant);
    const weight = parseNumber(numerator) / parseNumber(denominator);
    return { ...pair, rowMax: this.formatScaled(rowMax, most), shifted, exponents, numerator, denominator,
      weight: isTie(weight) ? "" : formatNumber(weight) };
  }

  // The readout: one query-key pair, from the dot product to its weight, and its row's entropy. The scaled
  // scores (when 1/√d_k is irrational), e^s and their total get the fewest digits (3 decimals, 4 significant,
  // or more) that give the weight the grid shows.
  drawReadout() {
    const { example, result, tokens } = this;
    const { focusedCell: [row, column], scaleMultiplier, pointed } = this.state;
    const masked = result.scaled_scores[row][column] === -Infinity;
    const shownWeight = formatNumber(result.weights[row][column]);
    const attempts = [3, 4, 5, 6].flatMap((most) => [4, 5, 6, 7, 8].map((significant) => [most, significant]));
    const first = this.printedWeight(row, column, 3, 4);
    let pair = first;
    for (const [most, significant] of attempts) {
      if (masked || pair.weight === shownWeight) break;
      pair = this.printedWeight(row, column, most, significant);
    }
    if (pair.weight !== shownWeight) pair = first; // (only when the vectors' rounding moves the weight)
    const { rowMax, shifted, exponents, numerator, denominator } = pair;
    const pairWeight = pair.weight || formatNumber(result.weights[row][column]);
    const keyCount = this.allowedKeys(row);
    this.rows.forEach((gridRow, y) =>
      [...gridRow.children].forEach((cell, x) => cell.classList.toggle("aih-hl", pointed && (y === row + 1 || x === column + 1))));
    this.fill({
      queryToken: tokens[row],
      keyToken: tokens[column],
      queryIndex: row + 1, // counted from 1, as everywhere on the site
      keyIndex: column + 1,
      pair: `${row + 1},${column + 1}`,
      query: formatVector(pair.query),
      key: formatVector(pair.key),
      products: formatSum(pair.products),
      score: pair.score,
      factor: `1/√${example.d_k}` + (scaleMultiplier === 1 ? "" : ` × ${formatNumber(scaleMultiplier)}`),
      scaledScore: masked ? say("scaled-masked", { score: pair.scaledScore }) : pair.scaledScore,
      rowMax,
      shifted,
      numerator,
      denominator,
      pairWeight,
      entropy: formatNumber(result.entropy[row]),
      keyCount,
      flatEntropy: formatNumber(Math.log(keyCount)),
    });
    this.slot("terms").replaceChildren(...exponents.flatMap((x, k) => [k ? " + e" : "e", h("sup", {}, x)]));
    this.panel.classList.toggle("aih-pair-masked", masked);
  }

  // The followed row's output: row i of out is row i of the weights times the value vectors, the weights printed
  // by one rule at every scale (weightsByHand: 4 decimals, more only where their products miss the output).
  drawFollowedRow() {
    const { followedRow } = this.state;
    this.rows.forEach((gridRow, y) => gridRow.classList.toggle("aih-picked", y - 1 === followedRow));
    this.panel.classList.toggle("aih-row", followedRow !== null);
    if (followedRow === null) return;
    const values = this.forLead(this.steps.V);
    const valueDigits = Math.max(...values.flat().map((x) => exactDigits(x, 2, 4)));
    const shownValues = values.map((value) => value.map((x) => printed(x, valueDigits)));
    const output = this.result.out[followedRow];
    const [digits, weights, sums] = weightsByHand(this.result.weights[followedRow], shownValues, output);
    this.fill({ followedRow: followedRow + 1, followedToken: this.tokens[followedRow], output: formatVector(sums) });
    this.slot("lines").replaceChildren(...shownValues.map((value, j) =>
      h("p", {}, `${formatNumber(weights[j], digits)} × [${value.map((x) => formatNumber(x, valueDigits)).join(", ")}] (${this.tokens[j]})`)));
  }

  moveFocus(row, column) {
    const cell = this.grid.querySelector(`[data-i="${row}"][data-j="${column}"]`); // none past the grid's edge
    if (!cell) return;
    this.grid.querySelector("[tabindex='0']").tabIndex = -1;
    cell.tabIndex = 0;
    cell.focus(); // its focusin updates the readout
  }

  listen(signal) {
    const on = (element, type, handler) => element.addEventListener(type, handler, { signal });
    on(this.slot("modes"), "click", (event) => event.target.value && this.update({ quantity: event.target.value }));
    // the multiplier as printed (2 decimals), so the readout's arithmetic uses the number it shows
    on(this.slot("slider"), "input", (event) => this.update({ scaleMultiplier: printed(10 ** +event.target.value) }));
    on(this.slot("mask"), "change", (event) => this.update({ maskName: event.target.value }));
    on(this.slot("lead"), "input", (event) => this.update({ leadIndex: event.target.value }));
    // At a new width the readout's lines wrap anew, so it lets go of the height it keeps (keepHeight starts
    // this watch). It watches its own width: a phone's address bar coming and going changes only the window's
    // height, and reading the window's width would, on a phone, make the browser lay out the page at once.
    let width = 0; // as last laid out; 0 while it is not (hidden)
    this.watchingWidth = false;
    this.widthWatch = new ResizeObserver(([{ contentRect }]) => {
      if (!contentRect.width) return;
      if (width && contentRect.width !== width) this.readout.style.minHeight = "";
      width = contentRect.width;
    });
    signal.addEventListener("abort", () => this.widthWatch.disconnect());
    // one listener per event type on the grid, not one per cell
    const onCell = (type, handler) =>
      on(this.grid, type, (event) => {
        const cell = event.target.closest("[data-j]");
        if (cell) handler(+cell.dataset.i, +cell.dataset.j, event);
      });
    onCell("pointerover", (row, column) => this.showPair(row, column));
    onCell("focusin", (row, column) => this.showPair(row, column));
    onCell("click", (row, column) => {
      this.moveFocus(row, column);
      this.update({ followedRow: row });
    });
    onCell("keydown", (row, column, event) => {
      const target = cellAfterKey(event.key, event.ctrlKey, [row, column], [this.queryCount, this.keyCount]);
      if (event.key === "Enter" || event.key === " ") this.update({ followedRow: row });
      else if (target) this.moveFocus(...target);
      else return;
      event.preventDefault();
    });
  }
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve));

// A short visible note in `figure` saying why it stays static (its figure and table show every number).
function noteStatic(figure, why) {
  const note = document.getElementById("aih-heatmap").content.lastElementChild.cloneNode(true); // the template's words
  note.firstElementChild.textContent = why;
  figure.querySelector(".aih-figure__graphic").before(note);
}

// (Re)makes `figure` interactive, e.g. after a change of its data-example or data-head; the `merged`
// figures (the same example's neighbours) are hidden once it is. `data`: an example computed in the page
// (the your-sentence page's model) instead of examples/<data-example>.json. The example is checked before
// anything on the page changes, and the static figure gives way only to a widget that has drawn; otherwise
// it stays, with a note. Never rejects.
export async function enhance(figure, merged = [], data = null) {
  widgetListeners.get(figure)?.abort();
  const controller = new AbortController();
  widgetListeners.set(figure, controller);
  const path = `examples/${figure.dataset.example}.json`;
  if (!data && !examples.has(path)) examples.set(path, fetchChecked(path));
  let widget;
  let problem;
  try {
    const example = data || (await examples.get(path));
    if (controller.signal.aborted) return; // enhanced again while the JSON was loading
    problem = await exampleProblem(example, figure.dataset.head);
    // Checked, built, its grid drawn, then its working drawn, each in a task of its own: none of them keeps the
    // page busy for long. All before it is shown: if one throws, the static figure was never touched.
    const steps = [() => (widget = new Heatmap(figure, example)), () => widget.drawFigure(),
      () => {
        widget.drawWorking();
        widget.listen(controller.signal);
      }];
    for (const step of problem ? [] : steps) {
      await nextTask();
      if (controller.signal.aborted) return;
      step();
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    problem = await sayStatic("failed", { error: error.message });
  }
  figure.querySelector(".aih-live")?.remove();
  figure.querySelector(".aih-static-note")?.remove();
  figure.classList.remove("aih-held"); // its own height from now on
  figure.style.height = "";
  const pin = keptPins.get(figure);
  keptPins.delete(figure);
  // all in this one task: the reader sees the static figure or the widget, never half of each
  figure.classList.toggle("aih-on", !problem);
  for (const other of merged) other.classList.toggle("aih-merged", !problem);
  if (problem) {
    controller.abort();
    return noteStatic(figure, problem);
  }
  figure.querySelector(".aih-figure__graphic").before(widget.panel);
  // drawn again as it was held: its readout as tall as the reader left it, so that nothing after it moves
  if (pin) widget.keepHeight(pin);
  rememberPlace();
}

// Once the page is there (document$, the theme's signal), a run of figures is made interactive (and its
// example's JSON fetched) when it comes within a screen of the viewport, not all at once on load.
globalThis.document$?.subscribe(() => {
  const runs = new Map(); // the first figure of each run of adjacent figures showing one example -> the others
  let last;
  for (const figure of document.querySelectorAll("figure.aih-heatmap[data-example][data-quantity]")) {
    if (last?.at(-1) === figure.previousElementSibling && last[0].dataset.example === figure.dataset.example) last.push(figure);
    else runs.set(figure, (last = [figure]));
  }
  loadNearViewport(runs.keys(), (figure) => enhance(figure, runs.get(figure).slice(1)));
});
