import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError, RwaClient } from "../../../relayer/sdk/index.js";
import { verifyAuditChain } from "../../../relayer/src/audit/verify-chain.js";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import { assertError } from "../../support/assert-error.js";
import { eventually } from "../../support/eventually.js";
import type { ApiResponse, TestOrg } from "../../support/stack.js";
import { orgSigner } from "../webhooks/chain-helpers.js";
import { assetBody, startWriteStackWithOrgs, type WriteStack } from "../writes/helpers.js";

/**
 * The audit log through the API, on a real anvil and PostgreSQL with the engine and
 * the indexer running: each management and operator action appends one row with the right actor,
 * organization, target, request id, source address and changed fields (never a secret); a
 * refused action appends none; `GET /api/enterprise/audit-log` shows an organization only its own
 * rows, operator staff every row, in cursor pages with filters.
 */

interface Row {
  id: string;
  at: string;
  actor: string;
  orgId: string | null;
  action: string;
  target: string | null;
  requestId: string | null;
  sourceAddress: string | null;
  changes: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

describe("audit log (anvil + PostgreSQL)", { timeout: 120_000 }, () => {
  let stack: WriteStack, alice: TestOrg, bob: TestOrg;
  before(async () => ([stack, alice, bob] = await startWriteStackWithOrgs(2)));
  after(() => stack?.stop());

  /** The rows of `org`'s log (its own key), newest first, optionally one action only. */
  const rowsOf = async (org: TestOrg, query = ""): Promise<Row[]> => {
    const res = await org.api("GET", `/api/enterprise/audit-log?limit=100${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body.data as Row[];
  };
  const adminRows = async (query = ""): Promise<Row[]> => {
    const res = await stack.api("GET", `/api/enterprise/audit-log?limit=100${query}`, {
      adminToken: stack.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Row[];
  };
  const count = async () =>
    Number((await stack.database.pool.query("SELECT count(*) AS n FROM audit_log")).rows[0].n);

  it("registering an organization appends org.registered by the admin, with the request id and address", async () => {
    const res = await stack.api("POST", "/api/enterprise/register", {
      adminToken: stack.adminToken,
      headers: { "x-request-id": "audit-register-1" },
      body: { orgName: "Audited Org", plan: "pro", scopes: ["read", "webhooks"] },
    });
    assert.equal(res.status, 200, res.text);
    const [row] = await adminRows(`&orgId=${res.body.orgId}`);
    assert.ok(row !== undefined);
    assert.equal(row.action, "org.registered");
    assert.equal(row.actor, "admin");
    assert.equal(row.orgId, res.body.orgId);
    assert.equal(row.target, res.body.orgId);
    assert.equal(row.requestId, "audit-register-1");
    assert.equal(row.sourceAddress, "127.0.0.1");
    assert.deepEqual(row.changes, {
      orgName: "Audited Org",
      plan: "pro",
      scopes: ["read", "webhooks"],
      walletAddress: res.body.walletAddress,
      signerBackend: "local",
      keyId: res.body.keyId,
    });
    assert.ok(Math.abs(Date.parse(row.at) - Date.now()) < 60_000);
    assert.match(row.hash, /^[0-9a-f]{64}$/);
  });

  it("creating and revoking a key, creating and deleting a webhook each append a row by the calling key", async () => {
    const created = await alice.api("POST", "/api/enterprise/keys", {
      headers: { "x-request-id": "audit-key-create" },
      body: { scopes: ["read"], label: "reporting" },
    });
    assert.equal(created.status, 200, created.text);
    const revoked = await alice.api("DELETE", `/api/enterprise/keys/${created.body.keyId}`);
    assert.equal(revoked.status, 200, revoked.text);
    const hook = await alice.api("POST", "/api/enterprise/webhooks", {
      body: { url: "http://127.0.0.1:9/hook?token=abc", events: ["asset.issued"] },
    });
    assert.equal(hook.status, 200, hook.text);
    const deleted = await alice.api("DELETE", "/api/enterprise/webhooks", {
      body: { webhookId: hook.body.webhookId },
    });
    assert.equal(deleted.status, 200, deleted.text);

    const rows = (await rowsOf(alice)).slice(0, 4).reverse();
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor, r.orgId, r.target]),
      [
        ["api_key.created", alice.keyId, alice.orgId, created.body.keyId],
        ["api_key.revoked", alice.keyId, alice.orgId, created.body.keyId],
        ["webhook.created", alice.keyId, alice.orgId, hook.body.webhookId],
        ["webhook.deleted", alice.keyId, alice.orgId, hook.body.webhookId],
      ],
    );
    assert.equal(rows[0]!.requestId, "audit-key-create");
    assert.deepEqual(rows[0]!.changes, { label: "reporting", scopes: ["read"] });
    assert.deepEqual(rows[1]!.changes, { revokedAt: revoked.body.revokedAt });
    // The URL as the logs show it: query values hidden (they may be credentials).
    assert.deepEqual(rows[2]!.changes, {
      url: "http://127.0.0.1:9/hook?token=***",
      events: ["asset.issued"],
    });
    // Each row carries the hash of the one before it.
    for (let i = 1; i < rows.length; i++) {
      if (Number(rows[i]!.id) === Number(rows[i - 1]!.id) + 1)
        assert.equal(rows[i]!.prevHash, rows[i - 1]!.hash);
    }
    // Revoking it again changes nothing and appends nothing.
    const before = await count();
    const again = await alice.api("DELETE", `/api/enterprise/keys/${created.body.keyId}`);
    assert.equal(again.status, 200, again.text);
    assert.equal(await count(), before);
  });

  it("operator org controls and webhook changes are audited: plan, suspend, resume, revoke, events, secret rotation", async () => {
    const org = await stack.registerOrg();
    const admin = { adminToken: stack.adminToken };
    const patch = (body: Record<string, unknown>) =>
      stack.api("PATCH", `/api/enterprise/orgs/${org.orgId}`, { ...admin, body });
    assert.equal((await patch({ plan: "pro" })).status, 200);
    assert.equal((await patch({ suspended: true })).status, 200);
    assert.equal((await patch({ suspended: false })).status, 200);
    const key = await org.api("POST", "/api/enterprise/keys", { body: { scopes: ["read"] } });
    assert.equal(key.status, 200, key.text);
    const revoked = await stack.api(
      "DELETE",
      `/api/enterprise/orgs/${org.orgId}/keys/${key.body.keyId}`,
      admin,
    );
    assert.equal(revoked.status, 200, revoked.text);
    const hook = await org.api("POST", "/api/enterprise/webhooks", {
      body: { url: "https://example.com/hook", events: ["asset.issued"] },
    });
    assert.equal(hook.status, 200, hook.text);
    const id = hook.body.webhookId as string;
    const edited = await org.api("PATCH", `/api/enterprise/webhooks/${id}`, {
      body: { events: ["asset.sold"] },
    });
    assert.equal(edited.status, 200, edited.text);
    const rotated = await org.api("POST", `/api/enterprise/webhooks/${id}/rotate-secret`, {
      body: {},
    });
    assert.equal(rotated.status, 200, rotated.text);

    const rows = await adminRows(`&orgId=${org.orgId}`);
    const of = (action: string) => rows.filter((r) => r.action === action);
    assert.deepEqual(of("org.plan_changed")[0]?.changes, {
      plan: { from: "enterprise", to: "pro" },
    });
    assert.equal(of("org.plan_changed")[0]?.actor, "admin");
    assert.deepEqual(of("org.suspended")[0]?.changes, { suspended: { from: false, to: true } });
    assert.deepEqual(of("org.resumed")[0]?.changes, { suspended: { from: true, to: false } });
    const revokeRow = of("api_key.revoked").find((r) => r.target === key.body.keyId);
    assert.equal(revokeRow?.actor, "admin");
    assert.deepEqual(of("webhook.updated")[0]?.changes, { events: ["asset.sold"] });
    assert.equal(of("webhook.updated")[0]?.actor, org.keyId);
    const rotation = of("webhook.secret_rotated")[0];
    assert.equal(rotation?.target, id);
    assert.ok(!JSON.stringify(rotation).includes(rotated.body.secret as string), "no secret");
    assert.equal((await verifyAuditChain(stack.database.pool)).intact, true);
  });

  it("a refused action appends no row", async () => {
    const before = await count();
    const solo = await stack.registerOrg();
    const afterRegister = await count();
    // org.registered, and the wallet's allowlisting and dev faucet: each an attempt and its outcome.
    assert.equal(afterRegister, before + 5);
    assertError(
      await solo.api("DELETE", `/api/enterprise/keys/${solo.keyId}`),
      409,
      "Cannot revoke the last active key",
    );
    assertError(
      await solo.api("DELETE", "/api/enterprise/webhooks/wh_doesnotexist"),
      404,
      "Webhook not found",
    );
    assert.equal(await count(), afterRegister);
  });

  it("no row holds a secret: webhook secrets, API keys, the admin token or a wallet's private key", async () => {
    const secret = `whsec_${Buffer.from("a very secret webhook key!!").toString("base64")}`;
    const hook = await alice.api("POST", "/api/enterprise/webhooks", {
      body: { url: "http://127.0.0.1:9/secret-hook", events: ["asset.issued"], secret },
    });
    assert.equal(hook.status, 200, hook.text);
    const key = await alice.api("POST", "/api/enterprise/keys", { body: { scopes: ["read"] } });
    assert.equal(key.status, 200, key.text);
    const wallet = await orgSigner(stack, alice.orgId, stack.provider);
    const { rows } = await stack.database.pool.query<{ row: string }>(
      "SELECT row_to_json(a)::text AS row FROM audit_log a",
    );
    const everything = rows.map((r) => r.row).join("\n");
    assert.ok(everything.includes(hook.body.webhookId), "the webhook's row is there");
    for (const [name, value] of [
      ["webhook secret", secret],
      ["created API key", key.body.apiKey as string],
      ["registration API key", alice.apiKey],
      ["admin token", stack.adminToken],
      ["wallet private key", wallet.privateKey.slice(2)],
      ["master key", stack.ctx.config.masterKey],
    ] as const) {
      assert.ok(!everything.includes(value), `${name} is not in the audit log`);
    }
  });

  it("operator acts are audited: an asset type registered, a token rescued", async () => {
    const typeName = `Audit Type ${Date.now()}`;
    const registered = await stack.api("POST", "/api/console/operator/asset-types", {
      adminToken: stack.adminToken,
      body: { typeName },
    });
    assert.equal(registered.status, 200, registered.text);
    const [typeRow] = await adminRows("&action=asset_type.registered");
    assert.deepEqual(
      [typeRow?.actor, typeRow?.orgId, typeRow?.target, typeRow?.changes],
      [
        "admin",
        null,
        `asset-type:${typeName}`,
        {
          typeName,
          txHash: registered.body.txHash,
          attemptId: typeRow?.changes.attemptId,
          blockNumber: typeRow?.changes.blockNumber,
        },
      ],
    );
    // Its attempt, committed before the broadcast, names the same transaction.
    const [typeAttempt] = await adminRows("&action=operator_tx.attempted");
    assert.equal(typeAttempt?.id, typeRow?.changes.attemptId);
    assert.deepEqual(typeAttempt?.changes, {
      act: "asset_type.registered",
      typeName,
      operator: stack.ctx.operator.address,
      nonce: typeAttempt?.changes.nonce,
      txHash: registered.body.txHash,
    });
    // Service-wide rows are the operator's only.
    assert.equal(
      (await rowsOf(alice, "&action=asset_type.registered")).some((r) => r.orgId === null),
      false,
    );

    const issued = await alice.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(issued.status, 200, issued.text);
    const tokenId = String(issued.body.tokenId);
    const direct = AssetToken__factory.connect(
      stack.ctx.contracts.assetToken,
      await orgSigner(stack, alice.orgId, stack.provider),
    );
    await (
      await direct.getFunction("transferFrom")(
        alice.walletAddress,
        stack.ctx.contracts.marketplace,
        tokenId,
      )
    ).wait();
    const rescued = await stack.api("POST", "/api/enterprise/marketplace/rescue", {
      adminToken: stack.adminToken,
      body: { tokenId, toAddress: alice.walletAddress },
    });
    assert.equal(rescued.status, 200, rescued.text);
    const [rescueRow] = await rowsOf(alice, "&action=marketplace.token_rescued");
    assert.deepEqual(
      [rescueRow?.actor, rescueRow?.orgId, rescueRow?.target, rescueRow?.changes],
      [
        "admin",
        alice.orgId,
        `token:${tokenId}`,
        {
          tokenId,
          toAddress: alice.walletAddress,
          txHash: rescued.body.txHash,
          attemptId: rescueRow?.changes.attemptId,
          blockNumber: rescueRow?.changes.blockNumber,
        },
      ],
    );
    const [rescueAttempt] = await rowsOf(alice, "&action=operator_tx.attempted");
    assert.equal(rescueAttempt?.id, rescueRow?.changes.attemptId);
    assert.equal(rescueAttempt?.changes.txHash, rescued.body.txHash);
  });

  it("an organization's register-asset-type write is audited once, naming its transaction", async () => {
    const registrar = await stack.registerOrg({ scopes: ["read", "admin:types"] });
    const typeName = `Org Type ${Date.now()}`;
    const send = () =>
      registrar.api("POST", "/api/v1/write/register-asset-type", {
        headers: { "idempotency-key": "audit-type-1" },
        body: { typeName },
      });
    const first = await send();
    assert.equal(first.status, 200, first.text);
    const replay = await send();
    assert.equal(replay.status, 200, replay.text);
    const rows = await rowsOf(registrar, "&action=asset_type.registered");
    assert.equal(rows.length, 1, "the idempotent replay appended nothing");
    assert.deepEqual(
      [rows[0]!.actor, rows[0]!.target, rows[0]!.changes],
      [
        registrar.keyId,
        `asset-type:${typeName}`,
        { typeName, transactionId: first.headers.get("x-transaction-id") },
      ],
    );
  });

  it("an organization's register-asset-type is audited with the write's own commit, before its answer", async () => {
    const registrar = await stack.registerOrg({ scopes: ["read", "admin:types"] });
    const typeName = `Pending Type ${Date.now()}`;
    const auditRow = async () =>
      (
        await stack.database.pool.query<{ transaction_id: string }>(
          `SELECT changes->>'transactionId' AS transaction_id FROM audit_log
            WHERE action = 'asset_type.registered' AND org_id = $1 AND target = $2`,
          [registrar.orgId, `asset-type:${typeName}`],
        )
      ).rows;
    await stack.automine(false);
    let answer: Promise<ApiResponse> | undefined;
    try {
      // Synchronous: the answer waits for the block; the audit row is already there.
      answer = registrar.api("POST", "/api/v1/write/register-asset-type", { body: { typeName } });
      const recorded = await eventually(async () => {
        const { rows } = await stack.database.pool.query<{ id: string }>(
          `SELECT id FROM transactions WHERE org_id = $1 AND kind = 'register-asset-type' AND state = 'sent'`,
          [registrar.orgId],
        );
        assert.equal(rows.length, 1);
        return rows[0]!.id;
      }, 10_000);
      assert.deepEqual(await auditRow(), [{ transaction_id: recorded }]);
    } finally {
      await stack.automine(true);
    }
    const done = await answer;
    assert.equal(done.status, 200, done.text);
    assert.equal((await auditRow()).length, 1);
  });

  it("another organization never sees your rows, and naming your org answers 404", async () => {
    const aliceRows = await rowsOf(alice);
    assert.ok(aliceRows.length > 0);
    const bobRows = await rowsOf(bob);
    assert.ok(bobRows.every((r) => r.orgId === bob.orgId));
    assert.ok(!bobRows.some((r) => aliceRows.some((a) => a.id === r.id)));
    assertError(
      await bob.api("GET", `/api/enterprise/audit-log?orgId=${alice.orgId}`),
      404,
      "Organization not found",
    );
    const own = await bob.api("GET", `/api/enterprise/audit-log?orgId=${bob.orgId}`);
    assert.equal(own.status, 200, own.text);
  });

  it("the admin token sees every organization, and ?orgId= filters one", async () => {
    const all = await adminRows();
    const orgIds = new Set(all.map((r) => r.orgId));
    assert.ok(orgIds.has(alice.orgId) && orgIds.has(bob.orgId) && orgIds.has(null));
    const onlyBob = await adminRows(`&orgId=${bob.orgId}`);
    assert.deepEqual(onlyBob, await rowsOf(bob));
    assertError(
      await stack.api("GET", "/api/enterprise/audit-log?orgId=org_doesnotexist", {
        adminToken: stack.adminToken,
      }),
      404,
      "Organization not found",
    );
    assertError(
      await stack.api("GET", "/api/enterprise/audit-log", { adminToken: "ent_admin_wrong" }),
      403,
      "Admin token required",
    );
  });

  it("pages newest first with a cursor, without gaps or repeats", async () => {
    const org = await stack.registerOrg();
    for (let i = 0; i < 7; i++) {
      const res = await org.api("POST", "/api/enterprise/keys", {
        body: { scopes: ["read"], label: `k${i}` },
      });
      assert.equal(res.status, 200, res.text);
    }
    const all = await rowsOf(org);
    assert.equal(all.length, 12); // registration (its row, two chain acts of two rows) + 7 keys
    const seen: Row[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const res = await org.api("GET", `/api/enterprise/audit-log?limit=3${query}`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.data.length <= 3);
      seen.push(...(res.body.data as Row[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor !== null);
    assert.deepEqual(seen, all);
    assert.deepEqual(
      seen.map((r) => Number(r.id)),
      seen.map((r) => Number(r.id)).sort((a, b) => b - a),
    );
    for (const bad of [
      "garbage",
      "eyJrIjoiYWJjIn0",
      Buffer.from('{"k":"9'.padEnd(90, "9") + '"}').toString("base64url"),
    ]) {
      assertError(
        await org.api("GET", `/api/enterprise/audit-log?cursor=${bad}`),
        400,
        "Invalid cursor",
      );
    }
  });

  it("filters by action and time, and refuses malformed filters with a clear 400", async () => {
    const created = await rowsOf(alice, "&action=api_key.created");
    assert.ok(created.length >= 2);
    assert.ok(created.every((r) => r.action === "api_key.created"));
    const oldest = created.at(-1)!;
    const newest = created[0]!;
    // `from` is inclusive, `to` exclusive.
    const window = await rowsOf(
      alice,
      `&action=api_key.created&from=${encodeURIComponent(oldest.at)}&to=${encodeURIComponent(newest.at)}`,
    );
    assert.ok(window.some((r) => r.id === oldest.id));
    assert.ok(!window.some((r) => r.id === newest.id));
    assert.deepEqual(await rowsOf(alice, "&from=2999-01-01"), []);
    assert.deepEqual(await rowsOf(alice, "&to=2000-01-01T00:00:00Z"), []);
    assert.deepEqual(await rowsOf(alice, "&action=token.frozen"), []);

    const timeError = "must be an ISO 8601 time such as 2026-11-25T12:00:00Z, or a date";
    for (const [query, error] of [
      ["from=yesterday", `Invalid field: from (${timeError})`],
      ["to=2026-02-30", `Invalid field: to (${timeError})`],
      ["from=2026-11-25T12:00:00", `Invalid field: from (${timeError})`],
      ["from=2026-11-26&to=2026-11-25", "Invalid field: to (must not be before from)"],
      [
        "action=Key%20Created",
        "Invalid field: action (must be an action name such as api_key.created)",
      ],
      ["limit=0", "Invalid field: limit (must be an integer from 1 to 100)"],
      ["limit=101", "Invalid field: limit (must be an integer from 1 to 100)"],
      ["color=red", "Unknown field: color"],
    ] as const) {
      assertError(await alice.api("GET", `/api/enterprise/audit-log?${query}`), 400, error, query);
    }
  });

  it("the SDK's listAuditLog pages and filters the organization's log", async () => {
    const client = new RwaClient({ apiKey: alice.apiKey, baseUrl: stack.baseUrl, maxRetries: 0 });
    const first = await client.listAuditLog({ action: "api_key.created", limit: 1 });
    assert.equal(first.data.length, 1);
    assert.equal(first.data[0]!.action, "api_key.created");
    assert.equal(first.data[0]!.orgId, alice.orgId);
    assert.ok(first.nextCursor !== null);
    const second = await client.listAuditLog({
      action: "api_key.created",
      limit: 1,
      cursor: first.nextCursor,
    });
    assert.ok(Number(second.data[0]!.id) < Number(first.data[0]!.id));
    await assert.rejects(
      client.listAuditLog({ from: "soon" }),
      (e: unknown) =>
        e instanceof ApiError && e.status === 400 && e.error.startsWith("Invalid field: from"),
    );
  });

  it("a key without the read scope is refused, and the chain stays intact throughout", async () => {
    const writer = await alice.api("POST", "/api/enterprise/keys", {
      body: { scopes: ["webhooks"] },
    });
    assert.equal(writer.status, 200, writer.text);
    assertError(
      await stack.api("GET", "/api/enterprise/audit-log", { apiKey: writer.body.apiKey }),
      403,
      "Insufficient scope",
    );
    assertError(await stack.api("GET", "/api/enterprise/audit-log"), 401, "Unauthorized");
    assert.deepEqual(await verifyAuditChain(stack.database.pool), {
      intact: true,
      rows: await count(),
    });
  });
});
