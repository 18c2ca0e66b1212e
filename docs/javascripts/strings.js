// The words our scripts show, in the page's language: the build's string table for each reader
// (figures_src/engine/strings.py, from words/scripts/<reader>.md and words/zh/scripts/<reader>.md), published as
// javascripts/strings-<reader>.js, and for Chinese as zh/javascripts/strings-<reader>.js. No word a reader sees
// is a literal in a script.
const OTHER_LANGUAGES = ["zh"]; // the default language's tables sit beside this file, each other's in <lang>/javascripts/
const HOLE = /\{\{ ?([a-z][a-z0-9_]*) ?\}\}/g; // figures_src/engine/words.py's HOLE

/** The page's language: <html lang> ("en" where no document, as in the Node tests). */
export const language = () => globalThis.document?.documentElement.lang || "en";

/** {section: text} of `reader`'s table in the page's language. */
export async function strings(reader) {
  const lang = language();
  const folder = OTHER_LANGUAGES.includes(lang) ? `../${lang}/javascripts/` : "./";
  return (await import(`${folder}strings-${reader}.js`)).S;
}

/** `text` with each hole {{ name }} replaced by values[name]; a hole without a value is an error, not a gap. */
export function fill(text, values = {}) {
  return text.replace(HOLE, (_, name) => {
    if (!(name in values)) throw new Error(`no value for {{ ${name} }} in “${text}”`);
    return String(values[name]);
  });
}
