import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { formatUnits, parseUnits, toQuantity } from "ethers";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "./helpers.js";
import type { TestOrg } from "../../support/stack.js";
import { startReceiver, verifyDelivery, type Receiver } from "../webhooks/receiver.js";

/**
 * The stuck marker (issue 43 item 5, `fee-cap`): a sent write re-priced up to the fee cap it
 * reserved and still not mined says so on `GET /api/v1/transactions/{id}` (`stuck`), sends one
 * `transaction.stuck` and counts once in `rwa_tx_stuck_total`. Real anvil with mining paused and
 * a base-fee spike (the report: the next block's base fee set to 2,000 gwei), PostgreSQL,
 * the engine re-pricing after 300 ms.
 */
describe("stuck writes say so, and speed-up gets them out (anvil base-fee spike + PostgreSQL + engine)", () => {
  let stack: WriteStack;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let org: TestOrg;
  let secret: string;

  before(async () => {
    stack = await startWriteStack({}, { sequencer: { stuckAfterMs: 300 } });
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

  const metric = async (prefix: string) => {
    const text = await stack.ctx.metrics.registry.metrics();
    const line = text.split("\n").find((l) => l.startsWith(prefix));
    return line === undefined ? 0 : Number(line.split(" ").at(-1));
  };
  /** A base fee far above the fee cap write `id` reserved at acceptance (at least 2,000 gwei). */
  const spikeFee = async (id: string) => {
    const { rows } = await stack.ctx.database.pool.query<{ fee_cap: string }>(
      "SELECT fee_cap FROM transactions WHERE id = $1",
      [id],
    );
    const cap = BigInt(rows[0]!.fee_cap);
    const floor = parseUnits("2000", "gwei");
    return cap * 4n > floor ? cap * 4n : floor;
  };
  const stuckCount = () => metric('rwa_tx_stuck_total{reason="fee-cap"}');
  const atCapResends = () => metric('rwa_tx_repricings_total{outcome="at-cap"}');

  it("a write at its fee cap after a base-fee spike is marked stuck once: GET shows it, one transaction.stuck, one count; it clears once mined", async () => {
    const countBefore = await stuckCount();
    const id = await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: { Prefer: "respond-async", "Idempotency-Key": "stuck-1" },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      await waitForStatus(org, id, (b) => b.status === "sent");
      // The spike: blocks too dear for the fee cap the write reserved at acceptance (2,000 gwei,
      // or more when the chain's fees are already higher).
      await stack.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(await spikeFee(id))]);
      await stack.rpc("evm_mine");
      const stuck = await waitForStatus(org, id, (b) => b.stuck !== null, 30_000);
      assert.equal(stuck.status, "sent");
      const marker = stuck.stuck as { since: string; reason: string };
      assert.equal(marker.reason, "fee-cap");
      assert.ok(!Number.isNaN(Date.parse(marker.since)));
      // Still stuck through more re-sends at the cap: no second event, no second count.
      const resends = await atCapResends();
      for (let i = 0; i < 600 && (await atCapResends()) < resends + 2; i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.ok((await atCapResends()) >= resends + 2, "re-sent at its cap twice more");
      const again = await org.api("GET", `/api/v1/transactions/${id}`);
      assert.deepEqual(again.body.stuck, marker, "the first mark stays");

      await receiver.waitFor(
        () => receiver.accepted("/org").some((d) => d.json.data.transactionId === id),
        20_000,
        "transaction.stuck",
      );
      // The fees fall back: the write is mined at its cap.
      await stack.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(parseUnits("1", "gwei"))]);
      await stack.rpc("evm_mine");
      return id;
    });
    const done = await waitForStatus(org, id, (b) => b.status === "confirmed", 30_000);
    assert.equal(done.stuck, null, "a write that ended is no longer stuck");
    assert.equal((await stuckCount()) - countBefore, 1, "counted once");
    const events = receiver.accepted("/org").filter((d) => d.json.data.transactionId === id);
    assert.equal(events.length, 1, "one transaction.stuck");
    const pushed = events[0]!;
    verifyDelivery(pushed, secret);
    assert.equal(pushed.json.event, "transaction.stuck");
    assert.deepEqual(
      { ...pushed.json.data, since: undefined },
      {
        transactionId: id,
        kind: "issue-asset",
        status: "sent",
        reason: "fee-cap",
        idempotencyKey: "stuck-1",
        since: undefined,
      },
    );
    const { rows } = await stack.ctx.database.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_events WHERE kind = 'transaction.stuck' AND payload->'data'->>'transactionId' = $1",
      [id],
    );
    assert.deepEqual(rows, [{ n: 1 }], "one event in the outbox");
  });

  it("speed-up out of a base-fee spike: the cap is raised (the difference reserved) and the write re-sent at once, then mined", async () => {
    // Enough coin for a cap far above a spike; the relayer sees that block first.
    await stack.setBalance(org.walletAddress, "100000");
    const id = await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      try {
        const sent = await waitForStatus(org, id, (b) => b.status === "sent");
        const speed = (body: unknown) =>
          org.api("POST", `/api/v1/transactions/${id}/speed-up`, { body });
        const spike = await spikeFee(id);
        await stack.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(spike)]);
        await stack.rpc("evm_mine");
        await waitForStatus(org, id, (b) => b.stuck !== null, 30_000);
        const dearer = formatUnits(spike * 2n, "gwei");

        for (const bad of ["abc", "-1", "1e3", "0.0000000001"]) {
          const res = await speed({ maxFeePerGasGwei: bad });
          assert.equal(res.status, 400, `${bad}: ${res.text}`);
          assert.match(res.body.error, /^Invalid field: maxFeePerGasGwei /);
        }
        const low = await speed({ maxFeePerGasGwei: "1" });
        assert.equal(low.status, 400, low.text);
        assert.match(low.body.error, /must be above the write's fee cap/);
        const broke = await speed({ maxFeePerGasGwei: "100000000000" });
        assert.equal(broke.status, 400, broke.text);
        assert.match(broke.body.error, /^Insufficient funds: /);
        const config = stack.ctx.config as { maxFeePerGasWei: bigint | undefined };
        config.maxFeePerGasWei = parseUnits("100", "gwei");
        try {
          const over = await speed({ maxFeePerGasGwei: dearer });
          assert.deepEqual(
            [over.status, over.body],
            [400, { error: "Invalid field: maxFeePerGasGwei (above MAX_FEE_PER_GAS_GWEI, 100.0)" }],
          );
        } finally {
          config.maxFeePerGasWei = undefined;
        }

        const before = (sent.attempts as unknown[]).length;
        const raised = await speed({ maxFeePerGasGwei: dearer });
        assert.equal(raised.status, 202, raised.text);
        assert.deepEqual(raised.body, {
          transactionId: id,
          status: "sent",
          maxFeePerGasGwei: dearer,
          maxFeePerGas: (spike * 2n).toString(),
        });
        const resent = await waitForStatus(org, id, (b) =>
          (b.attempts as Array<{ maxFeePerGas: string }>).some(
            (a) => BigInt(a.maxFeePerGas) > spike,
          ),
        );
        assert.ok((resent.attempts as unknown[]).length > before, "a new attempt");
        assert.equal(resent.stuck, null, "no longer marked stuck");
        await stack.rpc("evm_mine");
        return id;
      } finally {
        await stack.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(parseUnits("1", "gwei"))]);
        await stack.rpc("evm_mine");
      }
    });
    const done = await waitForStatus(org, id, (b) => b.status === "confirmed", 30_000);
    const receipt = done.receipt as { hash: string; effectiveGasPrice: string };
    const attempts = done.attempts as Array<{ hash: string; maxFeePerGas: string }>;
    assert.equal(receipt.hash, attempts.at(-1)!.hash, "the sped-up attempt was mined");
    assert.ok(BigInt(receipt.effectiveGasPrice) >= parseUnits("1000", "gwei"), "in a dear block");
    const late = await org.api("POST", `/api/v1/transactions/${id}/speed-up`, { body: {} });
    assert.deepEqual(
      [late.status, late.body],
      [409, { error: "Transaction already confirmed", status: "confirmed" }],
    );
  });
});
