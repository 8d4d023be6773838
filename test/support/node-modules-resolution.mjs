// Loaded by scripts/test.sh into every Node process of the integration tests (NODE_OPTIONS
// --import): the test files, and the relayers and `npm start`s they spawn.
//
// Why: Node 22 parses a package.json's whole `exports` field again each time it looks up the
// package a module belongs to, and it does so for every relative import inside a package.
// drizzle-orm's package.json is 179 KB of `exports`, and the relayer loads some 400 of its
// modules: about 0.9 s of CPU in each process that imports the relayer (a test file's imports
// went from 3.3 s of CPU to 2.3 s with this hook; about 160 such processes per `npm test`).
//
// What: a relative import (`./x.js`, `../y.mjs`) from a module inside node_modules, in a package
// whose package.json says `"type"`, resolves to the URL next to its importer with that type as
// its format, as Node's own resolver would; everything else (bare specifiers, the project's own
// files, packages that leave the type to Node's detection) goes to Node's resolver unchanged.
import { readFileSync } from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath, URL } from "node:url";

/** Folder → the `type` its nearest package.json declares (null: none declared, or none found). */
const typeOf = new Map();

function declaredType(folder) {
  const visited = [];
  let type = null;
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const known = typeOf.get(dir);
    if (known !== undefined) {
      type = known;
      break;
    }
    visited.push(dir);
    let text;
    try {
      text = readFileSync(path.join(dir, "package.json"), "utf8");
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      try {
        const declared = JSON.parse(text).type;
        type = declared === "module" || declared === "commonjs" ? declared : null;
      } catch {
        type = null;
      }
      break;
    }
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of visited) typeOf.set(dir, type);
  return type;
}

const FORMATS = { ".mjs": "module", ".cjs": "commonjs" };

// `registerHooks` (in-thread hooks) exists from Node 22.15; without it, Node resolves as usual.
registerHooks?.({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (
      parent?.startsWith("file:") &&
      parent.includes("/node_modules/") &&
      (specifier.startsWith("./") || specifier.startsWith("../"))
    ) {
      const url = new URL(specifier, parent);
      const extension = path.extname(url.pathname);
      const format =
        FORMATS[extension] ??
        (extension === ".js" ? declaredType(path.dirname(fileURLToPath(url))) : null);
      if (format !== null && format !== undefined) {
        return { url: url.href, format, shortCircuit: true };
      }
    }
    return nextResolve(specifier, context);
  },
});
