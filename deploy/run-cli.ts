import path from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError, DeployError } from "./errors.js";

/**
 * Runs a command's `main` when the module is the entry point (`tsx deploy/cli.ts`, not an import
 * from a test): a `DeployError` prints its message and details and exits 1 (2 for a bad
 * setting); anything else prints whole and exits 1.
 *
 * @example
 * runCli(import.meta.url, main);
 */
export function runCli(moduleUrl: string, main: () => Promise<void>): void {
  const entry = process.argv[1];
  if (entry === undefined || moduleUrl !== pathToFileURL(path.resolve(entry)).href) return;
  main().catch((error: unknown) => {
    if (error instanceof DeployError) {
      console.error(`Error: ${error.message}`);
      if (error.details !== undefined) console.error(error.details);
      process.exitCode = error instanceof ConfigError ? 2 : 1;
    } else {
      console.error(error);
      process.exitCode = 1;
    }
  });
}
