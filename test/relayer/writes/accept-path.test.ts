import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type {
  CustodialWalletRef,
  DigestSigner,
} from "../../../relayer/src/wallets/signer-backend.js";
import { DEFAULT_WRITE_ADMISSION } from "../../../relayer/src/config.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStackWithOrgs, waitForStatus, type WriteStack } from "./helpers.js";

const ASYNC = { Prefer: "respond-async" };

/**
 * The accept path (docs/scaling.md, "The accept path"): a write is answered without waiting for
 * the engine, refused at once with 429 and `Retry-After` over the admission bounds (and then not
 * recorded), and a sync write cut by its deadline answers 202 with its id. Real anvil and
 * PostgreSQL; the engine's signer is held shut by a gate, so every write stays unsent until the
 * test lets it go.
 */
describe("the accept path does not wait for the engine (anvil + PostgreSQL, signer gated)", () => {
  let stack: WriteStack;
  let orgA: TestOrg;
  let orgB: TestOrg;
  /** Signings waiting at the gate, and the gate's opener (undefined: open). */
  let waiting = 0;
  let open: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();
  const shut = () => {
    gate = new Promise((resolve) => (open = resolve));
  };
  const letGo = () => {
    open?.();
    open = undefined;
  };

  before(async () => {
    [stack, orgA, orgB] = await startWriteStackWithOrgs(2);
    // Every signing of the engine goes through the signer router: hold it at the gate.
    const signers = stack.ctx.signers;
    const original = signers.withDigestSigner.bind(signers);
    signers.withDigestSigner = async <T>(
      wallet: CustodialWalletRef,
      work: (sign: DigestSigner) => Promise<T>,
    ): Promise<T> => {
      waiting++;
      try {
        await gate;
      } finally {
        waiting--;
      }
      return original(wallet, work);
    };
  });
  after(() => {
    letGo();
    return stack?.stop();
  });
  beforeEach(() => {
    stack.ctx.config.writeAdmission = { ...DEFAULT_WRITE_ADMISSION };
  });

  const rowsOf = async (orgId: string) =>
    Number(
      (
        await stack.ctx.database.pool.query<{ n: string }>(
          "SELECT count(*)::text AS n FROM transactions WHERE org_id = $1",
          [orgId],
        )
      ).rows[0]!.n,
    );

  it("a burst of async writes is answered 202 while the engine cannot sign, then each is mined once", async () => {
    shut();
    const supplyBefore = await stack.token.totalSupply();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? orgA : orgB).api("POST", "/api/v1/write/issue-asset", {
          body: assetBody({ name: `Burst ${i}` }),
          headers: ASYNC,
        }),
      ),
    );
    // Every answer came while the signer was still shut: accepting never waited for sending.
    assert.ok(open !== undefined, "the gate is still shut");
    assert.ok(waiting >= 1, "the engine is waiting at the gate to sign");
    for (const res of answers) {
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.status, "queued");
    }
    letGo();
    const ids = answers.map((res) => res.body.transactionId as string);
    for (const [i, id] of ids.entries())
      await waitForStatus(i % 2 === 0 ? orgA : orgB, id, (b) => b.status === "confirmed", 60_000);
    assert.equal((await stack.token.totalSupply()) - supplyBefore, 40n);
  });

  it("a sync write cut by its deadline answers 202 with its transactionId, and is mined after", async () => {
    stack.ctx.config.writeAdmission = { ...DEFAULT_WRITE_ADMISSION, syncDeadlineMs: 500 };
    shut();
    const res = await orgA.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "Deadline" }),
    });
    assert.equal(res.status, 202, res.text);
    const id = res.body.transactionId as string;
    assert.match(id, /\S/);
    assert.equal(res.headers.get("x-transaction-id"), id);
    assert.ok(open !== undefined, "answered while the signer was shut");
    letGo();
    await waitForStatus(orgA, id, (b) => b.status === "confirmed", 60_000);
  });

  it("over the busy bound a write is refused on arrival, before its API key is looked up, and its place is given back with its answer", async () => {
    stack.ctx.config.writeAdmission = { ...DEFAULT_WRITE_ADMISSION, acceptConcurrency: 1 };
    const post = (apiKey: string) =>
      fetch(`${stack.baseUrl}/api/v1/write/issue-asset`, {
        method: "POST",
        headers: { "x-api-key": apiKey, "content-type": "application/json", ...ASYNC },
        body: JSON.stringify(assetBody({ name: "Busy" })),
      });
    // The one place is taken: a key that does not exist is not even looked at.
    const place = stack.ctx.admission.arrive();
    const refused = await post("ent_not_a_key");
    assert.equal(refused.status, 429);
    assert.deepEqual(await refused.json(), {
      error: "Service busy: too many write requests in progress",
    });
    assert.equal(refused.headers.get("retry-after"), "1");
    place.release();
    const unknown = await post("ent_not_a_key");
    assert.equal(unknown.status, 401);
    // That answer gave its place back: a real write gets it, and then the next one too.
    for (const name of ["Busy 1", "Busy 2"]) {
      const res = await orgA.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name }),
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
    }
    assert.equal(stack.ctx.admission.accepting, 0);
  });

  it("over the backlog bound a write is refused at once with 429 and Retry-After, and not recorded", async () => {
    shut();
    // The bound counts live writes of every organization: two are already waiting when it is set.
    const held = await Promise.all(
      ["Live 1", "Live 2"].map((name) =>
        orgA.api("POST", "/api/v1/write/issue-asset", {
          body: assetBody({ name }),
          headers: ASYNC,
        }),
      ),
    );
    for (const res of held) assert.equal(res.status, 202, res.text);
    // Both are live (unsent) and counted: by this process as recorded, or by a count since.
    stack.ctx.config.writeAdmission = { ...DEFAULT_WRITE_ADMISSION, queueMax: 2 };
    const before = await rowsOf(orgB.orgId);
    const refused = await orgB.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "Over" }),
      headers: { ...ASYNC, "Idempotency-Key": "over-the-backlog" },
    });
    assert.equal(refused.status, 429, refused.text);
    assert.deepEqual(refused.body, {
      error: "Service busy: the write backlog is full; writes are accepted again as it drains",
    });
    // The first refused is told the shortest wait (later ones are spread: unit/write-admission).
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal(refused.headers.get("x-transaction-id"), null);
    // Nothing of the refused write exists: no row, and its key is free for the retry.
    assert.equal(await rowsOf(orgB.orgId), before);
    stack.ctx.config.writeAdmission = { ...DEFAULT_WRITE_ADMISSION };
    letGo();
    const retry = await orgB.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "Over" }),
      headers: { ...ASYNC, "Idempotency-Key": "over-the-backlog" },
    });
    assert.equal(retry.status, 202, retry.text);
    await waitForStatus(
      orgB,
      retry.body.transactionId as string,
      (b) => b.status === "confirmed",
      60_000,
    );
  });
});
