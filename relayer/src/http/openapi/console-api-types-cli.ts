/**
 * `node --import tsx relayer/src/http/openapi/console-api-types-cli.ts [consoleDir]`: writes the
 * console's API types (console/app/lib/api-types.ts) from the relayer's OpenAPI document when they
 * are missing or stale. The console build (`ensureConsoleBuilt`), `npm run typecheck` and
 * `npm run lint:ts` run it before `next build`, `tsc` and ESLint read the console.
 */
import path from "node:path";
import { API_TYPES_FILE, ensureConsoleApiTypes } from "./console-api-types.js";

const consoleDir = process.argv[2];
const status = await ensureConsoleApiTypes(consoleDir);
console.log(`${path.join(consoleDir ?? "console", API_TYPES_FILE)}: ${status}`);
