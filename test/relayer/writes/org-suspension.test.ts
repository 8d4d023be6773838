import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { IllegalTransitionError } from "../../../relayer/src/engine/tx-lifecycle.js";
import { WritesHeldError } from "../../../relayer/src/engine/leased-tx-writes.js";
import { assertError } from "../../support/assert-error.js";
import { eventually } from "../../support/eventually.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "./helpers.js";

/**
 * A suspended organization's queued writes are held, not lost or failed: the engine sends none
 * of them (no nonce taken) while a write it had already sent is still followed to the end;
 * after resumption every held write is mined. Its webhooks keep their backlog.
 */
describe("suspending an organization holds its queued writes until it is resumed", () => {
  let stack: WriteStack;
  let org: TestOrg;

  before(async () => {
    // One write in flight per org, so that the later ones wait in the queue.
    stack = await startWriteStack({}, { sequencer: { maxInFlightPerOrg: 1 } });
    org = await stack.registerOrg();
  });
  after(() => stack?.stop());

  const patch = (orgId: string, body: Record<string, unknown>) =>
    stack.api("PATCH", `/api/enterprise/orgs/${orgId}`, { adminToken: stack.adminToken, body });
  const rowsOf = async (ids: readonly string[]) =>
    (
      await stack.database.pool.query<{ id: string; state: string; nonce: string | null }>(
        "SELECT id, state, nonce::text FROM transactions WHERE id = ANY($1::text[]) ORDER BY created_at",
        [ids],
      )
    ).rows;
  const leaseOwner = async (walletAddress: string) =>
    (
      await stack.database.pool.query<{ lease_owner: string | null }>(
        "SELECT lease_owner FROM wallets WHERE address = $1",
        [walletAddress],
      )
    ).rows[0]!.lease_owner;

  it("queued writes are not sent while suspended, its keys get 403, and all are mined after resume", async () => {
    const hook = await org.api("POST", "/api/enterprise/webhooks", {
      body: { url: "http://127.0.0.1:9/hook", events: ["asset.issued"] },
    });
    assert.equal(hook.status, 200, hook.text);
    const nonceBefore = await stack.provider.getTransactionCount(org.walletAddress);

    const ids: string[] = [];
    await stack.withoutAutomine(async () => {
      for (let i = 0; i < 4; i++) {
        const res = await org.api("POST", "/api/v1/write/issue-asset", {
          body: assetBody({ name: `Held ${i}` }),
          headers: { Prefer: "respond-async" },
        });
        assert.equal(res.status, 202, res.text);
        ids.push(String(res.body.transactionId));
      }
      // The first is in the node's pool; the cap keeps the other three queued.
      await waitForStatus(org, ids[0]!, (b) => b.status === "sent");
      const suspend = await patch(org.orgId, { suspended: true });
      assert.equal(suspend.status, 200, suspend.text);
    });
    await stack.rpc("evm_mine");

    // The write sent before the suspension is still followed to the end.
    await eventually(async () => {
      const [first] = await rowsOf([ids[0]!]);
      assert.equal(first?.state, "confirmed");
    }, 15_000);
    // Its slot is free, yet the sequencer, having looked at the wallet again, found nothing it
    // may send and let the wallet go.
    await eventually(async () => assert.equal(await leaseOwner(org.walletAddress), null), 10_000);
    const held = await rowsOf(ids.slice(1));
    assert.deepEqual(
      held.map((r) => [r.state, r.nonce]),
      [
        ["queued", null],
        ["queued", null],
        ["queued", null],
      ],
    );
    assert.equal(await stack.provider.getTransactionCount(org.walletAddress), nonceBefore + 1);
    assertError(
      await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() }),
      403,
      "Organization suspended",
    );
    assertError(
      await org.api("GET", `/api/v1/transactions/${ids[1]!}`),
      403,
      "Organization suspended",
    );

    const resume = await patch(org.orgId, { suspended: false });
    assert.equal(resume.status, 200, resume.text);
    for (const id of ids.slice(1))
      await waitForStatus(org, id, (b) => b.status === "confirmed", 20_000);
    assert.equal(await stack.provider.getTransactionCount(org.walletAddress), nonceBefore + 4);

    // The webhook is still there, enabled, and its deliveries were not dropped.
    const hooks = await org.api("GET", "/api/enterprise/webhooks");
    const listed = (hooks.body.webhooks as Array<Record<string, unknown>>).find(
      (w) => w.webhookId === hook.body.webhookId,
    );
    assert.equal(listed?.enabled, true, hooks.text);
    await eventually(async () => {
      const { rows } = await stack.database.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1",
        [hook.body.webhookId],
      );
      assert.equal(rows[0]!.n, 4);
    }, 15_000);
  });

  it("a round suspended while it signs lets the wallet go at once and sends nothing", async () => {
    const late = await stack.registerOrg();
    // The wallet's next signature waits at a gate: the round has loaded the queued write, and
    // the suspension lands before it records its nonce.
    let reached!: () => void;
    const signing = new Promise<void>((resolve) => (reached = resolve));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const signers = stack.ctx.signers;
    const original = signers.withDigestSigner.bind(signers);
    signers.withDigestSigner = (wallet, work) =>
      original(wallet, (signDigest) =>
        work(async (digest) => {
          if (wallet.address === late.walletAddress) {
            reached();
            await gate;
          }
          return signDigest(digest);
        }),
      );
    try {
      const res = await late.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Signed during the suspension" }),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const id = String(res.body.transactionId);
      await signing;
      assert.equal((await patch(late.orgId, { suspended: true })).status, 200);
      open();
      // Not kept until the lease runs out (15 s): the next look finds nothing it may send, and
      // the lease goes back once the wallet has been idle for `idleReleaseMs` (3 s).
      await eventually(
        async () => assert.equal(await leaseOwner(late.walletAddress), null),
        10_000,
      );
      assert.deepEqual(
        (await rowsOf([id])).map((r) => [r.state, r.nonce]),
        [["queued", null]],
      );
      assert.equal(await stack.provider.getTransactionCount(late.walletAddress), 0);

      assert.equal((await patch(late.orgId, { suspended: false })).status, 200);
      await waitForStatus(late, id, (b) => b.status === "confirmed", 20_000);
    } finally {
      open();
      signers.withDigestSigner = original;
    }
  });

  it("a sending round begun before the suspension cannot record its nonces after it", async () => {
    const probe = await stack.registerOrg();
    const { rows } = await stack.database.pool.query<{ id: string }>(
      "UPDATE wallets SET lease_owner = 'probe', lease_until = now() + interval '1 minute' WHERE org_id = $1 RETURNING id",
      [probe.orgId],
    );
    const walletId = rows[0]!.id;
    const writes = stack.ctx.engine.store.leasedBy("probe");
    const entry = {
      id: "tx_doesnotexist",
      nonce: 0,
      attempt: { hash: "0x00", nonce: 0 } as never,
    };
    try {
      assert.equal((await patch(probe.orgId, { suspended: true })).status, 200);
      await assert.rejects(writes.markSent(walletId, 1, [entry]), WritesHeldError);
      assert.equal((await patch(probe.orgId, { suspended: false })).status, 200);
      // Not suspended: the lease holds, and only the unknown row is refused.
      await assert.rejects(writes.markSent(walletId, 1, [entry]), IllegalTransitionError);
    } finally {
      await stack.database.pool.query(
        "UPDATE wallets SET lease_owner = NULL, lease_until = NULL WHERE id = $1",
        [walletId],
      );
    }
  });
});
