import { writeFileSync } from "node:fs";
import { stopTestServer, testServerUrl } from "./postgres.js";

/**
 * One embedded PostgreSQL for a whole `npm test` run without DATABASE_URL (scripts/test.sh):
 * started here, its URL written to the file given, stopped (and its folders removed) on SIGTERM
 * or SIGINT. The test files then share it as they share DATABASE_URL's server, instead of each
 * starting its own (an initdb and a server start per file: about 3 s of CPU each).
 *
 * @example
 * node --import tsx test/support/run-postgres.ts "$url_file" &
 */
const urlFile = process.argv[2];
if (urlFile === undefined || process.env.DATABASE_URL) {
  console.error(
    "usage: node --import tsx test/support/run-postgres.ts <url file> (without DATABASE_URL)",
  );
  process.exit(2);
}
const url = await testServerUrl();
writeFileSync(urlFile, `${url}\n`);
console.log(`embedded PostgreSQL for this run at ${new URL(url).host}`);
await new Promise<void>((resolve) => {
  process.once("SIGTERM", () => resolve());
  process.once("SIGINT", () => resolve());
});
await stopTestServer();
