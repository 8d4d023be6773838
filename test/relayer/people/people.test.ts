import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Wallet } from "ethers";
import { totpCode } from "../../../relayer/src/people/totp.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import {
  accept,
  addPerson,
  email,
  PASSWORD,
  registerWithOwner,
  signIn,
  signInWithCode,
  tokenOf,
  type Enrolled,
  type SignedIn,
} from "./people-helpers.js";

/**
 * People (docs/people.md) against a real PostgreSQL: the first owner's invitation at
 * registration, accepting an invitation (password and TOTP enrollment, single use, 72 h), signing
 * in with email, password and TOTP (one answer for every wrong credential, a code accepted once,
 * throttling), inviting, listing, changing roles and removing people, a signed-in owner changing
 * the policy, and the audit log naming the person.
 */
describe("people: invitations, sign-in, roles (PostgreSQL)", () => {
  let stack: TestStack;
  let org: { orgId: string; apiKey: string; invitationUrl: string };
  let ownerEnrolled: Enrolled;
  let owner: SignedIn;
  const ownerEmail = email("owner");

  before(async () => {
    stack = await startTestStack({ logLevel: "debug" });
    org = await registerWithOwner(stack, ownerEmail);
  });
  after(() => stack?.stop());

  it("registration with ownerEmail answers a single-use invitation URL carrying ?token=, valid 72 hours", async () => {
    const url = new URL(org.invitationUrl);
    assert.equal(url.pathname, "/console/accept-invitation");
    assert.match(url.searchParams.get("token") ?? "", /^[A-Za-z0-9_-]{43}$/);
    const { rows } = await stack.database.pool.query<{ hours: number; token_hash: string }>(
      `SELECT extract(epoch FROM (i.expires_at - i.created_at)) / 3600 AS hours, i.token_hash
         FROM invitations i JOIN users u ON u.id = i.user_id WHERE u.org_id = $1`,
      [org.orgId],
    );
    assert.equal(Math.round(Number(rows[0]!.hours)), 72);
    assert.notEqual(rows[0]!.token_hash, tokenOf(org.invitationUrl), "only a hash is stored");
  });

  it("accepting refuses a short password (the invitation stays usable), then enrolls TOTP once; a second use is 410", async () => {
    const short = await stack.api("POST", "/api/console/invitations/accept", {
      body: { token: tokenOf(org.invitationUrl), password: "short" },
    });
    assert.equal(short.status, 400, short.text);
    assert.equal(short.body.error, "Invalid field: password (must be 12 to 256 characters)");
    const res = await stack.api("POST", "/api/console/invitations/accept", {
      body: { token: tokenOf(org.invitationUrl), password: PASSWORD },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.email, ownerEmail);
    assert.match(res.body.totp.secret, /^[A-Z2-7]{32}$/);
    assert.match(res.body.totp.otpauthUri, /^otpauth:\/\/totp\//);
    ownerEnrolled = { email: ownerEmail, password: PASSWORD, secret: res.body.totp.secret };
    const again = await stack.api("POST", "/api/console/invitations/accept", {
      body: { token: tokenOf(org.invitationUrl), password: PASSWORD },
    });
    assert.equal(again.status, 410, again.text);
    assert.equal(again.body.error, "Invitation already used");
    const unknown = await stack.api("POST", "/api/console/invitations/accept", {
      body: { token: "A".repeat(43), password: PASSWORD },
    });
    assert.equal(unknown.status, 404, unknown.text);
    const { rows } = await stack.database.pool.query(
      `SELECT password_hash, totp_secret_sealed FROM users WHERE email = $1`,
      [ownerEmail],
    );
    assert.match(rows[0].password_hash, /^scrypt\$131072\$8\$1\$/);
    assert.ok(!String(rows[0].totp_secret_sealed).includes(ownerEnrolled.secret), "sealed");
  });

  it("an unknown email, a wrong password and a wrong code answer the same 401 Invalid credentials", async () => {
    const attempts = [
      { email: email("nobody"), password: PASSWORD, totp: "123456" },
      {
        email: ownerEmail,
        password: "wrong password!!",
        totp: totpCode(ownerEnrolled.secret, ownerEmail),
      },
      {
        email: ownerEmail,
        password: PASSWORD,
        totp: totpCode(ownerEnrolled.secret, ownerEmail, Date.now() + 5 * 60_000),
      },
    ];
    for (const body of attempts) {
      const res = await stack.api("POST", "/api/console/session", { body });
      assert.equal(res.status, 401, res.text);
      assert.deepEqual(res.body, { error: "Invalid credentials" });
      assert.equal(res.headers.get("set-cookie"), null);
    }
  });

  it("email, password and TOTP sign in (email in any case); the same code is not accepted twice", async () => {
    // The replay sends the very same code: one computed again later could belong to the next
    // 30 s step, which is a new code and rightly accepted.
    const code = totpCode(ownerEnrolled.secret, ownerEmail);
    owner = await signInWithCode(
      stack,
      { ...ownerEnrolled, email: ownerEmail.toUpperCase() },
      code,
    );
    assert.equal(owner.role, "owner");
    const who = await owner.api("GET", "/api/console/session");
    assert.equal(who.status, 200, who.text);
    assert.equal(who.body.person.email, ownerEmail);
    assert.equal(who.body.orgId, org.orgId);
    const replay = await stack.api("POST", "/api/console/session", {
      body: {
        email: ownerEmail,
        password: PASSWORD,
        totp: code,
      },
    });
    assert.equal(replay.status, 401, replay.text);
    assert.equal(replay.body.error, "Invalid credentials");
  });

  it("a signed-in owner sets the policy (CSRF-checked); malformed ones answer 400 and change nothing", async () => {
    const treasury = Wallet.createRandom().address;
    const policy = {
      destinations: { mode: "allowlist", allowlist: [{ address: treasury, label: "Treasury" }] },
      limits: { transfersPerDay: 5 },
      approvals: [],
    };
    const noCsrf = await stack.api("PUT", "/api/enterprise/policy", {
      body: policy,
      headers: { cookie: owner.cookie, origin: stack.baseUrl },
    });
    assert.equal(noCsrf.status, 403, noCsrf.text);
    assert.equal(noCsrf.body.error, "CSRF check failed");
    const res = await owner.api("PUT", "/api/enterprise/policy", { body: policy });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.limits.transfersPerDay, 5);
    const bad: Array<[unknown, string]> = [
      [
        {
          ...policy,
          destinations: { mode: "allowlist", allowlist: [{ address: "0x1234", label: "x" }] },
        },
        "Invalid field: destinations.allowlist.0.address (not a 0x address)",
      ],
      [
        { ...policy, approvals: [{ kinds: ["teleport"], when: "always", approvers: 1 }] },
        "Invalid field: approvals.0.kinds.0 (must be one of issue-asset, batch-issue, transfer, list, buy, delist, redeem-asset, register-asset-type)",
      ],
      [
        { ...policy, approvals: [{ kinds: ["transfer"], when: "always", approvers: 3 }] },
        "Invalid field: approvals.0.approvers (must be 1 or 2)",
      ],
      [{ destinations: policy.destinations, approvals: [] }, "Missing required field: limits"],
    ];
    for (const [body, error] of bad) {
      const refused = await owner.api("PUT", "/api/enterprise/policy", { body });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error, error);
    }
    const read = await stack.api("GET", "/api/enterprise/policy", { apiKey: org.apiKey });
    assert.deepEqual(read.body.destinations.allowlist, [{ address: treasury, label: "Treasury" }]);
    assert.equal(read.body.limits.transfersPerDay, 5);
  });

  it("the audit log names the person (user id and email) for a console act", async () => {
    const res = await stack.api("GET", "/api/enterprise/audit-log?action=policy.changed", {
      apiKey: org.apiKey,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.length, 1);
    assert.equal(res.body.data[0].actor, `${owner.userId} (${ownerEmail})`);
  });

  it("a person lists their own sessions and ends one; an ended one is 404, and a key cannot list them", async () => {
    const second = await signIn(stack, ownerEnrolled, 1);
    const listed = await owner.api("GET", "/api/console/sessions");
    assert.equal(listed.status, 200, listed.text);
    const sessions = listed.body.sessions as Array<{ sessionId: string; current: boolean }>;
    assert.equal(sessions.length, 2);
    assert.equal(sessions.filter((x) => x.current).length, 1);
    const other = sessions.find((x) => !x.current)!;
    const byKey = await stack.api("GET", "/api/console/sessions", { apiKey: org.apiKey });
    assert.equal(byKey.status, 403, byKey.text);
    const ended = await owner.api("DELETE", `/api/console/sessions/${other.sessionId}`);
    assert.equal(ended.status, 200, ended.text);
    assert.equal((await second.api("GET", "/api/console/session")).status, 401);
    assert.equal((await owner.api("GET", "/api/console/session")).status, 200);
    const again = await owner.api("DELETE", `/api/console/sessions/${other.sessionId}`);
    assert.equal(again.status, 404, again.text);
    assert.equal(again.body.error, "Session not found");
  });

  describe("inviting, listing, changing roles and removing", () => {
    let admin: SignedIn & Enrolled;
    let viewer: SignedIn & Enrolled;

    before(async () => {
      admin = await addPerson(stack, owner, "admin");
      viewer = await addPerson(stack, owner, "viewer");
    });

    it("an admin invites but not an owner; an API key cannot invite at all", async () => {
      const asAdmin = await admin.api("POST", "/api/enterprise/users", {
        body: { email: email("second-owner"), role: "owner" },
      });
      assert.equal(asAdmin.status, 403, asAdmin.text);
      assert.equal(asAdmin.body.error, "Only an owner can invite an owner");
      const developer = await admin.api("POST", "/api/enterprise/users", {
        body: { email: email("dev"), role: "developer" },
      });
      assert.equal(developer.status, 200, developer.text);
      assert.equal(developer.body.role, "developer");
      const byKey = await stack.api("POST", "/api/enterprise/users", {
        apiKey: org.apiKey,
        body: { email: email("x"), role: "viewer" },
      });
      assert.equal(byKey.status, 403, byKey.text);
      const taken = await owner.api("POST", "/api/enterprise/users", {
        body: { email: admin.email, role: "viewer" },
      });
      assert.equal(taken.status, 409, taken.text);
    });

    it("GET /api/enterprise/users lists the organization's people, invited ones marked", async () => {
      const res = await owner.api("GET", "/api/enterprise/users");
      assert.equal(res.status, 200, res.text);
      const byEmail = new Map(
        (res.body.users as Array<{ email: string; role: string; status: string }>).map((u) => [
          u.email,
          u,
        ]),
      );
      assert.equal(byEmail.get(ownerEmail)?.status, "active");
      assert.equal(byEmail.get(admin.email)?.role, "admin");
      assert.ok(
        [...byEmail.values()].some((u) => u.status === "invited" && u.role === "developer"),
      );
      for (const u of res.body.users)
        assert.deepEqual(Object.keys(u).sort(), ["createdAt", "email", "role", "status", "userId"]);
    });

    it("another organization's person answers 404", async () => {
      const otherEmail = email("other-owner");
      const other = await registerWithOwner(stack, otherEmail);
      const enrolled = await accept(stack, other.invitationUrl, otherEmail);
      const otherOwner = await signIn(stack, enrolled);
      for (const [method, body] of [
        ["PATCH", { role: "viewer" }],
        ["DELETE", undefined],
      ] as const) {
        const res = await otherOwner.api(method, `/api/enterprise/users/${admin.userId}`, {
          ...(body === undefined ? {} : { body }),
        });
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error, "Person not found");
      }
    });

    it("changing a role ends that person's sessions; an admin cannot change roles", async () => {
      const byAdmin = await admin.api("PATCH", `/api/enterprise/users/${viewer.userId}`, {
        body: { role: "admin" },
      });
      assert.equal(byAdmin.status, 403, byAdmin.text);
      const res = await owner.api("PATCH", `/api/enterprise/users/${admin.userId}`, {
        body: { role: "approver" },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.role, "approver");
      assert.equal((await admin.api("GET", "/api/console/session")).status, 401);
    });

    it("removing a person ends their sessions; the last owner cannot be removed or demoted", async () => {
      assert.equal((await viewer.api("GET", "/api/console/session")).status, 200);
      const res = await owner.api("DELETE", `/api/enterprise/users/${viewer.userId}`);
      assert.equal(res.status, 200, res.text);
      assert.equal((await viewer.api("GET", "/api/console/session")).status, 401);
      const signInAgain = await stack.api("POST", "/api/console/session", {
        body: {
          email: viewer.email,
          password: PASSWORD,
          totp: totpCode(viewer.secret, viewer.email, Date.now() + 30_000),
        },
      });
      assert.equal(signInAgain.status, 401, signInAgain.text);
      const removeSelf = await owner.api("DELETE", `/api/enterprise/users/${owner.userId}`);
      assert.equal(removeSelf.status, 409, removeSelf.text);
      assert.equal(removeSelf.body.error, "An organization keeps at least one owner");
      const demoteSelf = await owner.api("PATCH", `/api/enterprise/users/${owner.userId}`, {
        body: { role: "admin" },
      });
      assert.equal(demoteSelf.status, 409, demoteSelf.text);
    });

    it("the audit log records invitations, role changes and removals with the acting person", async () => {
      const res = await stack.api("GET", "/api/enterprise/audit-log?limit=100", {
        apiKey: org.apiKey,
      });
      const rows = res.body.data as Array<{
        action: string;
        actor: string;
        changes: Record<string, unknown>;
      }>;
      const removal = rows.find((r) => r.action === "user.removed");
      assert.equal(removal?.actor, `${owner.userId} (${ownerEmail})`);
      assert.equal(removal?.changes.email, viewer.email);
      assert.ok(rows.some((r) => r.action === "user.role_changed"));
      assert.ok(
        rows.some(
          (r) => r.action === "user.invited" && r.actor === `${admin.userId} (${admin.email})`,
        ),
      );
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(PASSWORD) && !text.includes(admin.secret), "no secret in the log");
    });
  });

  it("signing in to the console with an API key or the admin token is off unless CONSOLE_KEY_SIGN_IN=on", async () => {
    // The test stack turns the development setting on; production's default is off.
    stack.ctx.config.consoleKeySignIn = undefined;
    try {
      for (const body of [{ apiKey: org.apiKey }, { adminToken: stack.adminToken }]) {
        const res = await stack.api("POST", "/api/console/session", { body });
        assert.equal(res.status, 403, res.text);
        assert.equal(
          res.body.error,
          "Signing in with an API key or the admin token is off: sign in as a person",
        );
        assert.equal(res.headers.get("set-cookie"), null);
      }
    } finally {
      stack.ctx.config.consoleKeySignIn = true;
    }
    const withKey = await stack.api("POST", "/api/console/session", {
      body: { apiKey: org.apiKey },
    });
    assert.equal(withKey.status, 200, withKey.text);
  });

  it("an expired invitation answers 410", async () => {
    const address = email("late");
    const res = await owner.api("POST", "/api/enterprise/users", {
      body: { email: address, role: "viewer" },
    });
    assert.equal(res.status, 200, res.text);
    await stack.database.pool.query(
      `UPDATE invitations SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
      [res.body.userId],
    );
    const late = await stack.api("POST", "/api/console/invitations/accept", {
      body: { token: tokenOf(res.body.invitation.url), password: PASSWORD },
    });
    assert.equal(late.status, 410, late.text);
    assert.equal(late.body.error, "Invitation expired");
  });

  it("after 5 failed sign-ins an account answers 429 with Retry-After, even with the right credentials", async () => {
    const address = email("throttled");
    const res = await owner.api("POST", "/api/enterprise/users", {
      body: { email: address, role: "viewer" },
    });
    const enrolled = await accept(stack, res.body.invitation.url, address);
    for (let i = 0; i < 5; i++) {
      const wrong = await stack.api("POST", "/api/console/session", {
        body: { email: address, password: "not the password", totp: "000000" },
      });
      assert.equal(wrong.status, 401, wrong.text);
    }
    const right = await stack.api("POST", "/api/console/session", {
      body: { email: address, password: PASSWORD, totp: totpCode(enrolled.secret, address) },
    });
    assert.equal(right.status, 429, right.text);
    assert.equal(right.body.error, "Too many sign-in attempts; try again later");
    const retryAfter = Number(right.headers.get("retry-after"));
    assert.ok(retryAfter > 0 && retryAfter <= 15 * 60, String(retryAfter));
  });
  it("after 20 failed sign-ins from one address, that address answers 429 for any account", async () => {
    const address = email("fresh");
    const res = await owner.api("POST", "/api/enterprise/users", {
      body: { email: address, role: "viewer" },
    });
    const enrolled = await accept(stack, res.body.invitation.url, address);
    const { rows } = await stack.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sign_in_failures WHERE subject = 'ip:127.0.0.1'`,
    );
    // Failures so far in this file came from here too; each unknown email counts once per account.
    for (let i = rows[0]!.n; i < 20; i++) {
      const wrong = await stack.api("POST", "/api/console/session", {
        body: { email: email(`guess${i}`), password: "not the password", totp: "000000" },
      });
      assert.equal(wrong.status, 401, wrong.text);
    }
    const right = await stack.api("POST", "/api/console/session", {
      body: { email: address, password: PASSWORD, totp: totpCode(enrolled.secret, address) },
    });
    assert.equal(right.status, 429, right.text);
    assert.ok(Number(right.headers.get("retry-after")) > 0);
  });
  it("no password, TOTP secret or invitation token reaches the logs", () => {
    const logs = stack.logText();
    assert.ok(logs.length > 0);
    for (const secret of [PASSWORD, ownerEnrolled.secret, tokenOf(org.invitationUrl)])
      assert.ok(!logs.includes(secret), "a secret was logged");
  });
});
