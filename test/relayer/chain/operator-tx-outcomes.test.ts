import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { verifyAuditChain } from "../../../relayer/src/audit/verify-chain.js";
import { appendOperatorAttempt } from "../../../relayer/src/audit/operator-act-audit.js";
import {
  settleOperatorAttempts,
  startOperatorAttemptSettler,
} from "../../../relayer/src/audit/settle-operator-attempts.js";
import type { ChainProbe } from "../../support/chain-probe.js";
import {
  gatewayError,
  indexingInProgress,
  type RpcFaultProxy,
} from "../../support/rpc-fault-proxy.js";
import { eventually } from "../../support/eventually.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, type WriteStack } from "../writes/helpers.js";
import { startProxiedWriteStack, type ProxiedWriteStack } from "./proxied-stack.js";

/** An audit row as the API returns it (the fields these tests read). */
interface Row {
  id: string;
  actor: string;
  orgId: string | null;
  action: string;
  target: string | null;
  changes: Record<string, unknown>;
}

/**
 * An operator act sent on chain (a freeze, from the operator account) whose answer may have gone
 * through always names its transaction: the node receives the broadcast, then every receipt
 * look-up fails, and the 503 carries `txHash` (body and `X-Transaction-Hash`) of a transaction
 * that is on chain. Its audit record cannot be lost: `operator_tx.attempted` (with the signed
 * transaction's hash) is committed before the broadcast, and an outcome row follows (the act's
 * own row once mined, `operator_tx.failed` for a refused broadcast, `operator_tx.unconfirmed`
 * when the relayer lost sight of it); the chain of rows stays intact. Real anvil behind a fault
 * proxy, real PostgreSQL.
 */
describe("operator transactions whose outcome the relayer cannot see (fault proxy)", () => {
  let proxied: ProxiedWriteStack, stack: WriteStack, proxy: RpcFaultProxy, chain: ChainProbe;
  let alice: TestOrg;
  /** The attempt the receipt-lost freeze left with only `operator_tx.unconfirmed`. */
  let lostSight: { attemptId: string; txHash: string; tokenId: string } | undefined;
  before(async () => {
    // The acts themselves, at once (OPERATOR_FOUR_EYES=off); four-eyes: operator-people.test.ts.
    proxied = await startProxiedWriteStack([{}], { config: { operatorFourEyes: false } });
    ({ stack, chain } = proxied);
    proxy = proxied.proxies[0]!;
    alice = await stack.registerOrg();
  });
  after(() => proxied?.stop());
  afterEach(() => proxy.clearRules());

  const operator = (method: string, path: string, body?: unknown) =>
    stack.api(method, path, {
      adminToken: stack.adminToken,
      ...(body === undefined ? {} : { body }),
    });
  /** The rows appended after `afterId`, oldest first (the operator sees every row). */
  const rowsAfter = async (afterId: string): Promise<Row[]> => {
    const res = await operator("GET", "/api/enterprise/audit-log?limit=100");
    assert.equal(res.status, 200, res.text);
    return (res.body.data as Row[]).filter((r) => BigInt(r.id) > BigInt(afterId)).reverse();
  };
  const lastId = async () =>
    String(
      (await stack.database.pool.query("SELECT coalesce(max(id), 0)::text AS id FROM audit_log"))
        .rows[0].id,
    );
  const issue = async () => {
    const res = await alice.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(res.status, 200, res.text);
    return String((res.body as { tokenId: string }).tokenId);
  };

  it("freeze answers 503 RPC unavailable with the txHash when every receipt look-up fails after the broadcast, and the freeze is on chain", async () => {
    const tokenId = await issue();
    const before = await lastId();
    proxy.resetCounts();
    const lookups = proxy.addRule({
      method: "eth_getTransactionReceipt",
      action: gatewayError(503),
    });
    const res = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "receipt lost",
    });
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), 1, "the freeze was broadcast");
    assert.ok(lookups.hits >= 1, "the receipt look-up failed");
    assert.equal(res.status, 503, res.text);
    const body = res.body as { error: string; txHash: string };
    assert.equal(body.error, "RPC unavailable");
    assert.match(body.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(res.headers.get("x-transaction-hash"), body.txHash);
    const receipt = await chain.receipt(body.txHash);
    assert.equal(receipt?.status, "0x1", "the named transaction is mined");
    assert.equal(await chain.token.isFrozen(tokenId), true, "the freeze is on chain");

    // The attempt names the hash; the outcome says the relayer lost sight of it.
    const [attempt, outcome, ...rest] = await rowsAfter(before);
    assert.deepEqual(rest, []);
    assert.equal(attempt?.action, "operator_tx.attempted");
    assert.equal(attempt?.changes.txHash, body.txHash);
    assert.equal(attempt?.changes.act, "asset.frozen");
    assert.equal(outcome?.action, "operator_tx.unconfirmed");
    assert.deepEqual(outcome?.changes, {
      act: "asset.frozen",
      attemptId: attempt?.id,
      txHash: body.txHash,
      reason: "RPC unavailable",
    });
    lostSight = { attemptId: attempt.id, txHash: body.txHash, tokenId };
  });

  it("a node answering 'not now' to the receipt look-ups (geth still indexing) is a 503 with the txHash too", async () => {
    const tokenId = await issue();
    proxy.addRule({ method: "eth_getTransactionReceipt", action: indexingInProgress() });
    const res = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "node still indexing",
    });
    assert.equal(res.status, 503, res.text);
    const body = res.body as { error: string; txHash: string };
    assert.equal(body.error, "RPC unavailable");
    assert.equal(res.headers.get("x-transaction-hash"), body.txHash);
    assert.equal((await chain.receipt(body.txHash))?.status, "0x1");
    assert.equal(await chain.token.isFrozen(tokenId), true);
  });

  it("a mined act leaves its attempt (committed before the broadcast) and its own row, both with the hash, and the chain verifies", async () => {
    const tokenId = await issue();
    const before = await lastId();
    const res = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "court order 7",
    });
    assert.equal(res.status, 200, res.text);
    const { txHash } = res.body as { txHash: string };
    const receipt = await chain.receipt(txHash);
    const [attempt, mined, ...rest] = await rowsAfter(before);
    assert.deepEqual(rest, []);
    assert.deepEqual(
      [attempt?.action, attempt?.actor, attempt?.orgId, attempt?.target],
      ["operator_tx.attempted", "admin", alice.orgId, tokenId],
    );
    assert.deepEqual(attempt?.changes, {
      act: "asset.frozen",
      tokenId,
      frozen: true,
      reason: "court order 7",
      operator: stack.ctx.operator.address,
      nonce: (attempt?.changes as { nonce: number }).nonce,
      txHash,
    });
    assert.equal(typeof attempt?.changes.nonce, "number");
    assert.deepEqual(
      [mined?.action, mined?.actor, mined?.orgId, mined?.target],
      ["asset.frozen", "admin", alice.orgId, tokenId],
    );
    assert.deepEqual(mined?.changes, {
      tokenId,
      frozen: true,
      reason: "court order 7",
      attemptId: attempt?.id,
      txHash,
      blockNumber: Number(BigInt(receipt!.blockNumber)),
    });
    assert.deepEqual(await verifyAuditChain(stack.database.pool), {
      intact: true,
      rows: Number(await lastId()),
    });
  });

  it("an act whose broadcast the node refuses still leaves its attempt and a failed outcome with the reason; nothing is on chain", async () => {
    const tokenId = await issue();
    const before = await lastId();
    proxy.resetCounts();
    const refused = proxy.addRule({
      method: "eth_sendRawTransaction",
      action: { kind: "error", code: -32000, message: "transaction refused by the test node" },
      times: 1,
    });
    const res = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "never sent",
    });
    assert.equal(refused.hits, 1, "the broadcast was refused");
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), 0);
    assert.ok(res.status >= 500, res.text);
    assert.equal(typeof (res.body as { error: unknown }).error, "string");
    assert.equal(await chain.token.isFrozen(tokenId), false, "nothing on chain");
    const [attempt, failed, ...rest] = await rowsAfter(before);
    assert.deepEqual(rest, []);
    assert.equal(attempt?.action, "operator_tx.attempted");
    assert.match(String(attempt?.changes.txHash), /^0x[0-9a-f]{64}$/);
    assert.equal(await chain.receipt(String(attempt?.changes.txHash)), null);
    assert.deepEqual(
      [failed?.action, failed?.orgId, failed?.target],
      ["operator_tx.failed", alice.orgId, tokenId],
    );
    assert.equal(failed?.changes.outcome, "rejected");
    assert.equal(failed?.changes.attemptId, attempt?.id);
    assert.equal(failed?.changes.txHash, attempt?.changes.txHash);
    assert.match(String(failed?.changes.reason), /transaction refused by the test node/);
    assert.deepEqual(await verifyAuditChain(stack.database.pool), {
      intact: true,
      rows: Number(await lastId()),
    });

    // The operator account's next act goes through with the nonce the refused one had.
    const again = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "sent now",
    });
    assert.equal(again.status, 200, again.text);
    assert.equal(await chain.token.isFrozen(tokenId), true);
  });

  it("the broadcast waits until its attempt row is committed", async () => {
    const tokenId = await issue();
    proxy.resetCounts();
    // Another transaction holds the chain head: the attempt row cannot be appended meanwhile.
    const blocker = await stack.database.pool.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM audit_chain_head WHERE id = 1 FOR UPDATE");
      const pending = operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
        reason: "no record, no act",
      });
      await new Promise((r) => setTimeout(r, 1_500));
      assert.equal(proxy.forwarded("eth_sendRawTransaction"), 0, "waits for its attempt row");
      await blocker.query("ROLLBACK");
      const res = await pending;
      assert.equal(res.status, 200, res.text);
    } finally {
      blocker.release();
    }
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), 1);
  });

  it("settling at start appends the act's own row for an attempt its request lost sight of, once", async () => {
    assert.ok(lostSight !== undefined, "the receipt-lost test ran first");
    const before = await lastId();
    assert.ok((await settleOperatorAttempts(stack.ctx, 0)) >= 1);
    const mined = (await rowsAfter(before)).filter(
      (r) => r.changes.attemptId === lostSight!.attemptId,
    );
    const receipt = await chain.receipt(lostSight.txHash);
    assert.deepEqual(
      mined.map((r) => [r.action, r.actor, r.orgId, r.target, r.changes]),
      [
        [
          "asset.frozen",
          "admin",
          alice.orgId,
          lostSight.tokenId,
          {
            tokenId: lostSight.tokenId,
            frozen: true,
            reason: "receipt lost",
            attemptId: lostSight.attemptId,
            txHash: lostSight.txHash,
            blockNumber: Number(BigInt(receipt!.blockNumber)),
          },
        ],
      ],
    );
    const again = await lastId();
    await settleOperatorAttempts(stack.ctx, 0);
    assert.deepEqual(
      (await rowsAfter(again)).filter((r) => r.changes.attemptId === lostSight!.attemptId),
      [],
      "settled once",
    );
  });

  it("an attempt whose process died before the broadcast stays open until its nonce goes to another transaction, then reads rejected", async () => {
    const nonce = await stack.provider.getTransactionCount(stack.ctx.operator.address, "pending");
    const txHash = `0x${"5e".repeat(32)}`;
    const attempt = await appendOperatorAttempt(
      stack.database.db,
      {
        origin: { actor: "admin", requestId: "died-before-broadcast", sourceAddress: null },
        entry: { orgId: null, action: "market.paused", target: "market", changes: { reason: "x" } },
      },
      { hash: txHash, from: stack.ctx.operator.address, nonce },
    );
    const outcomes = async () =>
      (await rowsAfter(attempt.id)).filter((r) => r.changes.attemptId === attempt.id);
    await settleOperatorAttempts(stack.ctx, 0);
    assert.deepEqual(await outcomes(), [], "open while the nonce is free");

    const tokenId = await issue();
    const freeze = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "takes the nonce",
    });
    assert.equal(freeze.status, 200, freeze.text);
    await settleOperatorAttempts(stack.ctx, 0);
    const [failed, ...rest] = await outcomes();
    assert.deepEqual(rest, []);
    assert.deepEqual(
      [failed?.action, failed?.target, failed?.changes],
      [
        "operator_tx.failed",
        "market",
        {
          act: "market.paused",
          attemptId: attempt.id,
          txHash,
          outcome: "rejected",
          reason: `never mined: nonce ${nonce} of the operator account went to another transaction`,
        },
      ],
    );
    assert.deepEqual(await verifyAuditChain(stack.database.pool), {
      intact: true,
      rows: Number(await lastId()),
    });
  });
  it("a running relayer's settler settles an attempt a dead process left open, without a restart", async () => {
    const settler = startOperatorAttemptSettler(stack.ctx, { intervalMs: 200, minAgeMs: 0 });
    try {
      // The run at start is over before the attempt exists: only a later run can settle it.
      await settler.firstRun;
      const used = (await stack.provider.getTransactionCount(stack.ctx.operator.address)) - 1;
      assert.ok(used >= 0, "an earlier test sent an operator transaction");
      // Another process died after recording this attempt at a nonce another transaction took.
      const attempt = await appendOperatorAttempt(
        stack.database.db,
        {
          origin: { actor: "admin", requestId: "another-process-died", sourceAddress: null },
          entry: {
            orgId: null,
            action: "market.paused",
            target: "market",
            changes: { reason: "y" },
          },
        },
        { hash: `0x${"6f".repeat(32)}`, from: stack.ctx.operator.address, nonce: used },
      );
      await eventually(async () => {
        const outcomes = (await rowsAfter(attempt.id)).filter(
          (r) => r.changes.attemptId === attempt.id,
        );
        assert.deepEqual(
          outcomes.map((r) => [r.action, r.changes.outcome]),
          [["operator_tx.failed", "rejected"]],
        );
      }, 10_000);
    } finally {
      await settler.stop();
    }
  });
});
