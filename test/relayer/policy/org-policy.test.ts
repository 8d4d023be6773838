import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Wallet } from "ethers";
import type { AuditOrigin } from "../../../relayer/src/audit/audit-writer.js";
import { orgPolicy, type OrgPolicy } from "../../../relayer/src/domain/policy.js";
import { readPolicyForWrite, writePolicy } from "../../../relayer/src/policy/org-policy.js";
import { ValidationError } from "../../../relayer/src/errors.js";
import type { TestOrg } from "../../support/stack.js";
import { startWriteStackWithOrgs, type WriteStack } from "../writes/helpers.js";

/**
 * Organization policy (docs/policy.md) against a real anvil and PostgreSQL: the default, who may
 * change it, its validation, and its enforcement on transfers when they are recorded: a
 * destination off the allowlist and a transfer over the daily limit answer 403 `Policy: ...`
 * with nothing recorded or signed, also when transfers race. Policies are set through the
 * policy service here; the HTTP `PUT` by a signed-in owner is in test/relayer/people/people.test.ts.
 */
describe("organization policy (anvil + PostgreSQL)", () => {
  let stack: WriteStack;
  let alice: TestOrg;
  let bob: TestOrg;
  const treasury = Wallet.createRandom().address;
  const stranger = Wallet.createRandom().address;
  const origin: AuditOrigin = { actor: "policy-test", requestId: null, sourceAddress: null };

  const policy = (overrides: Partial<OrgPolicy> = {}): OrgPolicy => ({
    destinations: { mode: "any", allowlist: [] },
    limits: { transfersPerDay: null },
    approvals: [],
    ...overrides,
  });
  /** Issues `n` assets to `org` in one batch; their token ids. */
  async function tokens(org: TestOrg, n: number): Promise<string[]> {
    const res = await org.api("POST", "/api/v1/write/batch-issue", {
      body: {
        assets: Array.from({ length: n }, (_, i) => ({
          assetType: "Bond",
          name: `Bond ${i}`,
          description: "policy test",
        })),
      },
    });
    assert.equal(res.status, 200, res.text);
    return (res.body.results as Array<{ tokenId: string }>).map((r) => String(r.tokenId));
  }
  const transfer = (org: TestOrg, tokenId: string, toAddress: string, async = false) =>
    org.api("POST", "/api/v1/write/transfer", {
      body: { tokenId, toAddress },
      ...(async ? { headers: { prefer: "respond-async" } } : {}),
    });
  async function transferRows(orgId: string): Promise<number> {
    const { rows } = await stack.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions WHERE org_id = $1 AND kind = 'transfer'`,
      [orgId],
    );
    return rows[0]!.n;
  }

  before(async () => {
    [stack, alice, bob] = await startWriteStackWithOrgs(2);
  });
  after(() => stack?.stop());

  it("GET /api/enterprise/policy answers the default policy, never set, to an organization without one", async () => {
    const res = await alice.api("GET", "/api/enterprise/policy");
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ...policy(), updatedAt: null });
  });

  it("PUT /api/enterprise/policy refuses an API key with 403 and a caller without credentials with 401, changing nothing", async () => {
    const body = policy({ limits: { transfersPerDay: 1 } });
    const byKey = await alice.api("PUT", "/api/enterprise/policy", { body });
    assert.equal(byKey.status, 403, byKey.text);
    assert.equal(byKey.body.error, "Requires a signed-in owner");
    const anonymous = await stack.api("PUT", "/api/enterprise/policy", { body });
    assert.equal(anonymous.status, 401, anonymous.text);
    const admin = await stack.api("PUT", "/api/enterprise/policy", {
      body,
      adminToken: stack.adminToken,
    });
    assert.equal(admin.status, 403, admin.text);
    assert.equal((await alice.api("GET", "/api/enterprise/policy")).body.updatedAt, null);
  });

  it("the policy schema refuses a malformed address, an unknown write kind and approvers outside 1-2", () => {
    const bad = [
      {
        ...policy(),
        destinations: { mode: "allowlist", allowlist: [{ address: "0x12", label: "x" }] },
      },
      { ...policy(), approvals: [{ kinds: ["teleport"], when: "always", approvers: 1 }] },
      { ...policy(), approvals: [{ kinds: ["transfer"], when: "always", approvers: 3 }] },
      { ...policy(), approvals: [{ kinds: ["transfer"], when: "always", approvers: 0 }] },
      { ...policy(), destinations: { mode: "some", allowlist: [] } },
      { ...policy(), limits: { transfersPerDay: -1 } },
    ];
    for (const candidate of bad) assert.equal(orgPolicy.safeParse(candidate).success, false);
  });

  it("writePolicy refuses a bad checksum, a duplicate address and priceAboveCOIN on a transfer with ValidationError, changing nothing", async () => {
    const lower = treasury.toLowerCase();
    const badChecksum = lower.slice(0, 2) + lower.slice(2, 10).toUpperCase() + lower.slice(10);
    const attempts: OrgPolicy[] = [
      policy({
        destinations: { mode: "allowlist", allowlist: [{ address: badChecksum, label: "T" }] },
      }),
      policy({
        destinations: {
          mode: "allowlist",
          allowlist: [
            { address: treasury, label: "T" },
            { address: lower, label: "T again" },
          ],
        },
      }),
      policy({
        approvals: [{ kinds: ["transfer"], when: { priceAboveCOIN: "10" }, approvers: 1 }],
      }),
    ];
    for (const attempt of attempts)
      await assert.rejects(
        writePolicy(stack.database, alice.orgId, attempt, origin),
        ValidationError,
      );
    assert.equal((await alice.api("GET", "/api/enterprise/policy")).body.updatedAt, null);
  });

  it("a transfer to an address off the allowlist answers 403 Policy: ..., with nothing recorded or signed; one on it goes through", async () => {
    const [first, second] = await tokens(alice, 2);
    await writePolicy(
      stack.database,
      alice.orgId,
      policy({
        destinations: { mode: "allowlist", allowlist: [{ address: treasury, label: "Treasury" }] },
      }),
      origin,
    );
    const rowsBefore = await transferRows(alice.orgId);
    const refused = await transfer(alice, first!, stranger);
    assert.equal(refused.status, 403, refused.text);
    assert.match(
      refused.body.error,
      /^Policy: destination 0x[0-9a-fA-F]{40} is not on the organization's allowlist$/,
    );
    assert.equal(await transferRows(alice.orgId), rowsBefore, "nothing recorded");
    assert.equal(await stack.token.ownerOf(first!), alice.walletAddress, "nothing signed");

    // Lower-case spelling of an allowlisted address is the same address.
    const allowed = await transfer(alice, second!, treasury.toLowerCase());
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(await stack.token.ownerOf(second!), treasury);
  });

  it("another organization's transfers are not judged by this policy, and it reads its own (the default)", async () => {
    const [token] = await tokens(bob, 1);
    const res = await transfer(bob, token!, stranger);
    assert.equal(res.status, 200, res.text);
    assert.equal((await bob.api("GET", "/api/enterprise/policy")).body.updatedAt, null);
  });

  it("the policy reads of one event-loop turn (one statement) give each organization its own policy", async () => {
    // Asked in the same turn, these share one statement (`readPolicyForWrite`): alice has the
    // allowlist set above, bob never set one, and the unknown org gets the default too.
    const [forAlice, forBob, again, unknown] = await Promise.all([
      readPolicyForWrite(stack.database, alice.orgId),
      readPolicyForWrite(stack.database, bob.orgId),
      readPolicyForWrite(stack.database, alice.orgId),
      readPolicyForWrite(stack.database, "org_not_there"),
    ]);
    assert.equal(forAlice.policy.destinations.mode, "allowlist");
    assert.deepEqual(
      forAlice.policy.destinations.allowlist.map((e) => e.address),
      [treasury],
    );
    assert.notEqual(forAlice.updatedAt, null);
    assert.deepEqual(again, forAlice);
    assert.equal(forBob.updatedAt, null);
    assert.equal(forBob.policy.destinations.mode, "any");
    assert.deepEqual(unknown, forBob);
    // And through the API in one burst: alice's transfer to a stranger is refused, bob's is not.
    const [a] = await tokens(alice, 1);
    const [b] = await tokens(bob, 1);
    const [refused, allowed] = await Promise.all([
      transfer(alice, a!, stranger),
      transfer(bob, b!, stranger),
    ]);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(allowed.status, 200, allowed.text);
  });

  it("transfersPerDay: the transfers of the rolling 24 hours count, and one more answers 403 Policy: ...", async () => {
    const [t1, t2] = await tokens(alice, 2);
    // One transfer of this org is already in the last 24 hours (the allowlist test).
    await writePolicy(
      stack.database,
      alice.orgId,
      policy({ limits: { transfersPerDay: 2 } }),
      origin,
    );
    assert.equal((await transfer(alice, t1!, stranger)).status, 200);
    const rowsBefore = await transferRows(alice.orgId);
    const refused = await transfer(alice, t2!, stranger);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.body.error,
      "Policy: the organization's limit of 2 transfers in 24 hours is reached",
    );
    assert.equal(await transferRows(alice.orgId), rowsBefore, "nothing recorded");
    assert.equal(await stack.token.ownerOf(t2!), alice.walletAddress, "nothing signed");
  });

  it("transfers that race past the pre-check are judged again when recorded: never more than the limit", async () => {
    const ids = await tokens(bob, 6);
    await writePolicy(
      stack.database,
      bob.orgId,
      policy({ limits: { transfersPerDay: 4 } }),
      origin,
    );
    // Bob made two transfers already (another organization's test, the one-turn test): two
    // more fit; six race for them.
    const answers = await Promise.all(ids.map((id) => transfer(bob, id, stranger, true)));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(
      statuses,
      [202, 202, 403, 403, 403, 403],
      answers.map((a) => a.text).join("\n"),
    );
    for (const a of answers.filter((x) => x.status === 403))
      assert.match(a.body.error, /^Policy: /);
    assert.equal(await transferRows(bob.orgId), 4);
  });

  it("every change is in the audit log with the policy before and after", async () => {
    const res = await alice.api("GET", "/api/enterprise/audit-log?limit=100&action=policy.changed");
    assert.equal(res.status, 200, res.text);
    const rows = res.body.data as Array<{
      action: string;
      changes: { before: OrgPolicy; after: OrgPolicy };
    }>;
    assert.equal(rows.length, 2, JSON.stringify(rows));
    const [latest, first] = rows; // newest first
    assert.deepEqual(first!.changes.before, policy());
    assert.equal(first!.changes.after.destinations.mode, "allowlist");
    assert.deepEqual(latest!.changes.before, first!.changes.after);
    assert.equal(latest!.changes.after.limits.transfersPerDay, 2);
  });

  it("a policy changed where this process was not told still judges the next write: held, refused or allowed by the policy in force", async () => {
    // Changed straight in the database: no `writePolicy`, no notification, so the relayer still
    // keeps the policy its last write read (`readPolicyForWrite`). The record statement finds
    // it changed (`policy-changed`) and the write is judged again on a fresh read.
    const setBehind = (p: OrgPolicy) =>
      stack.database.pool.query(
        `INSERT INTO org_policies (org_id, policy) VALUES ($1, $2::jsonb)
         ON CONFLICT (org_id) DO UPDATE SET policy = EXCLUDED.policy, updated_at = now()`,
        [bob.orgId, JSON.stringify(p)],
      );
    const issue = () =>
      bob.api("POST", "/api/v1/write/issue-asset", {
        body: { assetType: "Bond", name: "Kept", description: "policy kept" },
      });
    const [token] = await tokens(bob, 1); // bob's policy (none) is read and kept
    assert.equal((await issue()).status, 200);

    // A rule now holds every issuance: the next one is held, not recorded.
    await setBehind(
      policy({ approvals: [{ kinds: ["issue-asset"], when: "always", approvers: 1 }] }),
    );
    const rowsBefore = await stack.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions WHERE org_id = $1`,
      [bob.orgId],
    );
    const held = await issue();
    assert.equal(held.status, 202, held.text);
    assert.equal(held.body.status, "pending_approval");
    const rowsAfter = await stack.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions WHERE org_id = $1`,
      [bob.orgId],
    );
    assert.equal(rowsAfter.rows[0]!.n, rowsBefore.rows[0]!.n, "nothing recorded");

    // An allowlist now refuses the stranger, though the kept policy allows any destination.
    await setBehind(
      policy({
        destinations: { mode: "allowlist", allowlist: [{ address: treasury, label: "T" }] },
      }),
    );
    const refused = await transfer(bob, token!, stranger);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.error, /is not on the organization's allowlist$/);

    // The allowlist now lets the stranger in, though the kept one refuses it: allowed.
    await setBehind(
      policy({
        destinations: {
          mode: "allowlist",
          allowlist: [
            { address: treasury, label: "T" },
            { address: stranger, label: "S" },
          ],
        },
      }),
    );
    const allowed = await transfer(bob, token!, stranger);
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(await stack.token.ownerOf(token!), stranger);
  });
});
