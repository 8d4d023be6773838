/**
 * Entry of `npm run reindex` (docs/recovery.md): see `recovery/recovery-commands.ts`. Exits 0 when
 * done, 1 with the reason printed, 2 on a usage error.
 */
import { reindexCommand } from "./recovery/recovery-commands.js";

process.exitCode = await reindexCommand({
  argv: process.argv.slice(2),
  env: process.env,
  print: (line) => console.log(line),
  printError: (line) => console.error(line),
});
