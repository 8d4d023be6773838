import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { JsonRpcProvider, Wallet } from "ethers";
import { startIndexer, type IndexerHandle } from "../../../relayer/src/indexer/index.js";
import { pruneOutbox } from "../../../relayer/src/webhooks/prune-outbox.js";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";
import {
  FOREIGN_KEYS,
  marketAs,
  mintDirect,
  orgSigner,
  testProvider,
  tokenAs,
} from "../webhooks/chain-helpers.js";
import { startReceiver, type Receiver } from "../webhooks/receiver.js";
import { eventually } from "../../support/eventually.js";

const CONFIRMATIONS = 12;

describe("indexer (anvil + PostgreSQL)", () => {
  let stack: TestStack;
  let provider: JsonRpcProvider;
  let indexer: IndexerHandle | undefined;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let org: TestOrg;
  let orgWallet: Wallet;
  let foreign: Wallet;

  const rpc = <T>(method: string, params: unknown[] = []) =>
    provider.send(method, params) as Promise<T>;
  const head = async () => Number(BigInt(await rpc<string>("eth_blockNumber")));
  const mine = (blocks: number) => rpc("anvil_mine", [`0x${blocks.toString(16)}`]);
  // Rows are untyped, like response bodies; `any` keeps the assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const q = async <T = any>(text: string, values: unknown[] = []) =>
    (await stack.database.pool.query(text, values)).rows as T[];
  /** Every indexer started and not yet stopped: `after` stops those a failed test left running. */
  const live = new Set<IndexerHandle>();
  const start = async (options = {}): Promise<IndexerHandle> => {
    const handle = await startIndexer(stack.ctx, {
      pollIntervalMs: 50,
      lockPollMs: 200,
      confirmations: CONFIRMATIONS,
      ...options,
    });
    const tracked: IndexerHandle = {
      ...handle,
      stop: () => {
        live.delete(tracked);
        return handle.stop();
      },
    };
    live.add(tracked);
    return tracked;
  };
  const synced = async () => indexer!.waitForBlock(await head(), 20_000);

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    provider = testProvider(stack.rpcUrl);
    receiver = await startReceiver();
    org = await stack.registerOrg();
    const hook = await org.api("POST", "/api/enterprise/webhooks", {
      body: {
        url: receiver.url("/org"),
        events: [
          "asset.issued",
          "asset.transferred",
          "asset.listed",
          "asset.delisted",
          "asset.sold",
        ],
      },
    });
    assert.equal(hook.status, 200, hook.text);
    orgWallet = await orgSigner(stack, org.orgId, provider);
    foreign = new Wallet(FOREIGN_KEYS[2], provider);
    indexer = await start();
    workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200 });
  });

  after(async () => {
    await workers?.stop();
    for (const handle of [...live]) await handle.stop().catch(() => undefined);
    await receiver?.close();
    provider?.destroy();
    await stack?.stop();
  });

  it("indexes the 29 default asset types registered at deployment", async () => {
    await synced();
    const res = await stack.api("GET", "/api/v1/asset-types");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 29);
    assert.ok(res.body.data.some((t: { name: string }) => t.name === "Real Estate"));
    const status = await stack.api("GET", "/api/v1/status");
    assert.equal(status.body.indexedBlock, await head());
    assert.equal(status.body.lag, 0);
    assert.equal(status.body.status, "ok");
  });

  it("a shallow reorg replaces the vanished mint and emits nothing for it", async () => {
    const snapshot = await rpc<string>("evm_snapshot");
    const vanished = await mintDirect(stack, orgWallet, 0xaa);
    await synced();
    const [row] = await q(`SELECT token_id::text, owner FROM assets WHERE mint_tx_hash = $1`, [
      vanished.txHash,
    ]);
    assert.ok(row, "mint indexed before the reorg");
    assert.equal(
      (await q(`SELECT 1 FROM webhook_events WHERE tx_hash = $1`, [vanished.txHash])).length,
      1,
      "pending event",
    );

    await rpc("evm_revert", [snapshot]);
    const replacement = await mintDirect(stack, foreign, 0xbb); // same token id, other owner, other block
    await mine(2);
    await synced();
    const rows = await q(`SELECT owner, mint_tx_hash FROM assets WHERE token_id = $1`, [
      row.token_id,
    ]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].owner, foreign.address.toLowerCase());
    assert.equal(rows[0].mint_tx_hash, replacement.txHash);
    assert.equal(
      (await q(`SELECT 1 FROM chain_logs WHERE tx_hash = $1`, [vanished.txHash])).length,
      0,
    );
    assert.equal(
      (await q(`SELECT 1 FROM transfers WHERE tx_hash = $1`, [vanished.txHash])).length,
      0,
    );
    assert.equal(
      (await q(`SELECT 1 FROM webhook_events WHERE tx_hash = $1`, [vanished.txHash])).length,
      0,
    );
    await mine(CONFIRMATIONS + 1);
    await synced();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(receiver.received.filter((d) => d.json.txHash === vanished.txHash).length, 0);
  });

  it("a deep reorg rolls back a listing of an older token and restores its owner", async () => {
    const kept = await mintDirect(stack, orgWallet, 0x11);
    await mine(CONFIRMATIONS);
    await synced();
    const [{ token_id: tokenId }] = await q(
      `SELECT token_id::text FROM assets WHERE mint_tx_hash = $1`,
      [kept.txHash],
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(
      receiver.received.filter((d) => d.json.txHash === kept.txHash).length,
      1,
      "confirmed mint delivered once",
    );

    const snapshot = await rpc<string>("evm_snapshot");
    const market = marketAs(stack, orgWallet);
    await (
      await tokenAs(stack, orgWallet).getFunction("approve")(
        stack.ctx.contracts.marketplace,
        tokenId,
      )
    ).wait();
    const listTx = await (await market.getFunction("list")(tokenId, 10n ** 17n, 30n)).wait();
    await (await market.getFunction("updatePrice")(1n, 2n * 10n ** 17n)).wait();
    const extra = await mintDirect(stack, orgWallet, 0x12);
    await mine(4);
    await synced();
    const [listing] = await q(
      `SELECT listing_id::text, price_wei::text FROM listings WHERE create_tx_hash = $1`,
      [listTx!.hash],
    );
    assert.equal(listing.price_wei, "200000000000000000");
    assert.equal(
      (await q(`SELECT owner FROM assets WHERE token_id = $1`, [tokenId]))[0].owner,
      stack.ctx.contracts.marketplace.toLowerCase(),
    );

    await rpc("evm_revert", [snapshot]);
    await mine(12); // a longer fork without those transactions
    await synced();
    assert.equal(
      (await q(`SELECT 1 FROM listings WHERE create_tx_hash = $1`, [listTx!.hash])).length,
      0,
    );
    assert.equal(
      (await q(`SELECT owner FROM assets WHERE token_id = $1`, [tokenId]))[0].owner,
      org.walletAddress.toLowerCase(),
    );
    assert.equal(
      (await q(`SELECT 1 FROM assets WHERE mint_tx_hash = $1`, [extra.txHash])).length,
      0,
    );
    const res = await stack.api("GET", `/api/v1/assets/${tokenId}`);
    assert.equal(res.body.listing, null);
    await mine(CONFIRMATIONS);
    await synced();
    await new Promise((r) => setTimeout(r, 300));
    for (const hash of [listTx!.hash, extra.txHash]) {
      assert.equal(receiver.received.filter((d) => d.json.txHash === hash).length, 0);
    }
  });

  it("after a restart it catches up in ranges and neither loses nor duplicates events", async () => {
    await synced();
    const before = receiver.received.length;
    await indexer!.stop();
    indexer = undefined;
    const txs: string[] = [];
    for (let i = 0; i < 3; i++) {
      txs.push((await mintDirect(stack, orgWallet, 0x30 + i)).txHash);
      await mine(7);
    }
    indexer = await start({ rangeSize: 5, tipDistance: 2 });
    await synced();
    await mine(CONFIRMATIONS);
    await synced();
    await receiver.waitFor(
      () => txs.every((tx) => receiver.received.some((d) => d.json.txHash === tx)),
      20_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    const fresh = receiver.received.slice(before);
    assert.equal(fresh.length, 3);
    const ids = fresh.map((d) => d.headers["webhook-id"]);
    assert.equal(new Set(ids).size, 3);
    assert.equal(
      (await q(`SELECT count(*)::int AS n FROM assets WHERE mint_tx_hash = ANY($1)`, [txs]))[0].n,
      3,
    );
  });

  it("releases a block's events once CONFIRMATIONS blocks stand above it, not a block sooner", async () => {
    await synced();
    const minted = await mintDirect(stack, orgWallet, 0x50);
    const status = async () =>
      (await q(`SELECT status FROM webhook_events WHERE tx_hash = $1`, [minted.txHash])).map(
        (r: { status: string }) => r.status,
      );
    await synced();
    assert.deepEqual(await status(), ["pending"], "no block above it yet");
    await mine(CONFIRMATIONS - 1);
    await synced();
    assert.deepEqual(await status(), ["pending"], `${CONFIRMATIONS - 1} blocks above it`);
    await mine(1);
    await synced();
    assert.deepEqual(await status(), ["released"], `${CONFIRMATIONS} blocks above it`);
  });

  it("with CONFIRMATIONS 0 releases a block's events as soon as it is indexed", async () => {
    await indexer!.stop();
    indexer = await start({ confirmations: 0 });
    try {
      const minted = await mintDirect(stack, orgWallet, 0x51);
      await synced();
      assert.equal(await head(), minted.blockNumber, "no block mined above it");
      assert.deepEqual(
        (await q(`SELECT status FROM webhook_events WHERE tx_hash = $1`, [minted.txHash])).map(
          (r: { status: string }) => r.status,
        ),
        ["released"],
      );
    } finally {
      await indexer.stop();
      indexer = await start();
    }
  });

  it("only one process indexes; another takes over within seconds when it stops", async () => {
    const first = indexer!;
    const second = await start();
    // One of the two leads: usually the one already running, but on a loaded machine the
    // newcomer may take the lock while the other waits between its tries (every 200 ms here).
    await eventually(
      () => Promise.resolve(assert.ok(first.isLeader() || second.isLeader(), "one of them leads")),
      5_000,
    );
    for (let i = 0; i < 5; i++) {
      assert.equal(first.isLeader() && second.isLeader(), false, "never both");
      await new Promise((r) => setTimeout(r, 100));
    }
    const [leader, standby] = first.isLeader() ? [first, second] : [second, first];
    assert.equal(standby.isLeader(), false);
    await leader.stop();
    indexer = standby;
    const minted = await mintDirect(stack, orgWallet, 0x40);
    await standby.waitForBlock(minted.blockNumber, 30_000);
    assert.equal(standby.isLeader(), true);
    assert.equal(
      (await q(`SELECT 1 FROM assets WHERE mint_tx_hash = $1`, [minted.txHash])).length,
      1,
    );
  });

  it("while the block watcher follows the chain, an idle indexer waits for its heads instead of polling", async () => {
    // This suite's indexer polls every 50 ms while no watcher runs: 20 head reads and 20 header
    // reads a second. With the process's watcher following, it reads the node once per new head
    // and once per second without one.
    const blocks = stack.ctx.engine.blocks;
    blocks.start();
    try {
      await eventually(
        () => Promise.resolve(assert.ok(blocks.following, "the watcher follows")),
        5_000,
      );
      await synced();
      const sent = () => new Map(stack.ctx.rpc.sentByMethod);
      const before = sent();
      await new Promise((r) => setTimeout(r, 2_000));
      const after = sent();
      const delta = (method: string) => (after.get(method) ?? 0) - (before.get(method) ?? 0);
      // No block is mined meanwhile (automine): the indexer's own look at the tip (a header
      // read, at most one per RECHECK_MS) is all it asks; the watcher alone polls the head.
      assert.ok(
        delta("eth_getBlockByNumber") <= 4,
        `header reads in 2 s idle: ${delta("eth_getBlockByNumber")}`,
      );
      assert.ok(delta("eth_blockNumber") > 0, "the watcher polls the head");
      // A new block wakes it: indexed without waiting for a poll of its own.
      const minted = await mintDirect(stack, orgWallet, 0x41);
      await indexer!.waitForBlock(minted.blockNumber, 10_000);
      assert.equal(
        (await q(`SELECT 1 FROM assets WHERE mint_tx_hash = $1`, [minted.txHash])).length,
        1,
      );
    } finally {
      blocks.stop();
    }
  });

  it("prunes released outbox events older than the retention, keeping recent ones", async () => {
    await q(
      `INSERT INTO webhook_events (id, org_id, kind, payload, status, released_at, created_at)
       VALUES ('evt_old', $1, 'asset.issued', '{}', 'released', now() - interval '31 days', now() - interval '31 days'),
              ('evt_new', $1, 'asset.issued', '{}', 'released', now(), now())`,
      [org.orgId],
    );
    assert.ok((await pruneOutbox(stack.database, 30)) >= 1);
    const left = await q(`SELECT id FROM webhook_events WHERE id IN ('evt_old', 'evt_new')`);
    assert.deepEqual(
      left.map((r: { id: string }) => r.id),
      ["evt_new"],
    );
  });
});
