import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readWriteTag } from "../../../relayer/src/engine/write-tag.js";
import { startIndexer } from "../../../relayer/src/indexer/start-indexer.js";
import { backupCommand, restoreCommand } from "../../../relayer/src/recovery/recovery-commands.js";
import { recoveryCommandEnv } from "../../support/chain-state.js";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "../writes/helpers.js";

/**
 * The reconciliation after a restore (engine/chain-reconciler.ts, docs/recovery.md "After a
 * restore"), case by case: a write the backup holds queued but which was sent and mined after it
 * is settled from the chain and never sent again; a batch mined after the backup is rebuilt with
 * its items and answers its key's retry; a retry with another body is 409.
 */
describe("reconciling a restored database with the chain", { timeout: 300_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-reconcile-"));
  let first: WriteStack;
  let second: TestStack;
  let org: TestOrg;
  let stopIndexer: () => Promise<void> = () => Promise.resolve();
  let queuedId: string;
  let batch: { id: string; tokens: string[]; body: Record<string, unknown> };
  let walletAddress: string;

  before(async () => {
    first = await startWriteStack();
    org = await first.registerOrg();
    // Recorded while the engine is stopped: the backup holds it queued.
    await first.ctx.engine.sequencer.stop();
    const queued = await org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "queued at the backup" }),
      headers: { "Idempotency-Key": "reconcile-queued", Prefer: "respond-async" },
    });
    assert.equal(queued.status, 202, queued.text);
    queuedId = queued.headers.get("x-transaction-id")!;

    const env = await recoveryCommandEnv(first, dir);
    const file = path.join(dir, "reconcile.backup");
    const io = { print: () => undefined, printError: () => undefined };
    assert.equal(await backupCommand({ argv: ["--out", file], env, ...io }), 0);

    // After the backup: the queued write is sent and mined; a keyed batch is mined.
    first.ctx.engine.sequencer.start();
    await waitForStatus(org, queuedId, (b) => b.status === "confirmed", 30_000);
    const body = { assets: [assetBody({ name: "batch 1" }), assetBody({ name: "batch 2" })] };
    const made = await org.api("POST", "/api/v1/write/batch-issue", {
      body,
      headers: { "Idempotency-Key": "reconcile-batch" },
    });
    assert.equal(made.status, 200, made.text);
    batch = {
      id: made.headers.get("x-transaction-id")!,
      tokens: (made.body as { results: Array<{ tokenId: string }> }).results.map((r) => r.tokenId),
      body,
    };
    walletAddress = (
      await first.database.pool.query<{ address: string }>(
        `SELECT address FROM wallets WHERE org_id = $1`,
        [org.orgId],
      )
    ).rows[0]!.address;

    // The loss, and a new service on the restored backup.
    await first.indexer.stop();
    await first.ctx.engine.stop();
    second = await startTestStack({
      logLevel: "warn",
      startChain: () => Promise.resolve({ ...first.anvil, stop: () => Promise.resolve() }),
      contracts: first.ctx.contracts,
      config: { masterKey: first.ctx.config.masterKey },
      engine: { sequencer: { checkIntervalMs: 200 } },
    });
    assert.equal(
      await restoreCommand({
        argv: [file, "--force"],
        env: { ...env, DATABASE_URL: second.testDatabase.url },
        ...io,
      }),
      0,
    );
    await second.ctx.engine.start();
    const indexer = await startIndexer(second.ctx, { lockPollMs: 200 });
    stopIndexer = () => indexer.stop();
  });

  after(async () => {
    await stopIndexer();
    await second?.ctx.engine.stop();
    await second?.stop();
    await first?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (method: "GET" | "POST", url: string, options: Record<string, unknown> = {}) =>
    second.api(method, url, { apiKey: org.apiKey, ...options });

  /** The ids the wallet's transactions on chain are tagged with, in order. */
  async function taggedIds(): Promise<string[]> {
    const head = Number(BigInt(await first.rpc<string>("eth_blockNumber")));
    const ids: string[] = [];
    for (let n = 0; n <= head; n++) {
      const block = await first.rpc<{ transactions: Array<{ from: string; input: string }> }>(
        "eth_getBlockByNumber",
        [`0x${n.toString(16)}`, true],
      );
      for (const tx of block.transactions)
        if (tx.from.toLowerCase() === walletAddress.toLowerCase())
          ids.push(readWriteTag(tx.input)?.tag.id ?? "untagged");
    }
    return ids;
  }

  it("settles from the chain a write the backup holds queued, and never sends it again", async () => {
    const row = await second.database.pool.query<{ state: string; result: { tokenId: string } }>(
      `SELECT state, result FROM transactions WHERE id = $1`,
      [queuedId],
    );
    assert.equal(row.rows[0]?.state, "confirmed");
    const owner = await first.token.ownerOf(BigInt(row.rows[0].result.tokenId));
    assert.equal(owner, walletAddress);
    // A new write goes through the sequencer (the wallet's next nonce read again from the chain):
    // the queued write has had every chance to be sent again by then.
    const next = await api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "after the restore" }),
    });
    assert.equal(next.status, 200, next.text);
    const ids = await taggedIds();
    assert.equal(ids.filter((id) => id === queuedId).length, 1, "sent once");
    assert.equal(new Set(ids).size, ids.length, "no write mined twice");
    const retry = await api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "queued at the backup" }),
      headers: { "Idempotency-Key": "reconcile-queued" },
    });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.headers.get("x-transaction-id"), queuedId);
  });

  it("rebuilds a batch mined after the backup: its key's retry gets the original answer", async () => {
    const retry = await api("POST", "/api/v1/write/batch-issue", {
      body: batch.body,
      headers: { "Idempotency-Key": "reconcile-batch" },
    });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.headers.get("x-transaction-id"), batch.id);
    const results = (retry.body as { results: Array<{ tokenId: string; success: boolean }> })
      .results;
    assert.deepEqual(
      results.map((r) => r.tokenId),
      batch.tokens,
    );
    assert.ok(results.every((r) => r.success));
    const status = await api("GET", `/api/v1/transactions/${batch.id}`);
    assert.equal(status.status, 200, status.text);
    assert.equal((status.body as { status: string }).status, "confirmed");
    const recovered = await second.database.pool.query(
      `SELECT 1 FROM recovered_idempotency_keys WHERE transaction_id = $1`,
      [batch.id],
    );
    assert.equal(recovered.rowCount, 1);
  });

  it("answers 409 to a retry of a rebuilt write's key with another body", async () => {
    const other = await api("POST", "/api/v1/write/batch-issue", {
      body: { assets: [assetBody({ name: "something else" })] },
      headers: { "Idempotency-Key": "reconcile-batch" },
    });
    assert.equal(other.status, 409, other.text);
    assert.match(other.text, /Idempotency-Key reused with a different request body/);
  });

  it("rebuilds, at the engine's start, a write whose wallet's nonce on chain is ahead of its rows (no restore)", async () => {
    const made = await api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "row lost" }),
      headers: { "Idempotency-Key": "reconcile-lost-row" },
    });
    assert.equal(made.status, 200, made.text);
    const id = made.headers.get("x-transaction-id")!;
    await second.ctx.engine.stop();
    // The row, its hash and its key lost (as by a database restored without a restore's list).
    await second.database.pool.query(`DELETE FROM transaction_hashes WHERE transaction_id = $1`, [
      id,
    ]);
    await second.database.pool.query(`DELETE FROM idempotency_keys WHERE transaction_id = $1`, [
      id,
    ]);
    await second.database.pool.query(`DELETE FROM transactions WHERE id = $1`, [id]);
    await second.database.pool.query(
      `UPDATE wallets SET next_nonce = next_nonce - 1 WHERE org_id = $1`,
      [org.orgId],
    );
    await second.ctx.engine.start();
    const status = await api("GET", `/api/v1/transactions/${id}`);
    assert.equal(status.status, 200, status.text);
    assert.equal((status.body as { status: string }).status, "confirmed");
    const retry = await api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "row lost" }),
      headers: { "Idempotency-Key": "reconcile-lost-row" },
    });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.headers.get("x-transaction-id"), id);
    const ids = await taggedIds();
    assert.equal(ids.filter((x) => x === id).length, 1, "mined once");
  });

  it("leaves no wallet waiting for its reconciliation", async () => {
    const waiting = await second.database.pool.query(`SELECT 1 FROM chain_reconciliations`);
    assert.equal(waiting.rowCount, 0);
  });
});
