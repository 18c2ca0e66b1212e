// finish/scripts.py's minifier: reads {name: source} as JSON on stdin and writes {name: minified} on stdout.
// Each file is an ES module (its exports keep their names; everything else may be renamed). A file terser
// cannot parse stops the build, named with its line and column.
import { minify } from "terser";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const minified = {};
for (const [name, source] of Object.entries(JSON.parse(input))) {
  try {
    minified[name] = (await minify(source, { module: true, format: { comments: false } })).code;
  } catch (error) {
    console.error(`${name}, line ${error.line}, column ${error.col}: ${error.message}`);
    process.exit(1);
  }
}
process.stdout.write(JSON.stringify(minified));
