// An embed page (embed/<id>/): its one heatmap, without the theme. The page shows the static figure and its table
// first; heatmap.js replaces the figure once the interactive heatmap has drawn, and otherwise keeps it with a note
// saying the interactive view failed (bad JSON, a failed request). The heatmap's words live in the site's
// <template id="aih-heatmap"> (overrides/main.html), which every page Material renders carries: take it from
// the smallest one, 404.html. Without it the heatmap cannot draw, and says so the same way.
import { fetchChecked } from "./dom.js";
import { enhance } from "./heatmap.js";

try {
  const site = new DOMParser().parseFromString(await fetchChecked("404.html", "text"), "text/html");
  document.body.append(document.adoptNode(site.getElementById("aih-heatmap")));
} catch {
  // no words: the heatmap below fails to draw and keeps the static figure, with its note
}
enhance(document.querySelector("figure.aih-heatmap"));
