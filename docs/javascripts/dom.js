// What the page's widgets share: building elements, finding a template's parts, the arrow keys, loading a
// widget as it nears the viewport, loading the site's files with an error that says which one failed, and the
// words a script shows, in the page's language (a string table per reader). The string tables' two functions live
// here, not in a module of their own, because every widget imports this one: a file of their own cost the heatmap's
// page view about 90 bytes more, gzipped, and real-heads/ sits at its 10 KB budget.

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

// The words our scripts show: the build's string table for each reader (figures_src/engine/strings.py, from
// words/scripts/<reader>.md and words/zh/scripts/<reader>.md), published as javascripts/strings-<reader>.js, and
// for another language as <lang>/javascripts/strings-<reader>.js. No word a reader sees is a literal in a script:
//   const S = await strings("heatmap");  status.textContent = fill(S["static"], { error: error.message });
const HOLE = /\{\{ ?(\w+) ?\}\}/g; // a hole; the build has checked each one's name (figures_src/engine/words.py's HOLE)

// {section: text} of `reader`'s table in the page's language (<html lang>; "en" where there is no document, as in
// the Node tests and a worker): English's beside this file, another's in <lang>/javascripts/
export const strings = async (reader, lang = globalThis.document?.documentElement?.lang) =>
  (await import(`${lang && lang != "en" ? `../${lang}/javascripts` : "."}/strings-${reader}.js`)).S;

// `text` with each hole {{ name }} replaced by values[name]; a hole without a value is an error, not a gap
export const fill = (text, values = {}) => text.replace(HOLE, (_, name) => {
  if (name in values) return values[name];
  throw Error(`no value for {{ ${name} }}`);
});
