import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseUnits, toQuantity } from "ethers";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "./helpers.js";
import type { TestOrg } from "../../support/stack.js";
import { startReceiver, verifyDelivery, type Receiver } from "../webhooks/receiver.js";

/**
 * The stuck marker's block reasons (issue 43 item 5): a sent write left out of
 * `STUCK_AFTER_BLOCKS` blocks is marked `not-mined` when its own nonce is the wallet's next, and
 * `nonce-gap` when a lower nonce of the wallet holds it. Each is marked once (GET shows it, one
 * `transaction.stuck`, one count in `rwa_tx_stuck_total{reason}`). Real anvil with blocks mined
 * one by one under a base fee far above both writes' fee caps, PostgreSQL, the engine with
 * `stuckAfterBlocks: 3` and re-pricing pushed out of the way (`stuckAfterMs` 10 minutes), so
 * the fee-cap reason cannot come first.
 */
describe("stuck for want of blocks: not-mined and nonce-gap (anvil + PostgreSQL + engine)", () => {
  let stack: WriteStack;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let org: TestOrg;
  let secret: string;

  before(async () => {
    stack = await startWriteStack(
      {},
      { sequencer: { stuckAfterMs: 600_000, stuckAfterBlocks: 3 } },
    );
    receiver = await startReceiver();
    workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200, backoffMaxMs: 1_000 });
    org = await stack.registerOrg();
    const hook = await org.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/org"), events: ["transaction.stuck"] },
    });
    assert.equal(hook.status, 200, hook.text);
    secret = hook.body.secret;
  });

  after(async () => {
    await workers?.stop();
    await stack?.stop();
    await receiver?.close();
  });

  const metric = async (reason: string) => {
    const text = await stack.ctx.metrics.registry.metrics();
    const prefix = `rwa_tx_stuck_total{reason="${reason}"}`;
    const line = text.split("\n").find((l) => l.startsWith(prefix));
    return line === undefined ? 0 : Number(line.split(" ").at(-1));
  };
  const stuckOf = async (id: string) =>
    (await org.api("GET", `/api/v1/transactions/${id}`)).body.stuck as {
      since: string;
      reason: string;
    } | null;
  const eventsOf = (id: string) =>
    receiver.accepted("/org").filter((d) => d.json.data.transactionId === id);

  it("two sent writes left out of 3 blocks: the next nonce's is not-mined, the one behind it nonce-gap; each once; both clear once mined", async () => {
    const before = { notMined: await metric("not-mined"), gap: await metric("nonce-gap") };
    const [first, second] = await stack.withoutAutomine(async () => {
      const ids: string[] = [];
      for (const key of ["blocks-1", "blocks-2"]) {
        const res = await org.api("POST", "/api/v1/write/issue-asset", {
          body: assetBody(),
          headers: { Prefer: "respond-async", "Idempotency-Key": key },
        });
        assert.equal(res.status, 202, res.text);
        ids.push(res.body.transactionId as string);
      }
      const sent = [];
      for (const id of ids) sent.push(await waitForStatus(org, id, (b) => b.status === "sent"));
      assert.equal(sent[1]!.nonce, (sent[0]!.nonce as number) + 1, "consecutive nonces");
      // Blocks too dear for both writes' caps (ten times the higher one, at least 2,000 gwei):
      // the base fee falls 12.5% a block, so the next 10 blocks leave both out.
      const { rows } = await stack.ctx.database.pool.query<{ fee_cap: string }>(
        "SELECT fee_cap FROM transactions WHERE id = ANY($1)",
        [ids],
      );
      const cap = rows.map((r) => BigInt(r.fee_cap)).reduce((a, b) => (a > b ? a : b));
      const floor = parseUnits("2000", "gwei");
      await stack.rpc("anvil_setNextBlockBaseFeePerGas", [
        toQuantity(cap * 10n > floor ? cap * 10n : floor),
      ]);
      for (let block = 0; block < 10; block++) {
        await stack.rpc("evm_mine");
        await new Promise((r) => setTimeout(r, 1_000));
        const marks = await Promise.all(ids.map(stuckOf));
        if (marks.every((m) => m !== null)) break;
      }
      const [a, b] = await Promise.all(ids.map(stuckOf));
      assert.equal(a?.reason, "not-mined", "the wallet's next nonce: its own write is left out");
      assert.equal(b?.reason, "nonce-gap", "held by the lower nonce");
      // More blocks leave them out: no second mark, event or count.
      await stack.rpc("evm_mine");
      await stack.rpc("evm_mine");
      await new Promise((r) => setTimeout(r, 2_000));
      assert.deepEqual(await Promise.all(ids.map(stuckOf)), [a, b], "the first marks stay");
      for (const id of ids)
        assert.equal(
          (await org.api("GET", `/api/v1/transactions/${id}`)).body.status,
          "sent",
          "still out",
        );
      await receiver.waitFor(
        () => ids.every((id) => eventsOf(id).length > 0),
        20_000,
        "transaction.stuck for both",
      );
      // The fees fall back: both are mined.
      await stack.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(parseUnits("1", "gwei"))]);
      await stack.rpc("evm_mine");
      return ids as [string, string];
    });
    for (const id of [first, second]) {
      const done = await waitForStatus(org, id, (b) => b.status === "confirmed", 30_000);
      assert.equal(done.stuck, null, "a write that ended is no longer stuck");
    }
    assert.equal((await metric("not-mined")) - before.notMined, 1, "not-mined counted once");
    assert.equal((await metric("nonce-gap")) - before.gap, 1, "nonce-gap counted once");
    for (const [id, reason, key] of [
      [first, "not-mined", "blocks-1"],
      [second, "nonce-gap", "blocks-2"],
    ] as const) {
      const events = eventsOf(id);
      assert.equal(events.length, 1, `one transaction.stuck for ${reason}`);
      verifyDelivery(events[0]!, secret);
      assert.deepEqual(
        { ...events[0]!.json.data, since: undefined },
        {
          transactionId: id,
          kind: "issue-asset",
          status: "sent",
          reason,
          idempotencyKey: key,
          since: undefined,
        },
      );
    }
  });
});
