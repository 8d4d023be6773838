import assert from "node:assert/strict";
import { parsePids, portIsOpen, processExists } from "./relayer-process.js";

/**
 * The pids `npm start` printed in its banner (`Processes relayer 1, anvil 2, postgres 3`),
 * checked to name anvil and PostgreSQL.
 */
export function bannerPids(output: string): Record<string, number> {
  const pids = parsePids(output);
  assert.ok(
    pids.anvil !== undefined && pids.postgres !== undefined,
    `pids in the banner:\n${output}`,
  );
  return pids;
}

/**
 * Asserts that a stopped `npm start` left nothing behind: none of `pids` runs any more, and
 * anvil's and PostgreSQL's ports are free.
 *
 * @param output what the stopped process printed, shown when a process is still there
 */
export async function assertNothingLeft(
  pids: Record<string, number>,
  ports: { anvil: number; postgres: number },
  output: string,
): Promise<void> {
  for (const [name, pid] of Object.entries(pids)) {
    assert.equal(processExists(pid), false, `${name} (pid ${pid}) is gone:\n${output}`);
  }
  assert.equal(await portIsOpen(ports.anvil), false, "anvil's port is free");
  assert.equal(await portIsOpen(ports.postgres), false, "PostgreSQL's port is free");
}
