/**
 * Generates `relayer/sdk/write-methods.ts` from the relayer's write-kind registry
 * (`relayer/src/writes/kinds/index.ts`): the SDK's write methods (name = operation id, path,
 * comment), so the browser bundle carries them without importing server code. The file is
 * committed; `test/relayer/sdk/sdk-write-methods.test.ts` fails when it is stale.
 * Usage: `node --import tsx relayer/sdk/generate-write-methods.ts`.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { WRITE_KINDS } from "../src/writes/kinds/index.js";

/** Where the generated file lives. */
export const WRITE_METHODS_FILE = fileURLToPath(new URL("./write-methods.ts", import.meta.url));

/** The text of `write-methods.ts` for the current registry (formatted with the repo's Prettier). */
export async function writeMethodsSource(): Promise<string> {
  const entries = WRITE_KINDS.map((k) => `  ${k.docs.operationId}: ${JSON.stringify(k.path)},`);
  const members = WRITE_KINDS.map((k) => {
    const scopes = k.scopes.map((s) => `\`${s}\``).join(" or ");
    return [
      `  /** \`POST ${k.path}\` (scope ${scopes}): ${k.summary}. */`,
      `  ${k.docs.operationId}: WriteMethod<${JSON.stringify(k.path)}>;`,
    ].join("\n");
  });
  const source = `// Generated from relayer/src/writes/kinds/index.ts by relayer/sdk/generate-write-methods.ts.
// Do not edit: run \`node --import tsx relayer/sdk/generate-write-methods.ts\` after adding a write kind.
import type { WriteMethod } from "./options.js";

/** The path of each write method (by operation id), in registry order. */
export const WRITE_PATHS = {
${entries.join("\n")}
} as const;

/** The client's write methods, one per write kind. */
export interface WriteMethods {
${members.join("\n")}
}
`;
  const config = await resolveConfig(WRITE_METHODS_FILE);
  return format(source, { ...config, filepath: WRITE_METHODS_FILE });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(WRITE_METHODS_FILE, await writeMethodsSource());
  console.log(`wrote ${WRITE_METHODS_FILE}`);
}
