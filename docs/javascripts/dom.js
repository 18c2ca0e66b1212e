// What the page's widgets share: building elements, finding a template's parts, the arrow keys, loading a
// widget as it nears the viewport, and loading the site's files with an error that says which one failed.

export function setAttributes(element, attributes) {
  for (const name in attributes) element.setAttribute(name, attributes[name]);
}

// h("p", { class: "note" }, "text", child): strings become text nodes, never markup
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  element.append(...children);
  return element;
}

// A widget's template names its parts with data-slot="name": slots(root, name) is every such part inside root
// (one number may show in several places), slots(root, name)[0] the first
export const slots = (root, name) => root.querySelectorAll(`[data-slot=${name}]`);

// [row, column] moves of the arrow keys in a grid (WAI-ARIA's grid pattern); undefined for any other key
export const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// load(element), once, for each of `elements` when it comes within `margin` of the viewport (a screen, by
// default): a long page pays only for what the reader reaches
export function loadNearViewport(elements, load, margin = "100% 0px") {
  const near = new IntersectionObserver((entries) => {
    for (const { isIntersecting, target } of entries) if (isIntersecting) near.unobserve(target), load(target);
  }, { rootMargin: margin });
  for (const element of elements) near.observe(element);
}

// The file at `path` (from the site root wherever the site is served: this module is <site>/javascripts/dom.js;
// or an absolute URL), read as `as` ("json", "text" or "arrayBuffer"). Anything but a 2xx answer is an error
// that names the file and its HTTP status.
export async function fetchChecked(path, as = "json") {
  const response = await fetch(new URL(path, new URL("../", import.meta.url)));
  if (!response.ok) throw Error(`${path}: HTTP ${response.status}`);
  return response[as]();
}
