// What the page's widgets share: building elements, and loading the site's JSON.

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

// `path` from the site root, wherever the site is served: this module is <site>/javascripts/dom.js
export async function fetchJSON(path) {
  const response = await fetch(new URL(`../${path}`, import.meta.url));
  if (!response.ok) throw new Error(`${response.status} for ${response.url}`);
  return response.json();
}
