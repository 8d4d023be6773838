/**
 * `npm run bench -- people`: sign-in latency (email, password and TOTP: one scrypt verification,
 * the TOTP check and the session insert) and approval-to-mined latency (a transfer the policy
 * holds: from the approver's `POST /api/v1/transactions/{id}/approve` to `confirmed` on
 * `GET /api/v1/transactions/{id}`) on anvil with 1 s blocks. Prints p50 and p95; no assertion.
 */
import { randomBytes } from "node:crypto";
import { Wallet } from "ethers";
import { startIndexer } from "../relayer/src/indexer/start-indexer.js";
import { totpCode } from "../relayer/src/people/totp.js";
import { startTestStack } from "../test/support/stack.js";
import {
  accept,
  addPerson,
  email,
  registerWithOwner,
  signIn,
} from "../test/relayer/people/people-helpers.js";
import { percentile } from "./support/percentile.js";
import { runAsScript } from "./support/run-as-script.js";

const SIGN_INS = 12;
const APPROVALS = 10;

const ms = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(0)} ms, p95 ${percentile(values, 95).toFixed(0)} ms (n=${values.length})`;

export async function runPeopleBench(): Promise<void> {
  console.log("Starting anvil (1 s blocks), PostgreSQL, contracts and the relayer...");
  const stack = await startTestStack({ blockTime: 1, logLevel: "warn" });
  await stack.ctx.engine.start();
  const indexer = await startIndexer(stack.ctx, { lockPollMs: 200 });
  try {
    const ownerEmail = email("owner");
    const org = await registerWithOwner(stack, ownerEmail);
    const ownerEnrolled = await accept(stack, org.invitationUrl, ownerEmail);
    const owner = await signIn(stack, ownerEnrolled);

    // Sign-in: a code is accepted once, and `addPerson` used this step's: each person signs in
    // once more with the next step's code (the one-step window accepts it), so several people.
    const people = [];
    for (let i = 0; i < SIGN_INS; i++) people.push(await addPerson(stack, owner, "viewer"));
    const signInMs: number[] = [];
    for (const who of people) {
      const code = totpCode(who.secret, who.email, Date.now() + 30_000);
      const t0 = performance.now();
      const res = await stack.api("POST", "/api/console/session", {
        body: { email: who.email, password: who.password, totp: code },
      });
      signInMs.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${res.text}`);
    }

    // Approval to mined: transfers the policy holds, approved one at a time.
    const approver = await addPerson(stack, owner, "approver");
    const keyApi = (method: string, path: string, body?: unknown) =>
      stack.api<Record<string, unknown>>(method, path, {
        apiKey: org.apiKey,
        ...(body === undefined ? {} : { body }),
      });
    const issued = await keyApi("POST", "/api/v1/write/batch-issue", {
      assets: Array.from({ length: APPROVALS }, (_, i) => ({
        assetType: "Bond",
        name: `Bench ${randomBytes(2).toString("hex")} ${i}`,
        description: "approval bench",
      })),
    });
    if (issued.status !== 200) throw new Error(`issue: ${issued.status} ${issued.text}`);
    const tokens = (issued.body.results as Array<{ tokenId: string }>).map((r) =>
      String(r.tokenId),
    );
    const policy = await owner.api("PUT", "/api/enterprise/policy", {
      body: {
        destinations: { mode: "any", allowlist: [] },
        limits: { transfersPerDay: null },
        approvals: [{ kinds: ["transfer"], when: "always", approvers: 1 }],
      },
    });
    if (policy.status !== 200) throw new Error(`policy: ${policy.status} ${policy.text}`);
    const approvalMs: number[] = [];
    for (const tokenId of tokens) {
      const held = await keyApi("POST", "/api/v1/write/transfer", {
        tokenId,
        toAddress: Wallet.createRandom().address,
      });
      if (held.status !== 202) throw new Error(`hold: ${held.status} ${held.text}`);
      const id = held.body.transactionId as string;
      const t0 = performance.now();
      const approved = await approver.api("POST", `/api/v1/transactions/${id}/approve`);
      if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${approved.text}`);
      for (;;) {
        const res = await keyApi("GET", `/api/v1/transactions/${id}`);
        if (res.body.status === "confirmed") break;
        if (performance.now() - t0 > 60_000) throw new Error(`not mined: ${res.text}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      approvalMs.push(performance.now() - t0);
    }
    console.log(`sign-in (email, password, TOTP): ${ms(signInMs)}`);
    console.log(`approval to mined (1 s blocks): ${ms(approvalMs)}`);
  } finally {
    await indexer.stop();
    await stack.ctx.engine.stop();
    await stack.stop();
  }
}

runAsScript(import.meta.url, runPeopleBench);
