/**
 * Entry of `npm run operator` (docs/people.md "Operator staff"): see
 * `people/operator-people.ts`. Exits 0 when done, 1 with the reason printed, 2 on a usage error.
 */
import { operatorCommand } from "./people/operator-people.js";

process.exitCode = await operatorCommand({
  argv: process.argv.slice(2),
  env: process.env,
  print: (line) => console.log(line),
  printError: (line) => console.error(line),
});
