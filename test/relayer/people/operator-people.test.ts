import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Wallet } from "ethers";
import { inviteOperator } from "../../../relayer/src/people/operator-people.js";
import { SYSTEM_ORIGIN } from "../../../relayer/src/audit/audit-writer.js";
import type { OperatorRole } from "../../../relayer/src/domain/person.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStackWithOrgs, type WriteStack } from "../writes/helpers.js";
import {
  accept,
  addPerson,
  email,
  registerWithOwner,
  signIn,
  type Enrolled,
  type SignedIn,
} from "./people-helpers.js";

/**
 * Operator staff are people (docs/people.md "Operator staff" and "Operator four-eyes"):
 * `npm run operator -- invite` prints a one-time link; the operator person accepts it and signs in
 * with password and TOTP like an organization's; operator routes take their session by role
 * (`support` reads only); a forced transfer, freeze or unfreeze waits for a second operator person
 * (compliance or operator-admin), never the one who asked, and one asked for with the admin token
 * waits for one person; the audit log names the operator person. One real anvil and PostgreSQL.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const run = promisify(execFile);

describe("operator people and four-eyes (anvil + PostgreSQL)", { timeout: 240_000 }, () => {
  let stack: WriteStack;
  let org: TestOrg;
  let admin: SignedIn; // operator-admin, invited with the command line
  let compliance: SignedIn;
  let support: SignedIn;

  /** The command line tool against this test's database. */
  const operatorCli = (args: string[]) =>
    run(process.execPath, ["--import", "tsx", "relayer/src/operator.ts", ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: stack.testDatabase.url,
        PUBLIC_BASE_URL: stack.baseUrl,
        LOG_LEVEL: "silent",
      },
    });

  /** An operator person invited (without the command line), enrolled and signed in. */
  const operatorPerson = async (role: OperatorRole): Promise<SignedIn & Enrolled> => {
    const address = email(role);
    const invited = await inviteOperator(
      stack.database,
      { email: address, role },
      SYSTEM_ORIGIN,
      stack.baseUrl,
    );
    const enrolled = await accept(stack, invited.invitation.url, address);
    return { ...(await signIn(stack, enrolled)), ...enrolled };
  };

  const issue = async () => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(res.status, 200, res.text);
    return (res.body as { tokenId: string }).tokenId;
  };

  const auditRows = async (action: string) => {
    const res = await stack.api("GET", `/api/enterprise/audit-log?action=${action}`, {
      adminToken: stack.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Array<{
      actor: string;
      target: string;
      changes: Record<string, unknown>;
    }>;
  };

  before(async () => {
    [stack, org] = await startWriteStackWithOrgs(1);
  });
  after(() => stack?.stop());

  test("npm run operator -- invite prints a one-time link; the operator person accepts it and signs in with password and TOTP", async () => {
    const address = email("ops-admin");
    const { stdout } = await operatorCli(["invite", address, "--role", "operator-admin"]);
    const url = /^(http\S+accept-invitation\?token=\S+)$/m.exec(stdout)?.[1];
    assert.ok(url !== undefined, stdout);
    assert.ok(url.startsWith(`${stack.baseUrl}/console/accept-invitation?token=`), url);
    const enrolled = await accept(stack, url, address);
    // Single use: the same link again is 410.
    const again = await stack.api("POST", "/api/console/invitations/accept", {
      body: { token: new URL(url).searchParams.get("token"), password: enrolled.password },
    });
    assert.equal(again.status, 410, again.text);
    admin = await signIn(stack, enrolled);
    assert.equal(admin.role, "operator-admin");
    const session = await admin.api("GET", "/api/console/session");
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.kind, "operator");
    assert.equal(session.body.orgId, null);
    assert.deepEqual(session.body.person, {
      userId: admin.userId,
      email: address,
      role: "operator-admin",
    });
    // An operator route takes the session.
    const orgs = await admin.api("GET", "/api/enterprise/orgs");
    assert.equal(orgs.status, 200, orgs.text);
    // Its own sessions are listed like an organization's person's.
    const mine = await admin.api("GET", "/api/console/sessions");
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.body.sessions.length, 1);
  });

  test("the command line refuses an unknown role (exit 2) and an email already taken (exit 1)", async () => {
    await assert.rejects(operatorCli(["invite", email(), "--role", "owner"]), (error: unknown) => {
      const failed = error as { code: number; stderr: string };
      assert.equal(failed.code, 2);
      assert.match(failed.stderr, /--role must be one of operator-admin, compliance, support/);
      return true;
    });
    await assert.rejects(
      operatorCli(["invite", admin.email, "--role", "support"]),
      (error: unknown) => {
        const failed = error as { code: number; stderr: string };
        assert.equal(failed.code, 1);
        assert.match(failed.stderr, /A person with this email already exists/);
        return true;
      },
    );
  });

  test("support reads but changes nothing; an operator person is not an organization's person", async () => {
    support = await operatorPerson("support");
    compliance = await operatorPerson("compliance");
    assert.equal((await support.api("GET", "/api/enterprise/orgs")).status, 200);
    assert.equal((await support.api("GET", "/api/enterprise/operator-requests")).status, 200);
    const freeze = await support.api("POST", "/api/enterprise/assets/1/freeze", {
      body: { reason: "x" },
    });
    assert.equal(freeze.status, 403, freeze.text);
    assert.equal(freeze.body.error, "Not allowed for role support");
    // Compliance staff may not change an organization's plan; operator-admin may.
    const plan = await compliance.api("PATCH", `/api/enterprise/orgs/${org.orgId}`, {
      body: { plan: "enterprise" },
    });
    assert.equal(plan.status, 403, plan.text);
    assert.equal(
      (
        await admin.api("PATCH", `/api/enterprise/orgs/${org.orgId}`, {
          body: { plan: "enterprise" },
        })
      ).status,
      200,
    );
    // An organization's routes are not theirs.
    const people = await admin.api("GET", "/api/enterprise/users");
    assert.equal(people.status, 403, people.text);
    const keys = await admin.api("GET", "/api/enterprise/keys");
    assert.equal(keys.status, 401, keys.text);
  });

  test("a forced transfer asked by one operator person waits; the same person and support are refused; a compliance person approves and it is carried out, audited with both emails", async () => {
    const tokenId = await issue();
    const to = Wallet.createRandom().address;
    const asked = await admin.api("POST", `/api/enterprise/assets/${tokenId}/forced-transfer`, {
      body: { toAddress: to, reason: "court order 42" },
    });
    assert.equal(asked.status, 202, asked.text);
    assert.equal(asked.body.status, "pending_approval");
    assert.equal(asked.body.kind, "forced-transfer");
    assert.equal(asked.body.requestedBy, `${admin.userId} (${admin.email})`);
    const requestId = asked.body.requestId as string;
    assert.equal(asked.headers.get("location"), `/api/enterprise/operator-requests/${requestId}`);
    // Nothing moved yet.
    assert.equal(await stack.token.ownerOf(tokenId), org.walletAddress);
    const listed = await support.api("GET", "/api/enterprise/operator-requests");
    assert.ok(listed.body.requests.some((r: { requestId: string }) => r.requestId === requestId));

    const self = await admin.api("POST", `/api/enterprise/operator-requests/${requestId}/approve`);
    assert.equal(self.status, 403, self.text);
    assert.equal(
      self.body.error,
      "The operator person who requested an act cannot approve or reject it",
    );
    const bySupport = await support.api(
      "POST",
      `/api/enterprise/operator-requests/${requestId}/approve`,
    );
    assert.equal(bySupport.status, 403, bySupport.text);
    const byToken = await stack.api(
      "POST",
      `/api/enterprise/operator-requests/${requestId}/approve`,
      {
        adminToken: stack.adminToken,
      },
    );
    assert.equal(byToken.status, 403, byToken.text);
    assert.equal(await stack.token.ownerOf(tokenId), org.walletAddress);

    const approved = await compliance.api(
      "POST",
      `/api/enterprise/operator-requests/${requestId}/approve`,
    );
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, "executed");
    assert.equal(approved.body.decidedBy, `${compliance.userId} (${compliance.email})`);
    assert.equal(approved.body.result.to, to);
    assert.match(approved.body.result.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(await stack.token.ownerOf(tokenId), to);
    const twice = await compliance.api(
      "POST",
      `/api/enterprise/operator-requests/${requestId}/approve`,
    );
    assert.equal(twice.status, 409, twice.text);
    assert.equal(twice.body.error, "Operator request is executed");

    // The audit log names the operator people, never `admin`.
    const moved = (await auditRows("asset.forced_transfer")).find((r) => r.target === tokenId);
    assert.equal(moved?.actor, `${compliance.userId} (${compliance.email})`);
    const created = (await auditRows("operator_request.created")).find(
      (r) => r.target === requestId,
    );
    assert.equal(created?.actor, `${admin.userId} (${admin.email})`);
    const decided = (await auditRows("operator_request.approved")).find(
      (r) => r.target === requestId,
    );
    assert.equal(decided?.actor, `${compliance.userId} (${compliance.email})`);
    assert.equal(decided?.changes.requestedBy, `${admin.userId} (${admin.email})`);
  });

  test("a freeze asked with the admin token waits for one operator person; a rejected or expired request is 409", async () => {
    const tokenId = await issue();
    const asked = await stack.api("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      adminToken: stack.adminToken,
      body: { reason: "dispute" },
    });
    assert.equal(asked.status, 202, asked.text);
    assert.equal(asked.body.requestedBy, "admin");
    assert.equal(await stack.token.isFrozen(tokenId), false);
    const approved = await admin.api(
      "POST",
      `/api/enterprise/operator-requests/${asked.body.requestId}/approve`,
    );
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, "executed");
    assert.equal(approved.body.result.frozen, true);
    assert.equal(await stack.token.isFrozen(tokenId), true);
    const frozen = (await auditRows("asset.frozen")).find((r) => r.target === tokenId);
    assert.equal(frozen?.actor, `${admin.userId} (${admin.email})`);

    const unfreeze = await compliance.api("POST", `/api/enterprise/assets/${tokenId}/unfreeze`, {
      body: { reason: "resolved" },
    });
    assert.equal(unfreeze.status, 202, unfreeze.text);
    const rejected = await admin.api(
      "POST",
      `/api/enterprise/operator-requests/${unfreeze.body.requestId}/reject`,
    );
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.status, "rejected");
    const late = await admin.api(
      "POST",
      `/api/enterprise/operator-requests/${unfreeze.body.requestId}/approve`,
    );
    assert.equal(late.status, 409, late.text);
    assert.equal(late.body.error, "Operator request is rejected");
    assert.equal(await stack.token.isFrozen(tokenId), true);

    // APPROVAL_EXPIRY_SECONDS: a request asked with a 1 ms expiry has expired when approved.
    stack.ctx.config.approvalExpiryMs = 1;
    let expiring;
    try {
      expiring = await compliance.api("POST", `/api/enterprise/assets/${tokenId}/unfreeze`, {
        body: { reason: "resolved" },
      });
    } finally {
      delete stack.ctx.config.approvalExpiryMs;
    }
    assert.equal(expiring.status, 202, expiring.text);
    const expired = await admin.api(
      "POST",
      `/api/enterprise/operator-requests/${expiring.body.requestId}/approve`,
    );
    assert.equal(expired.status, 409, expired.text);
    assert.equal(expired.body.error, "Operator request is expired");
    const read = await support.api(
      "GET",
      `/api/enterprise/operator-requests/${expiring.body.requestId}`,
    );
    assert.equal(read.body.status, "expired");
  });

  test("an act asked for an asset that does not exist, or with a bad address, answers at once and leaves no request", async () => {
    const count = async () =>
      Number(
        (
          await stack.database.pool.query<{ n: string }>(
            "SELECT count(*) AS n FROM operator_requests",
          )
        ).rows[0]!.n,
      );
    const before = await count();
    const missing = await admin.api("POST", "/api/enterprise/assets/999999/freeze", {
      body: { reason: "x" },
    });
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.body.error, "Asset not found");
    const bad = await admin.api("POST", "/api/enterprise/assets/1/forced-transfer", {
      body: { toAddress: "0x1234", reason: "x" },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(await count(), before);
    const unknown = await admin.api("GET", "/api/enterprise/operator-requests/opr_doesnotexist");
    assert.equal(unknown.status, 404, unknown.text);
  });

  test("an organization's owner cannot approve an operator request, and an operator person is refused an organization's approvals", async () => {
    const ownerEmail = email("owner");
    const registered = await registerWithOwner(stack, ownerEmail);
    const owner = await signIn(stack, await accept(stack, registered.invitationUrl, ownerEmail));
    const approver = await addPerson(stack, owner, "approver");
    const asked = await admin.api("POST", `/api/enterprise/assets/${await issue()}/freeze`, {
      body: { reason: "x" },
    });
    assert.equal(asked.status, 202, asked.text);
    for (const person of [owner, approver]) {
      const res = await person.api(
        "POST",
        `/api/enterprise/operator-requests/${asked.body.requestId}/approve`,
      );
      assert.equal(res.status, 403, res.text);
    }
    const held = await compliance.api("POST", "/api/v1/transactions/tx_doesnotexist/approve");
    assert.equal(held.status, 403, held.text);
  });
});
