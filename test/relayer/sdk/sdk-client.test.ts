import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import {
  ApiError,
  NetworkError,
  RwaClient,
  RwaOperatorClient,
  verifyWebhook,
  type RwaClientOptions,
} from "../../../relayer/sdk/index.js";
import { parseRetryAfter, retryDelayMs } from "../../../relayer/sdk/retry.js";
import { signatureHeaders } from "../../../relayer/src/webhooks/sign.js";
import { assertExponentialBackoff } from "../../support/assert-backoff.js";

interface Seen {
  method: string;
  url: string;
  at: number;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A scripted HTTP server: answers each request with the next reply of the script. */
async function scriptedServer(
  replies: Array<(res: ServerResponse) => void>,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        at: Date.now(),
        headers: req.headers,
        body,
      });
      const reply =
        replies.shift() ?? ((r: ServerResponse) => json(r, 500, { error: "script ended" }));
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, server };
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const KEY = `rwa_live_${"ab".repeat(32)}`;
const ISSUED = {
  success: true,
  tokenId: "1",
  txHash: "0x01",
  wallet: "0x0",
  owner: "0x0",
  assetType: "Bond",
  stakedAmount: "0.1",
  ipfsHash: "bafy",
};
const ASSET = { assetType: "Bond", name: "B", description: "d" };

describe("RwaClient retries, idempotency and errors (local scripted server)", () => {
  const servers: Server[] = [];
  after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  /** A scripted server (closed after the suite) and a client of it with `options` on top. */
  async function clientOf(
    replies: Array<(res: ServerResponse) => void>,
    options: Partial<RwaClientOptions> = {},
  ) {
    const s = await scriptedServer(replies);
    servers.push(s.server);
    return { s, client: new RwaClient({ apiKey: KEY, baseUrl: s.url, ...options }) };
  }

  it("429 then 503 then 200: waits at least Retry-After each time and reuses one Idempotency-Key", async () => {
    const { s, client } = await clientOf(
      [
        (r) => json(r, 429, { error: "Rate limit exceeded" }, { "retry-after": "1" }),
        (r) => json(r, 503, { error: "RPC unavailable" }, { "retry-after": "1" }),
        (r) => json(r, 200, ISSUED),
      ],
      { retryBaseDelayMs: 10 },
    );
    const result = await client.issueAsset(ASSET);
    assert.equal(result.tokenId, "1");
    assert.equal(s.seen.length, 3);
    assert.ok(
      s.seen[1]!.at - s.seen[0]!.at >= 990,
      `first wait ${s.seen[1]!.at - s.seen[0]!.at} ms`,
    );
    assert.ok(
      s.seen[2]!.at - s.seen[1]!.at >= 990,
      `second wait ${s.seen[2]!.at - s.seen[1]!.at} ms`,
    );
    const keys = s.seen.map((x) => x.headers["idempotency-key"]);
    assert.match(String(keys[0]), /^[0-9a-f-]{32,36}$/);
    assert.deepEqual(new Set(keys).size, 1, "same key on every retry");
    assert.equal(s.seen[0]!.headers["x-api-key"], KEY);
    assert.deepEqual(JSON.parse(s.seen[0]!.body), ASSET);
  });

  it("two calls get two different idempotency keys; a given key is sent as is, with Prefer", async () => {
    const { s, client } = await clientOf([
      (r) => json(r, 200, ISSUED),
      (r) => json(r, 200, ISSUED),
      (r) => json(r, 202, { transactionId: "tx_1", status: "queued" }),
    ]);
    await client.issueAsset(ASSET);
    await client.issueAsset(ASSET);
    const accepted = await client.issueAsset(ASSET, {
      idempotencyKey: "order-42",
      prefer: "respond-async",
    });
    assert.deepEqual(accepted, { transactionId: "tx_1", status: "queued" });
    assert.notEqual(s.seen[0]!.headers["idempotency-key"], s.seen[1]!.headers["idempotency-key"]);
    assert.equal(s.seen[2]!.headers["idempotency-key"], "order-42");
    assert.equal(s.seen[2]!.headers.prefer, "respond-async");
  });

  it("a write that times out is retried with the same key (idempotent), then succeeds", async () => {
    const { s, client } = await clientOf(
      [
        () => undefined, // never answers: the client's timeout fires
        // On a loaded machine a retry can time out too: every later attempt is answered.
        (r) => json(r, 200, ISSUED),
        (r) => json(r, 200, ISSUED),
        (r) => json(r, 200, ISSUED),
      ],
      { timeoutMs: 500, retryBaseDelayMs: 10 },
    );
    assert.equal((await client.issueAsset(ASSET)).tokenId, "1");
    assert.ok(s.seen.length >= 2, `${s.seen.length} attempts`);
    const keys = new Set(s.seen.map((x) => x.headers["idempotency-key"]));
    assert.equal(keys.size, 1, "one idempotency key on every attempt");
    s.server.closeAllConnections();
  });

  it("a non-idempotent call is not retried after a network error", async () => {
    const { s, client } = await clientOf([(r) => r.socket?.destroy()], { retryBaseDelayMs: 10 });
    await assert.rejects(
      client.createKey({ scopes: ["read"] }),
      (e: unknown) => e instanceof NetworkError && !e.timedOut,
    );
    assert.equal(s.seen.length, 1);
  });

  it("errors are ApiError with status, the service's error string and retryAfter; retries stop at maxRetries", async () => {
    const { s, client } = await clientOf(
      [
        (r) => json(r, 400, { error: "Missing required field: name" }),
        (r) => json(r, 429, { error: "Rate limit exceeded" }, { "retry-after": "0" }),
        (r) => json(r, 429, { error: "Rate limit exceeded" }, { "retry-after": "0" }),
      ],
      { maxRetries: 1, retryBaseDelayMs: 1 },
    );
    await assert.rejects(client.issueAsset({ ...ASSET, name: "" }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.status, 400);
      assert.equal(e.error, "Missing required field: name");
      return true;
    });
    await assert.rejects(client.getAssets({ limit: 5 }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.status, 429);
      assert.equal(e.error, "Rate limit exceeded");
      assert.equal(e.retryAfter, 0);
      return true;
    });
    assert.equal(s.seen.length, 3);
    assert.equal(s.seen[1]!.url, "/api/v1/assets?limit=5");
  });

  it("the operator client sends X-Admin-Token (never X-API-Key); a 503 naming a sent transaction is not retried and its ApiError carries txHash", async () => {
    const hash = `0x${"ab".repeat(32)}`;
    const s = await scriptedServer([
      (r) => json(r, 503, { error: "RPC unavailable" }, { "retry-after": "0" }),
      (r) => json(r, 200, { success: true, paused: true, reason: "r", txHash: hash }),
      (r) =>
        json(
          r,
          503,
          { error: "RPC unavailable", txHash: hash },
          { "retry-after": "0", "x-transaction-hash": hash },
        ),
    ]);
    servers.push(s.server);
    const token = `ent_admin_${"cd".repeat(32)}`;
    const ops = new RwaOperatorClient(token, { baseUrl: s.url, retryBaseDelayMs: 1 });
    // A 503 before anything was sent is retried, as any 503.
    assert.equal((await ops.pauseMarket({ reason: "r" })).txHash, hash);
    await assert.rejects(ops.freezeAsset("7", { reason: "r" }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.status, 503);
      assert.equal(e.error, "RPC unavailable");
      assert.equal(e.txHash, hash);
      return true;
    });
    assert.equal(s.seen.length, 3, "the answer naming a sent transaction was not retried");
    assert.equal(s.seen[2]!.url, "/api/enterprise/assets/7/freeze");
    assert.equal(s.seen[0]!.headers["x-admin-token"], token);
    assert.equal(s.seen[0]!.headers["x-api-key"], undefined);
  });

  it("a sync write answered 202 (receipt still pending) is polled to its result", async () => {
    const { s, client } = await clientOf([
      (r) => json(r, 202, { transactionId: "tx_9", status: "sent" }),
      (r) => json(r, 200, { transactionId: "tx_9", status: "sent", result: null, error: null }),
      (r) =>
        json(r, 200, { transactionId: "tx_9", status: "confirmed", result: ISSUED, error: null }),
    ]);
    const t0 = Date.now();
    const result = await client.issueAsset(ASSET);
    assert.equal(result.tokenId, "1");
    assert.deepEqual(
      s.seen.map((x) => `${x.method} ${x.url}`),
      [
        "POST /api/v1/write/issue-asset",
        "GET /api/v1/transactions/tx_9",
        "GET /api/v1/transactions/tx_9",
      ],
    );
    assert.ok(Date.now() - t0 >= 900);
  });

  it("backoff grows exponentially with jitter and never undercuts Retry-After; Retry-After dates parse", () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1_000 };
    assertExponentialBackoff(
      (attempt, retryAfterMs, jitter) => retryDelayMs(attempt, policy, retryAfterMs, () => jitter),
      { firstAttempt: 0, baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs },
    );
    assert.equal(parseRetryAfter("7"), 7);
    assert.equal(parseRetryAfter(new Date(Date.now() + 5_000).toUTCString()), 5);
    assert.equal(parseRetryAfter("soon"), undefined);
  });
});

describe("verifyWebhook", () => {
  const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
  const body = JSON.stringify({
    event: "asset.issued",
    timestamp: 1795336000000,
    orgId: "org_1",
    txHash: "0xab",
    blockNumber: 7,
    data: { tokenId: "1" },
  });
  let headers: Record<string, string>;
  before(() => {
    headers = signatureHeaders(secret, "evt_1", body);
  });

  it("accepts a payload signed by the relayer's signing function (both signatures), as string, bytes or Headers", async () => {
    assert.equal(await verifyWebhook(body, headers, secret), true);
    assert.equal(await verifyWebhook(new TextEncoder().encode(body), headers, secret), true);
    assert.equal(await verifyWebhook(Buffer.from(body), new Headers(headers), secret), true);
    // The independent Standard Webhooks verifier agrees on the same delivery.
    new Webhook(secret).verify(body, headers);
  });

  it("accepts Standard Webhooks headers alone, and X-Service-Signature alone only when asked to skip the timestamp", async () => {
    const { ["X-Service-Signature"]: _omit, ...standardOnly } = headers;
    assert.equal(await verifyWebhook(body, standardOnly, secret), true);
    const serviceOnly = { "x-service-signature": headers["X-Service-Signature"]! };
    assert.equal(await verifyWebhook(body, serviceOnly, secret, { requireTimestamp: false }), true);
  });

  it("rejects by default a delivery without a timestamp: a captured X-Service-Signature alone could be replayed forever", async () => {
    const serviceOnly = { "x-service-signature": headers["X-Service-Signature"]! };
    assert.equal(await verifyWebhook(body, serviceOnly, secret), false);
    const { ["webhook-timestamp"]: _omit, ...noTimestamp } = headers;
    assert.equal(await verifyWebhook(body, noTimestamp, secret), false);
  });

  it("checks the timestamp within 5 minutes by default, either side, and within toleranceSeconds when given", async () => {
    const at = (offsetMs: number) => signatureHeaders(secret, "evt_1", body, Date.now() + offsetMs);
    assert.equal(await verifyWebhook(body, at(-290_000), secret), true);
    assert.equal(await verifyWebhook(body, at(-310_000), secret), false, "captured 5m10s ago");
    assert.equal(await verifyWebhook(body, at(310_000), secret), false, "from the future");
    assert.equal(await verifyWebhook(body, at(-310_000), secret, { toleranceSeconds: 600 }), true);
    assert.equal(await verifyWebhook(body, at(-60_000), secret, { toleranceSeconds: 30 }), false);
  });

  it("accepts several signatures in one header and several secrets, for secret rotation", async () => {
    const next = `whsec_${Buffer.from("fedcba9876543210fedcba9876543210").toString("base64")}`;
    const now = Date.now();
    const old = signatureHeaders(secret, "evt_9", body, now);
    const rotated = signatureHeaders(next, "evt_9", body, now);
    // The sender signs with both secrets while receivers move over.
    const both = {
      "X-Service-Signature": `${old["X-Service-Signature"]!},${rotated["X-Service-Signature"]!}`,
      "webhook-id": "evt_9",
      "webhook-timestamp": old["webhook-timestamp"]!,
      "webhook-signature": `${old["webhook-signature"]!} ${rotated["webhook-signature"]!}`,
    };
    assert.equal(await verifyWebhook(body, both, secret), true, "receiver still on the old secret");
    assert.equal(await verifyWebhook(body, both, next), true, "receiver already on the new one");
    // A receiver that knows both secrets accepts a delivery signed with either.
    assert.equal(await verifyWebhook(body, rotated, [secret, next]), true);
    assert.equal(await verifyWebhook(body, old, [secret, next]), true);
    assert.equal(await verifyWebhook(body, both, ["whsec_b3RoZXI=", "other"]), false);
    assert.equal(await verifyWebhook(body, both, []), false);
  });

  it("rejects a tampered body, a tampered signature, a wrong secret, no signature and an old timestamp", async () => {
    assert.equal(await verifyWebhook(body.replace('"1"', '"2"'), headers, secret), false);
    const flipped = headers["X-Service-Signature"]!.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    assert.equal(
      await verifyWebhook(body, { ...headers, "X-Service-Signature": flipped }, secret),
      false,
    );
    assert.equal(await verifyWebhook(body, { "X-Service-Signature": "sha256=zz" }, secret), false);
    assert.equal(await verifyWebhook(body, headers, `${secret}x`), false);
    assert.equal(
      await verifyWebhook(body, headers, "whsec_b3RoZXItc2VjcmV0LW9mLTMyLWJ5dGVzLWxvbmctLS0="),
      false,
    );
    assert.equal(await verifyWebhook(body, {}, secret), false);
    const old = signatureHeaders(secret, "evt_1", body, Date.now() - 3_600_000);
    assert.equal(await verifyWebhook(body, old, secret), false, "replayed an hour later");
    assert.equal(
      await verifyWebhook(body, { ...headers, "webhook-signature": "v1,AAAA" }, secret),
      false,
    );
  });

  it("works with a non-whsec secret (UTF-8 key), like the relayer signs it", async () => {
    const plain = "my-own-secret-of-some-length";
    assert.equal(await verifyWebhook(body, signatureHeaders(plain, "evt_2", body), plain), true);
  });
});
