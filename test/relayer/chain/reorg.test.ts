import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Config } from "../../../relayer/src/context.js";
import { ChainProbe, type NodeReceipt } from "../../support/chain-probe.js";
import { eventually } from "../../support/eventually.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";
import type { TxStatus } from "./write-outcomes.js";

/**
 * How the relayer is told to wait for confirmations, and what it exposes when a reorg goes deeper
 * than that. The engine that handles reorgs is being written alongside these tests: adjust these
 * three to the names it settles on.
 */
const CONFIRMATIONS = 2;
const CONFIRMATIONS_CONFIG = { confirmations: CONFIRMATIONS } as Partial<Config>;
const DEEP_REORG_METRIC = "rwa_reorgs_deeper_than_confirmations_total";
const DEEP_REORG_LOG = /reorg/i;

/** How long the engine gets to bring dropped writes back. */
const REMINE_MS = 20_000;

/** One answered issue-asset write. */
interface Issued {
  transactionId: string;
  tokenId: string;
  txHash: string;
}

async function issue(org: TestOrg, name: string): Promise<Issued> {
  const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody({ name }) });
  assert.equal(res.status, 200, res.text);
  const body = res.body as { tokenId: string; txHash: string };
  const transactionId = res.headers.get("x-transaction-id");
  assert.ok(transactionId !== null);
  return { transactionId, tokenId: body.tokenId, txHash: body.txHash };
}

/**
 * Replaces every block from `fromBlock` to the head with empty ones (`anvil_reorg`): their
 * transactions leave the chain and the pool. Interval mining pauses meanwhile, so no block comes
 * between reading the head and dropping it.
 */
async function dropBlocksFrom(chain: ChainProbe, fromBlock: number): Promise<number> {
  await chain.rpc("evm_setIntervalMining", [0]);
  try {
    const depth = (await chain.blockNumber()) - fromBlock + 1;
    await chain.rpc("anvil_reorg", [depth, []]);
    return depth;
  } finally {
    await chain.rpc("evm_setIntervalMining", [1]);
  }
}

/** Mines one empty block and replaces it by another (a reorg of depth 1 that drops nothing). */
async function reorgEmptyHead(chain: ChainProbe): Promise<void> {
  await chain.rpc("evm_setIntervalMining", [0]);
  try {
    await chain.rpc("anvil_mine", ["0x1"]);
    await chain.rpc("anvil_reorg", [1, []]);
  } finally {
    await chain.rpc("evm_setIntervalMining", [1]);
  }
}

/** The sum of every series of a counter in `GET /metrics` (0 when absent). */
async function metricValue(stack: WriteStack, name: string): Promise<number> {
  const res = await stack.api("GET", "/metrics", { adminToken: stack.adminToken });
  assert.equal(res.status, 200, res.text);
  let total = 0;
  for (const line of res.text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match?.[1] === name) total += Number(match[3]);
  }
  return total;
}

/**
 * For each write: its very transaction (same hash) is on chain again and minted its token to
 * the wallet; `GET /api/v1/transactions/{id}` reports it confirmed with that receipt; the asset
 * read and the read model name that transaction and block.
 */
async function assertAllAgree(
  stack: WriteStack,
  chain: ChainProbe,
  org: TestOrg,
  writes: readonly Issued[],
): Promise<void> {
  const wallet = org.walletAddress.toLowerCase();
  for (const w of writes) {
    const receipt: NodeReceipt | null = await chain.receipt(w.txHash);
    assert.ok(receipt !== null, `transaction ${w.txHash} is on chain again`);
    assert.equal(receipt.status, "0x1");
    assert.deepEqual(chain.mintedBy(receipt), [BigInt(w.tokenId)]);
    assert.equal((await chain.ownerOf(w.tokenId))?.toLowerCase(), wallet);

    const tx = (await org.api("GET", `/api/v1/transactions/${w.transactionId}`)).body as TxStatus;
    assert.equal(tx.status, "confirmed");
    assert.equal(tx.receipt?.hash, w.txHash);
    assert.equal(tx.receipt?.blockHash, receipt.blockHash);
    assert.equal(tx.result?.tokenId, w.tokenId);

    const asset = await stack.api("GET", `/api/v1/assets/${w.tokenId}`);
    assert.equal(asset.status, 200, asset.text);
    const body = asset.body as { owner: string; mintTxHash: string; mintBlock: number };
    assert.equal(body.owner.toLowerCase(), wallet);
    assert.equal(body.mintTxHash, w.txHash);
    assert.equal(body.mintBlock, Number(BigInt(receipt.blockNumber)));
  }
  const { rows } = await stack.database.pool.query<{ token_id: string; mint_tx_hash: string }>(
    "SELECT token_id::text, mint_tx_hash FROM assets WHERE lower(minter) = $1 ORDER BY token_id",
    [wallet],
  );
  assert.deepEqual(
    rows.map((r) => [r.token_id, r.mint_tx_hash]),
    [...writes]
      .sort((a, b) => Number(BigInt(a.tokenId) - BigInt(b.tokenId)))
      .map((w) => [w.tokenId, w.txHash]),
    "the read model holds each token once, minted by its write's transaction",
  );
}

describe("reorgs (anvil 1 s blocks, anvil_reorg)", () => {
  let stack: WriteStack, chain: ChainProbe;
  before(async () => {
    stack = await startWriteStack({ blockTime: 1 });
    chain = new ChainProbe(stack.rpcUrl, stack.ctx.contracts.assetToken);
  });
  after(async () => {
    chain?.close();
    await stack?.stop();
  });

  it("3 writes answered confirmed whose blocks a reorg drops are mined again (same hashes); API, chain and read model agree; the wallet's next write goes through", async () => {
    const org = await stack.registerOrg();
    const supplyBefore = await chain.totalSupply();
    const writes = await Promise.all([1, 2, 3].map((i) => issue(org, `Reorged ${i}`)));
    const blocks = await Promise.all(writes.map(async (w) => (await chain.receipt(w.txHash))!));
    const first = Math.min(...blocks.map((r) => Number(BigInt(r.blockNumber))));

    await dropBlocksFrom(chain, first);
    for (const w of writes) assert.equal(await chain.receipt(w.txHash), null, "reorged out");
    assert.equal(await chain.totalSupply(), supplyBefore);

    await eventually(() => assertAllAgree(stack, chain, org, writes), REMINE_MS);
    assert.equal((await chain.totalSupply()) - supplyBefore, 3n);

    const next = await issue(org, "After the reorg");
    assert.equal(
      (await chain.ownerOf(next.tokenId))?.toLowerCase(),
      org.walletAddress.toLowerCase(),
    );
    assert.equal((await chain.totalSupply()) - supplyBefore, 4n);
    assert.deepEqual(await chain.nonces(org.walletAddress), { latest: 4, pending: 4 });
  });
});

describe(`a reorg deeper than the configured confirmations (${CONFIRMATIONS}; anvil 1 s blocks)`, () => {
  let stack: WriteStack, chain: ChainProbe;
  before(async () => {
    stack = await startWriteStack({ blockTime: 1, config: CONFIRMATIONS_CONFIG });
    chain = new ChainProbe(stack.rpcUrl, stack.ctx.contracts.assetToken);
  });
  after(async () => {
    chain?.close();
    await stack?.stop();
  });

  it(`is counted in ${DEEP_REORG_METRIC} and logged, and its write is mined again; a shallow one is not counted`, async () => {
    const org = await stack.registerOrg();
    const counted = await metricValue(stack, DEEP_REORG_METRIC);

    // Within the confirmations: one empty block replaced. Not counted.
    await reorgEmptyHead(chain);
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(await metricValue(stack, DEEP_REORG_METRIC), counted, DEEP_REORG_METRIC);

    const write = await issue(org, "Deep reorg");
    const mined = Number(BigInt((await chain.receipt(write.txHash))!.blockNumber));
    // Answered once it has its confirmations; a relayer that does not wait for them answers at
    // once: either way the reorg below goes deeper than CONFIRMATIONS.
    await eventually(
      async () => assert.ok((await chain.blockNumber()) >= mined + CONFIRMATIONS),
      10_000,
    );
    const depth = await dropBlocksFrom(chain, mined);
    assert.ok(depth > CONFIRMATIONS, `a reorg of ${depth} blocks`);

    await eventually(async () => {
      assert.equal(await metricValue(stack, DEEP_REORG_METRIC), counted + 1, DEEP_REORG_METRIC);
      const logged = stack.logs.some((line) => {
        // The service's logger writes level labels ("warn", "error").
        const entry = JSON.parse(line) as { level: string | number; msg?: string };
        const serious =
          ["warn", "error", "fatal"].includes(String(entry.level)) || Number(entry.level) >= 40;
        return serious && DEEP_REORG_LOG.test(entry.msg ?? "");
      });
      assert.ok(logged, "a warning or error about the deep reorg is logged");
    }, REMINE_MS);
    await eventually(() => assertAllAgree(stack, chain, org, [write]), REMINE_MS);
  });
});
