import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { backupCommand, restoreCommand } from "../../../relayer/src/recovery/recovery-commands.js";
import { readWriteTag } from "../../../relayer/src/engine/write-tag.js";
import { startIndexer } from "../../../relayer/src/indexer/start-indexer.js";
import { recoveryCommandEnv } from "../../support/chain-state.js";
import { startTestStack, type TestOrg, type TestStackOptions } from "../../support/stack.js";
import { startSoftHsm, type SoftHsm } from "../../support/softhsm.js";
import { eventually } from "../../support/eventually.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "../writes/helpers.js";

/** A write the client sent, as the client saw it. */
interface Sent {
  key: string;
  body: Record<string, unknown>;
  async: boolean;
  id: string;
  /** Whether the client saw it final (mined) before the loss. */
  minedBefore: boolean;
}

interface ChainTx {
  hash: string;
  from: string;
  input: string;
  blockNumber: string;
}

/**
 * The recovery drill (issue 44, docs/recovery.md "A drill") on a real anvil and PostgreSQL:
 * under a stream of sync and async writes a backup is taken; more writes go through (mined) and
 * some are accepted but still queued at the moment of loss; everything is stopped and the
 * database is lost; a new service restores the backup into an empty database and starts; every
 * write is retried with its `Idempotency-Key`. No write is mined twice, every write the client
 * saw accepted is mined once or answers 404 and was never on chain, and the read model matches
 * the chain's owners.
 */
describe("recovery drill", { timeout: 600_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-drill-"));
  const stacks: Array<{ stop(): Promise<void> }> = [];
  let hsm: SoftHsm | undefined;
  after(async () => {
    for (const stack of stacks.reverse()) await stack.stop();
    hsm?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  async function write(org: TestOrg, sent: Sent[], name: string, async: boolean): Promise<Sent> {
    const key = `drill-${name}-${randomBytes(4).toString("hex")}`;
    const body = assetBody({ name });
    const res = await org.api("POST", "/api/v1/write/issue-asset", {
      body,
      headers: { "Idempotency-Key": key, ...(async ? { Prefer: "respond-async" } : {}) },
    });
    assert.ok(res.status === 200 || res.status === 202, `${res.status} ${res.text}`);
    const id = res.headers.get("x-transaction-id");
    assert.ok(id !== null);
    const item = { key, body, async, id, minedBefore: res.status === 200 };
    sent.push(item);
    return item;
  }

  /** Every transaction the wallet sent from `fromBlock`, read block by block. */
  async function walletTxs(stack: WriteStack, wallet: string, fromBlock = 0): Promise<ChainTx[]> {
    const head = Number(BigInt(await stack.rpc<string>("eth_blockNumber")));
    const txs: ChainTx[] = [];
    for (let n = fromBlock; n <= head; n++) {
      const block = await stack.rpc<{ transactions: ChainTx[] }>("eth_getBlockByNumber", [
        `0x${n.toString(16)}`,
        true,
      ]);
      for (const tx of block.transactions)
        if (tx.from.toLowerCase() === wallet.toLowerCase()) txs.push(tx);
    }
    return txs;
  }

  it("a lost database restored from a backup agrees with the chain: nothing lost that was mined, nothing mined twice", async () => {
    await drill("local", {});
  });

  it("the same drill with the custodial keys in a PKCS#11 token (SoftHSM2): the backup names each wallet's key object", async () => {
    hsm = startSoftHsm();
    const settings = hsm.initToken("rwa-drill");
    await drill("pkcs11", { signer: { newWallets: "pkcs11", pkcs11: settings } });
  });

  async function drill(name: string, config: TestStackOptions["config"]): Promise<void> {
    const stack = await startWriteStack({ config });
    stacks.push(stack);
    const org = await stack.registerOrg();
    const sent: Sent[] = [];

    // Before the backup, and during it: a stream of sync and async writes.
    for (let i = 0; i < 4; i++) await write(org, sent, `before-${i}`, i % 2 === 1);
    const env = await recoveryCommandEnv(stack, dir);
    const file = path.join(dir, `drill-${name}.backup`);
    const during = Promise.all(
      [0, 1, 2, 3].map((i) => write(org, sent, `during-${i}`, i % 2 === 0)),
    );
    const out: string[] = [];
    const code = await backupCommand({
      argv: ["--out", file],
      env,
      print: (l) => out.push(l),
      printError: (l) => out.push(l),
    });
    assert.equal(code, 0, out.join("\n"));
    await during;

    // After the backup: 30 more writes, sync and async, mined.
    for (let i = 0; i < 30; i++) await write(org, sent, `after-${i}`, i % 3 === 0);
    for (const item of sent.filter((s) => s.async))
      await waitForStatus(org, item.id, (b) => b.status === "confirmed", 30_000);
    for (const item of sent) item.minedBefore = true;
    // And 5 accepted while the engine is stopped: still queued at the moment of loss.
    await stack.ctx.engine.sequencer.stop();
    const queued: Sent[] = [];
    for (let i = 0; i < 5; i++) queued.push(await write(org, sent, `queued-${i}`, true));
    for (const item of queued) item.minedBefore = false;

    // The loss: everything stops (the chain is the network's, it stays), the database is gone.
    await stack.indexer.stop();
    await stack.ctx.engine.stop();
    const [wallet] = (
      await stack.database.pool.query<{
        address: string;
        encrypted_key: string;
        signer_backend: string;
      }>(`SELECT address, encrypted_key, signer_backend FROM wallets WHERE org_id = $1`, [
        org.orgId,
      ])
    ).rows;
    const walletAddress = wallet!.address;
    await stack.ctx.signers.close();

    // A new service on a new, empty database; the backup restored into it; then started.
    const second = await startTestStack({
      logLevel: "warn",
      startChain: () => Promise.resolve({ ...stack.anvil, stop: () => Promise.resolve() }),
      contracts: stack.ctx.contracts,
      config: { ...config, masterKey: stack.ctx.config.masterKey, adminToken: stack.adminToken },
      engine: { sequencer: { checkIntervalMs: 200 } },
    });
    stacks.push(second);
    await stack.testDatabase.drop().catch(() => undefined);
    const restoreOut: string[] = [];
    const restored = await restoreCommand({
      argv: [file, "--force"],
      env: { ...env, DATABASE_URL: second.testDatabase.url },
      print: (l) => restoreOut.push(l),
      printError: (l) => restoreOut.push(l),
    });
    assert.equal(restored, 0, restoreOut.join("\n"));
    assert.match(restoreOut.join("\n"), /sent \d+ transaction\(s\) after this backup/);
    // The backup names the wallet's key: its sealed key, or its object in the token.
    const [restoredWallet] = (
      await second.database.pool.query<{ encrypted_key: string; signer_backend: string }>(
        `SELECT encrypted_key, signer_backend FROM wallets WHERE address = $1`,
        [walletAddress],
      )
    ).rows;
    assert.deepEqual(restoredWallet, {
      encrypted_key: wallet!.encrypted_key,
      signer_backend: wallet!.signer_backend,
    });
    assert.equal(wallet!.signer_backend, name);
    // Until it is reconciled with the chain, the wallet takes no write.
    const early = await second.api("POST", "/api/v1/write/issue-asset", {
      apiKey: org.apiKey,
      body: assetBody({ name: "too early" }),
    });
    assert.equal(early.status, 503, early.text);
    assert.match(early.text, /Wallet is being reconciled with the chain after a database restore/);
    await second.ctx.engine.start();
    const indexer = await startIndexer(second.ctx, { lockPollMs: 200 });
    try {
      const api = (method: "GET" | "POST", url: string, options: Record<string, unknown> = {}) =>
        second.api(method, url, { apiKey: org.apiKey, ...options });

      // Every write retried with its key: a mined one answers its original write, never a
      // second mint; one accepted but never sent is unknown (404) and is done now, once.
      for (const item of sent) {
        const status = await api("GET", `/api/v1/transactions/${item.id}`);
        if (item.minedBefore) assert.equal(status.status, 200, `${item.key}: ${status.text}`);
        else assert.equal(status.status, 404, `${item.key} was never sent: ${status.text}`);
        const retry = await api("POST", "/api/v1/write/issue-asset", {
          body: item.body,
          headers: {
            "Idempotency-Key": item.key,
            ...(item.async ? { Prefer: "respond-async" } : {}),
          },
        });
        assert.ok(retry.status === 200 || retry.status === 202, `${item.key}: ${retry.text}`);
        const retryId = retry.headers.get("x-transaction-id");
        if (item.minedBefore) {
          assert.equal(retryId, item.id, `${item.key}: the original write answers`);
          if (retry.status === 200)
            assert.match(String((retry.body as { tokenId: unknown }).tokenId), /^\d+$/);
        } else {
          assert.notEqual(retryId, item.id);
          item.id = retryId!;
        }
      }
      for (const item of queued)
        await eventually(async () => {
          const res = await api("GET", `/api/v1/transactions/${item.id}`);
          assert.equal((res.body as { status: string }).status, "confirmed", res.text);
        }, 30_000);

      // The chain: one mint per key, every tag a write the database holds.
      const txs = await walletTxs(stack, walletAddress);
      const ids = txs.map((tx) => readWriteTag(tx.input)?.tag.id);
      assert.ok(
        ids.every((id) => id !== undefined),
        "every write's transaction is tagged",
      );
      assert.equal(new Set(ids).size, ids.length, "no write mined twice");
      assert.equal(txs.length, sent.length, "one mint per write the client sent");
      const mined = new Set(ids);
      for (const item of sent) assert.ok(mined.has(item.id), `${item.key} is on chain once`);
      const rows = await second.database.pool.query<{ id: string; state: string }>(
        `SELECT id, state FROM transactions WHERE org_id = $1 AND kind = 'issue-asset'`,
        [org.orgId],
      );
      const byId = new Map(rows.rows.map((r) => [r.id, r.state]));
      for (const id of ids) assert.equal(byId.get(id), "confirmed", `row of ${id}`);

      // The read model: every token on chain has its row, with the chain's owner.
      const total = Number(await stack.token.totalSupply());
      await eventually(async () => {
        const assets = await second.database.pool.query<{ token_id: string; owner: string }>(
          `SELECT token_id::text, owner FROM assets`,
        );
        assert.equal(assets.rows.length, total, "one read-model row per token on chain");
        for (const a of assets.rows)
          assert.equal(
            a.owner.toLowerCase(),
            (await stack.token.ownerOf(BigInt(a.token_id))).toLowerCase(),
          );
      }, 30_000);
    } finally {
      await indexer.stop();
      await second.ctx.engine.stop();
    }
  }
});
