/**
 * Entry of `npm run rotate-master-key` (docs/custody.md, "Rotating the master key"): see
 * `infra/rotate-master-key-command.ts`. Exits 0 when done, 1 with the reason printed.
 */
import { rotateMasterKeyCommand } from "./infra/rotate-master-key-command.js";

process.exitCode = await rotateMasterKeyCommand({
  argv: process.argv.slice(2),
  env: process.env,
  print: (line) => console.log(line),
  printError: (line) => console.error(line),
});
