// An embed page (embed/<id>/): its one heatmap, without the theme. The page shows the static figure and its table
// first; heatmap.js replaces the figure once the interactive heatmap has drawn, and otherwise keeps it with a note
// saying the interactive view failed (bad JSON, a failed request). The heatmap's words live in its
// <template id="aih-heatmap"> (template.html here), which the build puts into the embed page in the page's language
// (figures_src/engine/embed.py), as the post-build pass puts it into every page the theme renders. Without it the
// heatmap cannot draw: this page says why itself, in the words of the heatmap's string table.
import { fill, h, strings } from "../../javascripts/dom.js";
import { enhance } from "./heatmap.js";

const figure = document.querySelector("figure.aih-heatmap");
try {
  // the heatmap's template, in the page's language: the build put it in this page (figures_src/engine/embed.py)
  if (!document.getElementById("aih-heatmap")) throw Error("no heatmap template in this page");
  enhance(figure);
} catch (error) {
  const S = await strings("heatmap-static");
  figure.querySelector(".aih-figure__graphic").before(h("p", { class: "aih-static-note" },
    fill(S.static, { error: error.message })));
}
