import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Wallet } from "ethers";
import { startWebhookWorkers } from "../../../relayer/src/webhooks/index.js";
import { startWriteStack, type WriteStack } from "../writes/helpers.js";
import { startReceiver, verifyDelivery } from "../webhooks/receiver.js";
import {
  accept,
  addPerson,
  email,
  registerWithOwner,
  signIn,
  type SignedIn,
} from "./people-helpers.js";

/**
 * Maker-checker approval (docs/policy.md "Approvals") against a real anvil and PostgreSQL: a
 * transfer an approval rule holds answers 202 `pending_approval` with nothing recorded or signed;
 * approved (by one person, or by two different ones), it is recorded under the same id and the
 * token arrives; rejected, expired, asked for by the approver themselves, or approved by someone
 * removed since, it is not.
 */
describe("approvals (anvil + PostgreSQL)", () => {
  let stack: WriteStack;
  let org: { orgId: string; apiKey: string; walletAddress: string };
  let owner: SignedIn;
  let approver: SignedIn;
  let approver2: SignedIn;
  let tokens: string[];
  const stranger = Wallet.createRandom().address;
  const treasury = Wallet.createRandom().address;

  const keyApi = (method: string, path: string, body?: unknown) =>
    stack.api(method, path, { apiKey: org.apiKey, ...(body === undefined ? {} : { body }) });
  async function setRules(approvals: unknown[], allowlist: unknown[] = []) {
    const res = await owner.api("PUT", "/api/enterprise/policy", {
      body: {
        destinations: { mode: "any", allowlist },
        limits: { transfersPerDay: null },
        approvals,
      },
    });
    assert.equal(res.status, 200, res.text);
  }
  async function held(tokenId: string, to = stranger): Promise<string> {
    const res = await keyApi("POST", "/api/v1/write/transfer", { tokenId, toAddress: to });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.status, "pending_approval");
    return res.body.transactionId as string;
  }
  async function recorded(id: string): Promise<boolean> {
    const { rows } = await stack.database.pool.query(`SELECT 1 FROM transactions WHERE id = $1`, [
      id,
    ]);
    return rows.length === 1;
  }
  async function waitConfirmed(id: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await keyApi("GET", `/api/v1/transactions/${id}`);
      if (res.body.status === "confirmed") return;
      assert.ok(Date.now() < deadline, `not confirmed: ${res.text}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  before(async () => {
    stack = await startWriteStack();
    const ownerEmail = email("owner");
    const registered = await registerWithOwner(stack, ownerEmail);
    const wallet = await stack.api("GET", "/api/enterprise/wallet", { apiKey: registered.apiKey });
    org = { ...registered, walletAddress: wallet.body.walletAddress };
    owner = await signIn(stack, await accept(stack, registered.invitationUrl, ownerEmail));
    approver = await addPerson(stack, owner, "approver");
    approver2 = await addPerson(stack, owner, "approver");
    const issued = await keyApi("POST", "/api/v1/write/batch-issue", {
      assets: Array.from({ length: 8 }, (_, i) => ({
        assetType: "Bond",
        name: `B${i}`,
        description: "held",
      })),
    });
    assert.equal(issued.status, 200, issued.text);
    tokens = (issued.body.results as Array<{ tokenId: string }>).map((r) => String(r.tokenId));
    await setRules([{ kinds: ["transfer"], when: "always", approvers: 1 }]);
  });
  after(() => stack?.stop());

  it("a held transfer answers 202 pending_approval with nothing recorded; a key cannot approve; an approver's approval sends it and the token arrives", async () => {
    const id = await held(tokens[0]!);
    assert.equal(await recorded(id), false);
    const shown = await keyApi("GET", `/api/v1/transactions/${id}`);
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.body.status, "pending_approval");
    assert.equal(shown.body.approvalsRequired, 1);
    assert.deepEqual(shown.body.approvals, []);
    const byKey = await keyApi("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(byKey.status, 403, byKey.text);
    assert.equal(await stack.token.ownerOf(tokens[0]!), org.walletAddress, "nothing signed");

    const approved = await approver.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, "approved");
    assert.deepEqual(
      approved.body.approvals.map((a: { email: string }) => a.email),
      [approver.email],
    );
    await waitConfirmed(id);
    assert.equal(await stack.token.ownerOf(tokens[0]!), stranger);
    const again = await approver2.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error, "Transaction is approved");
  });

  it("a rejected write ends rejected, and approving it then answers 409 with its state", async () => {
    const id = await held(tokens[1]!);
    const rejected = await approver.api("POST", `/api/v1/transactions/${id}/reject`);
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.status, "rejected");
    const late = await approver2.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(late.status, 409, late.text);
    assert.equal(late.body.error, "Transaction is rejected");
    assert.equal((await keyApi("GET", `/api/v1/transactions/${id}`)).body.status, "rejected");
    assert.equal(await recorded(id), false);
    assert.equal(await stack.token.ownerOf(tokens[1]!), org.walletAddress);
  });

  it("the person who requested a write from the console cannot approve it; another can", async () => {
    const res = await owner.api("POST", "/api/v1/write/transfer", {
      body: { tokenId: tokens[2], toAddress: stranger },
    });
    assert.equal(res.status, 202, res.text);
    const id = res.body.transactionId as string;
    const self = await owner.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(self.status, 403, self.text);
    assert.equal(self.body.error, "The person who requested a write cannot approve or reject it");
    assert.equal((await approver.api("POST", `/api/v1/transactions/${id}/approve`)).status, 200);
    await waitConfirmed(id);
    assert.equal(await stack.token.ownerOf(tokens[2]!), stranger);
  });

  it("GET /api/enterprise/approvals lists the writes waiting, to a key with read", async () => {
    const id = await held(tokens[3]!);
    const res = await keyApi("GET", "/api/enterprise/approvals");
    assert.equal(res.status, 200, res.text);
    const ids = (res.body.approvals as Array<{ transactionId: string; status: string }>).map(
      (a) => a.transactionId,
    );
    assert.ok(ids.includes(id));
    for (const a of res.body.approvals) assert.equal(a.status, "pending_approval");
    assert.equal((await approver.api("POST", `/api/v1/transactions/${id}/reject`)).status, 200);
    const after = await keyApi("GET", "/api/enterprise/approvals");
    assert.ok(!after.body.approvals.some((a: { transactionId: string }) => a.transactionId === id));
  });

  it("a write left pending past its 24 hours is expired: shown so, and approving answers 409", async () => {
    const id = await held(tokens[3]!);
    await stack.database.pool.query(
      `UPDATE held_writes SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    assert.equal((await keyApi("GET", `/api/v1/transactions/${id}`)).body.status, "expired");
    const late = await approver.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(late.status, 409, late.text);
    assert.equal(late.body.error, "Transaction is expired");
    assert.equal(await recorded(id), false);
  });

  it("approvers: 2 needs two different people", async () => {
    await setRules([{ kinds: ["transfer"], when: "always", approvers: 2 }]);
    const id = await held(tokens[4]!);
    const first = await approver.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.status, "pending_approval");
    const twice = await approver.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(twice.status, 409, twice.text);
    assert.equal(twice.body.error, "Already approved by you");
    assert.equal(await recorded(id), false);
    const second = await approver2.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.status, "approved");
    await waitConfirmed(id);
    assert.equal(await stack.token.ownerOf(tokens[4]!), stranger);
  });

  it("outside-allowlist holds only transfers to addresses off the allowlist", async () => {
    await setRules(
      [{ kinds: ["transfer"], when: "outside-allowlist", approvers: 1 }],
      [{ address: treasury, label: "Treasury" }],
    );
    const direct = await keyApi("POST", "/api/v1/write/transfer", {
      tokenId: tokens[5],
      toAddress: treasury,
    });
    assert.equal(direct.status, 200, direct.text);
    await held(tokens[6]!);
  });

  it("an approval by a person removed since no longer counts", async () => {
    await setRules([{ kinds: ["transfer"], when: "always", approvers: 2 }]);
    const id = await held(tokens[7]!);
    assert.equal((await approver.api("POST", `/api/v1/transactions/${id}/approve`)).status, 200);
    assert.equal(
      (await owner.api("DELETE", `/api/enterprise/users/${approver.userId}`)).status,
      200,
    );
    const second = await approver2.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.status, "pending_approval");
    assert.deepEqual(
      second.body.approvals.map((a: { email: string }) => a.email),
      [approver2.email],
    );
    assert.equal(await recorded(id), false);
  });

  it("another organization's held write answers 404 to its approvers", async () => {
    const otherEmail = email("other");
    const other = await registerWithOwner(stack, otherEmail);
    const otherOwner = await signIn(stack, await accept(stack, other.invitationUrl, otherEmail));
    const { rows } = await stack.database.pool.query<{ id: string }>(
      `SELECT id FROM held_writes WHERE org_id = $1 AND state = 'pending_approval' LIMIT 1`,
      [org.orgId],
    );
    const res = await otherOwner.api("POST", `/api/v1/transactions/${rows[0]!.id}/approve`);
    assert.equal(res.status, 404, res.text);
    const read = await stack.api("GET", `/api/v1/transactions/${rows[0]!.id}`, {
      apiKey: other.apiKey,
    });
    assert.equal(read.status, 404, read.text);
  });

  it("a held write sends transaction.approval_required, signed, to a webhook subscribed to it by name", async () => {
    await setRules([{ kinds: ["transfer"], when: "always", approvers: 2 }]);
    const receiver = await startReceiver();
    const workers = await startWebhookWorkers(stack.ctx, {
      backoffBaseMs: 200,
      backoffMaxMs: 1_000,
    });
    try {
      const hook = await keyApi("POST", "/api/enterprise/webhooks", {
        url: receiver.url("/held"),
        events: ["transaction.approval_required"],
      });
      assert.equal(hook.status, 200, hook.text);
      const res = await stack.api("POST", "/api/v1/write/transfer", {
        apiKey: org.apiKey,
        headers: { "idempotency-key": "held-hook-1" },
        body: { tokenId: tokens[7]!, toAddress: stranger },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      const shown = await keyApi("GET", `/api/v1/transactions/${id}`);
      await receiver.waitFor(
        () => receiver.accepted("/held").some((d) => d.json.data.transactionId === id),
        20_000,
        "transaction.approval_required",
      );
      const pushed = receiver.accepted("/held").filter((d) => d.json.data.transactionId === id);
      assert.equal(pushed.length, 1);
      verifyDelivery(pushed[0]!, hook.body.secret as string);
      assert.equal(pushed[0]!.json.event, "transaction.approval_required");
      assert.equal(pushed[0]!.json.orgId, org.orgId);
      assert.equal(pushed[0]!.json.txHash, null);
      assert.equal(pushed[0]!.json.blockNumber, null);
      assert.deepEqual(pushed[0]!.json.data, {
        transactionId: id,
        kind: "transfer",
        status: "pending_approval",
        idempotencyKey: "held-hook-1",
        approvalsRequired: 2,
        requestedBy: shown.body.requestedBy,
        expiresAt: shown.body.expiresAt,
      });
      // The same request again answers the same held write and sends nothing more.
      const again = await stack.api("POST", "/api/v1/write/transfer", {
        apiKey: org.apiKey,
        headers: { "idempotency-key": "held-hook-1" },
        body: { tokenId: tokens[7]!, toAddress: stranger },
      });
      assert.equal(again.body.transactionId, id);
      const { rows } = await stack.database.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_events
          WHERE kind = 'transaction.approval_required' AND payload->'data'->>'transactionId' = $1`,
        [id],
      );
      assert.deepEqual(rows, [{ n: 1 }]);
    } finally {
      await workers.stop();
      await receiver.close();
    }
  });

  it("APPROVAL_EXPIRY_SECONDS sets how long a held write waits: held under a 1 ms expiry, it is expired", async () => {
    await setRules([{ kinds: ["transfer"], when: "always", approvers: 1 }]);
    stack.ctx.config.approvalExpiryMs = 1;
    let id: string;
    try {
      id = await held(tokens[6]!);
    } finally {
      delete stack.ctx.config.approvalExpiryMs;
    }
    const shown = await keyApi("GET", `/api/v1/transactions/${id}`);
    assert.equal(shown.body.status, "expired");
    // (approver was removed above; approver2 decides)
    const late = await approver2.api("POST", `/api/v1/transactions/${id}/approve`);
    assert.equal(late.status, 409, late.text);
    assert.equal(late.body.error, "Transaction is expired");
    // Back to the default: 24 hours after it was held.
    const fresh = await keyApi("GET", `/api/v1/transactions/${await held(tokens[6]!)}`);
    const waits = Date.parse(fresh.body.expiresAt) - Date.parse(fresh.body.createdAt);
    assert.ok(Math.abs(waits - 86_400_000) < 60_000, `waits ${waits} ms`);
  });
});
