import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { OpenAPI3 } from "openapi-typescript";
import { REPO_ROOT } from "../../config.js";
import { buildOpenApiDocument } from "./build-openapi.js";

/**
 * Where, in the console's folder, its API types (`paths`, `operations`, `components`) are
 * generated from the relayer's OpenAPI document by openapi-typescript. Not committed (.gitignore):
 * the file is built from the route registry like the document itself, so it cannot drift from
 * the server.
 */
export const API_TYPES_FILE = path.join("app", "lib", "api-types.ts");

/** The header's last line: the hash of what the file was generated from. */
const SOURCE_LINE = "// Source: sha256 ";

/** The header of the generated file, then the line naming its source's hash. */
function header(sourceHash: string): string {
  return [
    "// Generated from the relayer's OpenAPI document (relayer/src/http/openapi/build-openapi.ts)",
    "// by relayer/src/http/openapi/console-api-types.ts, which the console build, `npm run",
    "// typecheck` and `npm run lint` run first. Not committed; do not edit: change the routes.",
    `${SOURCE_LINE}${sourceHash}`,
    "",
    "",
  ].join("\n");
}

/**
 * Writes `console/app/lib/api-types.ts` (`API_TYPES_FILE`) from the OpenAPI document of the route
 * registry, unless the file already holds the types of this very document (the hash of the
 * document and of the generator's version, kept in its header, is the same). The file is
 * rewritten only when its content changes, so its mtime (an input of the console build's
 * freshness check) moves exactly when the API's types do. openapi-typescript (a devDependency,
 * like `next build`'s TypeScript) is loaded only when the file is written.
 *
 * @param consoleDir the console's folder (default `console/` of this repository)
 * @returns `"fresh"` when the file was already up to date, else `"written"`
 * @example
 * await ensureConsoleApiTypes(); // before `next build` or `tsc` (console-api-types-cli.ts)
 */
export async function ensureConsoleApiTypes(
  consoleDir = path.join(REPO_ROOT, "console"),
): Promise<"fresh" | "written"> {
  const file = path.join(consoleDir, API_TYPES_FILE);
  // The defaults (coin symbol, server URL) keep the document, and so the file, the same everywhere.
  const document = buildOpenApiDocument();
  const generatorVersion = (
    createRequire(import.meta.url)("openapi-typescript/package.json") as { version: string }
  ).version;
  const sourceHash = createHash("sha256")
    .update(`openapi-typescript ${generatorVersion}\n`)
    .update(JSON.stringify(document))
    .digest("hex");
  const current = await readFile(file, "utf8").catch(() => "");
  if (current.includes(`\n${SOURCE_LINE}${sourceHash}\n`)) return "fresh";

  const { default: openapiTS, astToString } = await import("openapi-typescript");
  // `OpenApiDocument` types its operations as plain JSON objects; the generator's `OpenAPI3` is
  // the same document, typed field by field.
  const nodes = await openapiTS(document as unknown as OpenAPI3, { silent: true });
  const text = header(sourceHash) + astToString(nodes);
  // Written beside it, then renamed: a concurrent `next build` or `tsc` never reads half a file.
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, text);
  await rename(partial, file);
  return "written";
}
