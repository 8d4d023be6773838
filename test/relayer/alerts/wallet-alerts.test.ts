import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther, toQuantity, Wallet } from "ethers";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";
import type { TestOrg } from "../../support/stack.js";
import { RwaClient } from "../../../relayer/sdk/index.js";
import { FOREIGN_KEYS } from "../webhooks/chain-helpers.js";
import { startReceiver, verifyDelivery, type Receiver } from "../webhooks/receiver.js";
import { BalanceWatch } from "../../../relayer/src/indexer/balance-watch.js";
import { startIndexer, type IndexerHandle } from "../../../relayer/src/indexer/start-indexer.js";
import { eventually } from "../../support/eventually.js";

/**
 * Wallet alerts (docs/api-decisions.md "Wallet alerts") against a real anvil (automine),
 * PostgreSQL, the indexer, the webhook workers and a local receiver: the threshold routes, one
 * event per crossing from the indexer's balance readings, and the balance history those readings
 * make.
 */
describe("wallet alerts (anvil + PostgreSQL + indexer + local receiver)", () => {
  let stack: WriteStack;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let org: TestOrg;
  let other: TestOrg;
  let secret: string;
  let funder: Wallet;
  /** The indexer started again after a test held it back (`stack.stop` stops only the first). */
  let restarted: IndexerHandle | undefined;

  const kinds = () => receiver.accepted("/alerts").map((d) => d.json.event);
  const mine = () => stack.rpc("evm_mine");
  /** Mines blocks until the indexer has read past them. */
  async function settle(blocks = 1): Promise<void> {
    for (let i = 0; i < blocks; i++) await mine();
    await stack.indexer.waitForBlock(await stack.provider.getBlockNumber());
  }
  async function alerts(who: TestOrg = org) {
    const res = await who.api("GET", "/api/enterprise/wallet/alerts");
    assert.equal(res.status, 200, res.text);
    return res.body;
  }
  async function waitState(state: string) {
    const deadline = Date.now() + 15_000;
    while ((await alerts()).state !== state) {
      if (Date.now() > deadline) throw new Error(`state never became ${state}`);
      await settle();
    }
  }

  before(async () => {
    stack = await startWriteStack();
    receiver = await startReceiver();
    workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200, backoffMaxMs: 1_000 });
    org = await stack.registerOrg();
    other = await stack.registerOrg();
    funder = new Wallet(FOREIGN_KEYS[0], stack.provider);
    const res = await org.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/alerts"), events: ["wallet.low_balance", "wallet.funded"] },
    });
    assert.equal(res.status, 200, res.text);
    secret = res.body.secret;
  });

  after(async () => {
    await workers?.stop();
    await restarted?.stop();
    await stack?.stop();
    await receiver?.close();
  });

  it("GET /api/enterprise/wallet/alerts gives the default threshold, 10 issuances at 0.15", async () => {
    const body = await alerts();
    assert.equal(body.lowBalance, "1.5");
    assert.equal(body.lowBalanceWei, parseEther("1.5").toString());
    assert.equal(body.isDefault, true);
    assert.equal(body.walletAddress, org.walletAddress);
  });

  it("PUT /api/enterprise/wallet/alerts refuses a negative, non-numeric or missing threshold with 400", async () => {
    const message =
      'Invalid field: lowBalance (must be a decimal amount from 0 with at most 18 decimals, e.g. "1.5")';
    for (const lowBalance of ["-1", "abc", "1e3", "", "0.1234567890123456789", -2]) {
      const res = await org.api("PUT", "/api/enterprise/wallet/alerts", { body: { lowBalance } });
      assert.equal(res.status, 400, `${String(lowBalance)}: ${res.text}`);
      assert.deepEqual(res.body, { error: message });
    }
    const missing = await org.api("PUT", "/api/enterprise/wallet/alerts", { body: {} });
    assert.deepEqual(
      [missing.status, missing.body],
      [400, { error: "Missing required field: lowBalance" }],
    );
    const readOnly = await org.api<{ apiKey: string }>("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"] },
    });
    const denied = await stack.api("PUT", "/api/enterprise/wallet/alerts", {
      apiKey: readOnly.body.apiKey,
      body: { lowBalance: "1" },
    });
    assert.deepEqual([denied.status, denied.body], [403, { error: "Insufficient scope" }]);
    assert.equal((await alerts()).isDefault, true, "nothing was stored");
  });

  it("the SDK reads and sets the threshold (getWalletAlerts, setWalletAlerts)", async () => {
    const client = new RwaClient({ apiKey: other.apiKey, baseUrl: stack.baseUrl });
    const set = await client.setWalletAlerts({ lowBalance: "2.25" });
    assert.equal(set.lowBalance, "2.25");
    assert.equal(set.lowBalanceWei, parseEther("2.25").toString());
    const read = await client.getWalletAlerts();
    assert.deepEqual([read.lowBalance, read.isDefault], ["2.25", false]);
    await client.setWalletAlerts({ lowBalance: "1.5" });
  });

  it("sends wallet.low_balance once when the balance is below the threshold, and wallet.funded once it is back above", async () => {
    // The faucet's 10 coin are read silently: a first reading at or above the threshold is no
    // crossing (one below it is: the next test).
    await waitState("ok");
    assert.deepEqual(kinds(), []);

    const set = await org.api("PUT", "/api/enterprise/wallet/alerts", {
      body: { lowBalance: "50" },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.lowBalance, "50");
    assert.equal(set.body.isDefault, false);
    assert.equal(set.body.state, "unknown", "the indexer reads the wallet again first");
    await waitState("low");
    await receiver.waitFor(() => kinds().length >= 1, 15_000, "wallet.low_balance");
    // More blocks, and a write that lowers the balance further: no second low_balance.
    const issued = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(issued.status, 200, issued.text);
    await settle(3);

    const low = receiver.accepted("/alerts")[0]!;
    verifyDelivery(low, secret);
    assert.equal(low.json.event, "wallet.low_balance");
    assert.equal(low.json.orgId, org.orgId);
    assert.equal(low.json.txHash, null);
    assert.equal(typeof low.json.blockNumber, "number");
    assert.deepEqual(
      { ...low.json.data, balance: undefined, balanceWei: undefined },
      {
        walletAddress: org.walletAddress,
        threshold: "50",
        thresholdWei: parseEther("50").toString(),
        balance: undefined,
        balanceWei: undefined,
      },
    );
    const atBlock = await stack.provider.getBalance(org.walletAddress, low.json.blockNumber!);
    assert.equal(low.json.data.balanceWei, atBlock.toString(), "the balance at the event's block");

    // A top-up from outside (no contract log, not our write) is seen at its block.
    const topUp = await funder.sendTransaction({
      to: org.walletAddress,
      value: parseEther("45"),
    });
    const receipt = await topUp.wait();
    await stack.indexer.waitForBlock(receipt!.blockNumber);
    await receiver.waitFor(() => kinds().length >= 2, 15_000, "wallet.funded");
    await settle(3);
    assert.deepEqual(kinds(), ["wallet.low_balance", "wallet.funded"]);
    const funded = receiver.accepted("/alerts")[1]!;
    assert.equal(funded.json.blockNumber, receipt!.blockNumber);
    assert.equal(
      funded.json.data.balanceWei,
      (await stack.provider.getBalance(org.walletAddress, receipt!.blockNumber)).toString(),
    );
    assert.equal((await alerts()).state, "ok");

    // The other organization's alerts are its own: its threshold, its wallet.
    const theirs = await alerts(other);
    assert.equal(theirs.lowBalance, "1.5");
    assert.equal(theirs.walletAddress, other.walletAddress);
  });

  it("sends wallet.low_balance once when the wallet's first reading is already below its threshold (a threshold set, then an issuance, before the indexer read it)", async () => {
    // The indexer is held back, so its first reading of the new wallet comes after both the
    // threshold and the write that took the balance under it (the report: a threshold
    // just under a new organization's balance, then an issuance).
    await stack.indexer.stop();
    let indexer: IndexerHandle | undefined;
    try {
      const fresh = await stack.registerOrg();
      const hook = await fresh.api("POST", "/api/enterprise/webhooks", {
        body: { url: receiver.url("/first"), events: ["wallet.low_balance", "wallet.funded"] },
      });
      assert.equal(hook.status, 200, hook.text);
      const set = await fresh.api("PUT", "/api/enterprise/wallet/alerts", {
        body: { lowBalance: "9.95" },
      });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.state, "unknown", "never read yet");
      const issued = await fresh.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(issued.status, 202, issued.text);
      // Mined (stake 0.1 plus gas out of the faucet's 10): the balance is now under 9.95.
      await eventually(async () => {
        const balance = await stack.provider.getBalance(fresh.walletAddress);
        assert.ok(balance < parseEther("9.95"), `balance ${balance}`);
      }, 15_000);
      const minedAt = await stack.provider.getBlockNumber();

      indexer = await startIndexer(stack.ctx, { lockPollMs: 200 });
      await indexer.waitForBlock(minedAt);
      const deadline = Date.now() + 15_000;
      while ((await alerts(fresh)).state !== "low") {
        if (Date.now() > deadline) throw new Error("state never became low");
        await mine();
      }
      const first = () => receiver.accepted("/first");
      await receiver.waitFor(() => first().length >= 1, 15_000, "wallet.low_balance");
      // Later blocks that read the wallet (still below) add no event to the outbox.
      for (let i = 0; i < 3; i++) await mine();
      await indexer.waitForBlock(await stack.provider.getBlockNumber());
      const { rows } = await stack.ctx.database.pool.query<{ kind: string }>(
        "SELECT kind FROM webhook_events WHERE org_id = $1 AND kind LIKE 'wallet.%'",
        [fresh.orgId],
      );
      assert.deepEqual(
        rows.map((r) => r.kind),
        ["wallet.low_balance"],
      );
      assert.deepEqual(
        first().map((d) => d.json.event),
        ["wallet.low_balance"],
      );
      const low = first()[0]!;
      verifyDelivery(low, hook.body.secret);
      assert.equal(low.json.orgId, fresh.orgId);
      assert.equal(low.json.data.thresholdWei, parseEther("9.95").toString());
      const atBlock = await stack.provider.getBalance(fresh.walletAddress, low.json.blockNumber!);
      assert.equal(low.json.data.balanceWei, atBlock.toString(), "the balance at its block");
      assert.ok(atBlock < parseEther("9.95"));
    } finally {
      await indexer?.stop();
      // The later tests use `stack.indexer`: a running one again (stopped in `after`).
      restarted = await startIndexer(stack.ctx, { lockPollMs: 200 });
      stack.indexer = restarted;
    }
  });

  it("a registration's faucet coin is no crossing when the indexer reads its allowlisting block after it committed", async () => {
    // The indexer meets the registration's blocks late whenever it runs behind the head. Replayed
    // here, rolled back: the new wallet as never observed, and the allowlisting block's event.
    const late = await stack.registerOrg();
    const funded = late.devFaucet;
    assert.ok(funded?.funded === true, "the dev faucet funded the wallet");
    const faucet = await stack.provider.getTransactionReceipt(funded.txHash);
    const allowlisting = await stack.provider.getBlock(faucet!.blockNumber - 1);
    assert.equal(await stack.provider.getBalance(late.walletAddress, allowlisting!.number), 0n);
    const client = await stack.ctx.database.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(
        "UPDATE wallet_alerts SET observed_block = NULL, low = false WHERE org_id = $1",
        [late.orgId],
      );
      const header = {
        number: allowlisting!.number,
        hash: allowlisting!.hash!,
        parentHash: allowlisting!.parentHash,
        timestamp: allowlisting!.timestamp,
      };
      await new BalanceWatch(stack.ctx.rpc).onBlock(client, {
        type: "block",
        last: header,
        headers: [header],
        logs: [],
      });
      const { rows } = await client.query<{ observed_block: string | null }>(
        "SELECT observed_block FROM wallet_alerts WHERE org_id = $1",
        [late.orgId],
      );
      assert.deepEqual(rows, [{ observed_block: null }], "not read before the faucet's block");
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });

  it("GET /api/enterprise/wallet/history gives the balances the indexer read, oldest first, within a time window and in pages", async () => {
    const res = await org.api("GET", "/api/enterprise/wallet/history?days=1");
    assert.equal(res.status, 200, res.text);
    const points = res.body.points as Array<{
      at: string;
      blockNumber: number | null;
      balanceWei: string;
    }>;
    const recorded = points.filter((p) => p.blockNumber !== null);
    // The faucet's 10, the issuance (stake + gas), the top-up.
    assert.ok(recorded.length >= 3, JSON.stringify(points));
    for (const p of recorded) {
      const onChain = await stack.provider.getBalance(org.walletAddress, p.blockNumber!);
      assert.equal(p.balanceWei, onChain.toString(), `balance at block ${p.blockNumber}`);
    }
    const blocks = recorded.map((p) => p.blockNumber!);
    assert.deepEqual(
      blocks,
      [...blocks].sort((a, b) => a - b),
      "oldest first",
    );
    assert.equal(points.at(-1)!.balanceWei, res.body.balanceWei, "ends at the current balance");

    const firstPage = await org.api("GET", "/api/enterprise/wallet/history?days=1&limit=1");
    assert.equal(firstPage.body.truncated, true);
    assert.equal(firstPage.body.points[0].blockNumber, blocks.at(-1));
    const older = await org.api(
      "GET",
      `/api/enterprise/wallet/history?days=1&limit=1&cursor=${firstPage.body.nextCursor}`,
    );
    assert.equal(older.status, 200, older.text);
    assert.equal(older.body.points[0].blockNumber, blocks.at(-2));

    const future = new Date(Date.now() + 3_600_000).toISOString();
    const inverted = await org.api(
      "GET",
      `/api/enterprise/wallet/history?from=${future}&to=${new Date().toISOString()}`,
    );
    assert.deepEqual(
      [inverted.status, inverted.body],
      [400, { error: "Invalid query: from must be before to and not in the future" }],
    );
    const empty = await org.api(
      "GET",
      "/api/enterprise/wallet/history?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z",
    );
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body.points, []);
    for (const cursor of ["nope", Buffer.from('{"b":-4}').toString("base64url")]) {
      const bad = await org.api("GET", `/api/enterprise/wallet/history?cursor=${cursor}`);
      assert.deepEqual([bad.status, bad.body], [400, { error: "Invalid cursor" }]);
    }
    const theirs = await other.api("GET", "/api/enterprise/wallet/history?days=1");
    assert.equal(theirs.body.walletAddress, other.walletAddress);
    assert.ok(
      theirs.body.points.every((p: { balanceWei: string }) =>
        ["10000000000000000000"].includes(p.balanceWei),
      ),
      "only the other org's own readings",
    );
  });

  it("a reorg that drops a top-up deletes its reading and restores the low state, so the next top-up is a crossing again", async () => {
    const before = kinds().length;
    const set = await org.api("PUT", "/api/enterprise/wallet/alerts", {
      body: { lowBalance: "1000" },
    });
    assert.equal(set.status, 200, set.text);
    await waitState("low");
    // Straight from the node: ethers' provider caches identical reads for 250 ms, and a reorg
    // changes what the same block number and "latest" answer.
    const head = async () => Number(BigInt(await stack.rpc<string>("eth_blockNumber")));
    const balanceAt = async (block: number | "latest") =>
      BigInt(
        await stack.rpc<string>("eth_getBalance", [
          org.walletAddress,
          block === "latest" ? block : toQuantity(block),
        ]),
      );
    const lowBalanceWei = await balanceAt("latest");
    await receiver.waitFor(() => kinds().length > before, 15_000, "wallet.low_balance");
    const crossings = kinds().length;

    const topUp = await funder.sendTransaction({
      to: org.walletAddress,
      value: parseEther("1100"),
    });
    const dropped = (await topUp.wait())!.blockNumber;
    await stack.indexer.waitForBlock(dropped);
    assert.equal((await alerts()).state, "ok");
    await receiver.waitFor(() => kinds().length > crossings, 15_000, "wallet.funded");

    // The top-up's block and any above it are replaced by empty ones: the coin never came.
    const depth = (await head()) - dropped + 1;
    await stack.rpc("anvil_reorg", [depth, []]);
    await mine();
    await stack.indexer.waitForBlock(await head());
    assert.equal(await balanceAt("latest"), lowBalanceWei);
    const after = await alerts();
    assert.equal(after.state, "low", "the state of the newest reading below the ancestor");
    const history = await org.api("GET", "/api/enterprise/wallet/history?days=1");
    assert.equal(history.status, 200, history.text);
    const recorded = (
      history.body.points as Array<{ blockNumber: number | null; balanceWei: string }>
    ).filter((p) => p.blockNumber !== null);
    for (const p of recorded) {
      assert.equal(
        p.balanceWei,
        (await balanceAt(p.blockNumber!)).toString(),
        `the reading at block ${p.blockNumber} is canonical`,
      );
    }

    // The wallet reads as low again, so a top-up that stays on the chain is a crossing.
    const again = await funder.sendTransaction({
      to: org.walletAddress,
      value: parseEther("1100"),
    });
    const kept = (await again.wait())!.blockNumber;
    await stack.indexer.waitForBlock(kept);
    await receiver.waitFor(() => kinds().length > crossings + 1, 15_000, "a second wallet.funded");
    assert.deepEqual(kinds().slice(before), [
      "wallet.low_balance",
      "wallet.funded",
      "wallet.funded",
    ]);
    const second = receiver.accepted("/alerts").at(-1)!;
    assert.equal(second.json.blockNumber, kept);
    assert.equal((await alerts()).state, "ok");
  });
});
