// An embed page (embed/<id>/): its one heatmap, without the theme. The page shows the static figure and its table
// first; heatmap.js replaces the figure once the interactive heatmap has drawn, and otherwise keeps it with a note
// saying the interactive view failed (bad JSON, a failed request). The heatmap's words live in the site's
// <template id="aih-heatmap"> (template.html here, which the post-build pass puts into every page the theme
// renders, finish/widgets.py): take it from the smallest one, 404.html. Without it the heatmap cannot draw, nor word
// its note: this page says why itself, in the words of the heatmap's string table.
import { fetchChecked, fill, h, strings } from "../../javascripts/dom.js";
import { enhance } from "./heatmap.js";

const figure = document.querySelector("figure.aih-heatmap");
try {
  const site = new DOMParser().parseFromString(await fetchChecked("404.html", "text"), "text/html");
  const words = site.getElementById("aih-heatmap");
  if (!words) throw Error("404.html: no heatmap template");
  document.body.append(document.adoptNode(words));
  enhance(figure);
} catch (error) {
  const S = await strings("heatmap-static");
  figure.querySelector(".aih-figure__graphic").before(h("p", { class: "aih-static-note" },
    fill(S.static, { error: error.message })));
}
