import { pathToFileURL } from "node:url";

/**
 * Runs `bench` when the module at `moduleUrl` is the script node was started with (not when
 * bench/run.ts imports it), then exits: 0 when it resolves, 1 with the error printed when it
 * rejects.
 *
 * @example
 * runAsScript(import.meta.url, runReadsBench);
 */
export function runAsScript(moduleUrl: string, bench: () => Promise<void>): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? "").href) return;
  bench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
