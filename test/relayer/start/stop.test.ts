import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ensureArtifacts } from "../../../deploy/artifacts.js";
import { findFreePort } from "../../../deploy/local-chain.js";
import {
  exitWithin,
  interruptGroup,
  killAll,
  spawnRelayer,
  type RelayerProcess,
} from "./relayer-process.js";
import { assertNothingLeft, bannerPids } from "./assert-nothing-left.js";

/**
 * Stopping `npm start` the way a process manager does (SIGTERM to the npm process) and the way a
 * terminal does (Ctrl-C: SIGINT to npm's whole process group): the relayer stops first, then
 * anvil and PostgreSQL, which run in process groups of their own; nothing of ours is left, no
 * stack trace is printed, and the next start on the same DATA_DIR and ports is clean.
 */

const START_MS = 90_000; // a first start on a busy machine; includes initdb and the deployment
const STOP_MS = 20_000;

describe("stopping npm start", { timeout: 300_000 }, () => {
  let root: string;
  let env: Record<string, string>;
  let anvilPort: number;
  let pgPort: number;
  const spawned: RelayerProcess[] = [];

  async function npmStart(): Promise<{ npm: RelayerProcess; pids: Record<string, number> }> {
    // Its own process group, as a terminal gives `npm start`: interruptGroup() is then Ctrl-C.
    const npm = spawnRelayer(env, { viaNpm: true, processGroup: true });
    spawned.push(npm);
    await npm.waitFor(/Press Ctrl-C to stop/, START_MS);
    const pids = bannerPids(npm.output());
    assert.ok(pids.relayer !== undefined, `the relayer's pid in the banner:\n${npm.output()}`);
    assert.notEqual(pids.relayer, npm.child.pid, "the banner's relayer is npm's child");
    return { npm, pids };
  }

  function assertQuietOrderlyStop(output: string): void {
    const stop = output.slice(output.indexOf("stopping (at most"));
    assert.doesNotMatch(stop, /^\s+at /m, `no stack trace while stopping:\n${stop}`);
    assert.doesNotMatch(stop, /again: exiting now|terminating connection|ECONNREFUSED/);
    const order = ["stopped HTTP server", "stopped indexer", "stopped PostgreSQL", "stopped anvil"];
    const positions = order.map((line) => stop.indexOf(line));
    assert.ok(
      positions.every((at, i) => at >= 0 && (i === 0 || at > positions[i - 1]!)),
      `stopped in the order ${order.join(", ")}:\n${stop}`,
    );
    assert.match(stop, /Stopped in \d+ ms/);
  }

  before(async () => {
    await ensureArtifacts({ mode: "auto" });
    root = mkdtempSync(path.join(os.tmpdir(), "rwa-stop-"));
    chmodSync(root, 0o711);
    anvilPort = await findFreePort();
    pgPort = await findFreePort();
    env = {
      DATA_DIR: path.join(root, "data"),
      PORT: "0",
      ANVIL_PORT: String(anvilPort),
      EMBEDDED_PG_PORT: String(pgPort),
      CONSOLE_BUILD: "off",
    };
  });

  after(async () => {
    for (const npm of spawned) {
      if (npm.child.exitCode !== null || npm.child.signalCode !== null) continue;
      process.kill(-npm.child.pid!, "SIGINT");
      await exitWithin(npm, STOP_MS).catch(() => killAll(npm));
    }
    rmSync(root, { recursive: true, force: true });
  });

  test("SIGTERM to the npm process stops the relayer, then anvil and PostgreSQL, and leaves nothing", async (t) => {
    const { npm, pids } = await npmStart();
    npm.child.kill("SIGTERM");
    const { code, ms } = await exitWithin(npm, STOP_MS);
    t.diagnostic(`SIGTERM to npm: stopped in ${ms} ms`);
    assert.equal(code, 0, npm.output());
    assertQuietOrderlyStop(npm.output());
    await assertNothingLeft(pids, { anvil: anvilPort, postgres: pgPort }, npm.output());
  });

  test("the next start on the same DATA_DIR is clean; Ctrl-C stops it the same way, and another signal during the stop says what it waits for", async (t) => {
    const { npm, pids } = await npmStart();
    assert.doesNotMatch(npm.output(), /still running|is taken|already in use/);
    interruptGroup(npm); // the terminal's SIGINT to npm and the relayer; npm relays it once more
    await npm.waitFor(/stopping \(at most/, STOP_MS);
    process.kill(pids.relayer!, "SIGTERM"); // impatient: a second, different signal
    const { code, ms } = await exitWithin(npm, STOP_MS);
    t.diagnostic(`Ctrl-C to npm's group: stopped in ${ms} ms`);
    assert.equal(code, 0, npm.output());
    assertQuietOrderlyStop(npm.output());
    const notes = npm.output().match(/^.*received while stopping.*$/gm) ?? [];
    assert.equal(
      notes.length,
      1,
      `only the SIGTERM is news, not npm's copy of Ctrl-C:\n${npm.output()}`,
    );
    assert.match(notes[0], /^SIGTERM received while stopping: still waiting for stopping \S+/);
    await assertNothingLeft(pids, { anvil: anvilPort, postgres: pgPort }, npm.output());
  });
});
