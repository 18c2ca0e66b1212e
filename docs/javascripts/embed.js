// An embed page (embed/<id>/): its one heatmap, without the theme. The heatmap's words live in the site's
// <template id="aih-heatmap"> (overrides/main.html), which every page Material renders carries: take it from
// the smallest one, 404.html, then draw. Loaded only by embed pages.
import { enhance } from "./heatmap.js";

const response = await fetch(new URL("../404.html", import.meta.url));
const site = new DOMParser().parseFromString(await response.text(), "text/html");
document.body.append(document.adoptNode(site.getElementById("aih-heatmap")));
enhance(document.querySelector("figure.aih-heatmap"));
