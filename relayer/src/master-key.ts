/**
 * Entry of `npm run master-key` (docs/recovery.md, "The master key"): see
 * `infra/master-key-shares.ts`. Exits 0 when done, 1 with the reason printed, 2 on a usage error.
 */
import { text } from "node:stream/consumers";
import { masterKeyCommand } from "./infra/master-key-shares.js";

process.exitCode = await masterKeyCommand({
  argv: process.argv.slice(2),
  env: process.env,
  readStdin: () => text(process.stdin),
  print: (line) => console.log(line),
  printError: (line) => console.error(line),
});
