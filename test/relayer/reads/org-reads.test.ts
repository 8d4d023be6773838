import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";

/**
 * The organization's own reads behind the console's gallery, charts and transactions screen:
 * `/api/enterprise/assets`, `/api/v1/transactions` (the wallet history is test/relayer/alerts),
 * `/api/enterprise/stats/issuances` and `/api/enterprise/stats/deliveries`. Rows are written
 * straight into PostgreSQL for two organizations, so each answer is checked exactly, and each
 * organization must see only its own.
 */

const COIN = 10n ** 18n;
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const MARKETPLACE_HOLDER = "0x00000000000000000000000000000000000000e5";

describe("organization reads (console data)", { timeout: 120_000 }, () => {
  let stack: TestStack;
  let a: TestOrg;
  let b: TestOrg;
  const sql = (text: string, values: unknown[] = []) => stack.database.pool.query(text, values);

  /** A transaction row of `org`, `minutesAgo` old. */
  const tx = async (
    org: TestOrg,
    id: string,
    minutesAgo: number,
    fields: {
      kind?: string;
      state: string;
      value?: string;
      receipt?: Record<string, unknown>;
      error?: string;
      errorKind?: string;
    },
  ) =>
    sql(
      `INSERT INTO transactions (id, org_id, wallet_id, kind, request_hash, from_address, state, value,
                                 receipt, error, error_kind, attempts, created_at, updated_at, mined_at)
       SELECT $1, w.org_id, w.id, $3, 'test', w.address, $4, $5, $6, $7, $8, $9::jsonb,
              now() - make_interval(mins => $10), now() - make_interval(mins => $10),
              CASE WHEN $6::jsonb IS NULL THEN NULL ELSE now() - make_interval(mins => $10) END
         FROM wallets w WHERE w.org_id = $2`,
      [
        id,
        org.orgId,
        fields.kind ?? "issue-asset",
        fields.state,
        fields.value ?? "0",
        fields.receipt === undefined ? null : JSON.stringify(fields.receipt),
        fields.error ?? null,
        fields.errorKind ?? null,
        JSON.stringify(
          fields.receipt === undefined
            ? []
            : [
                {
                  hash: fields.receipt.hash,
                  maxFeePerGas: "1",
                  maxPriorityFeePerGas: "1",
                  sentAt: "",
                },
              ],
        ),
        minutesAgo,
      ],
    );

  /** An asset row minted by `minter`, owned by `owner`, minted `daysAgo` days ago. */
  const asset = (tokenId: number, minter: string, owner: string, daysAgo: number) =>
    sql(
      `INSERT INTO assets (token_id, type_id, owner, minter, stake_wei, cid, password_hash, mint_tx_hash,
                           mint_block, minted_at, updated_block, updated_at)
       VALUES ($1, '0x01', $2, $3, 100000000000000000, $6, '0x00', $4, 1,
               now() - make_interval(days => $5), 1, now())`,
      [
        tokenId,
        owner.toLowerCase(),
        minter.toLowerCase(),
        hash(tokenId),
        daysAgo,
        `bafytest${tokenId}`,
      ],
    );

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    [a, b] = await Promise.all([
      stack.registerOrg({ orgName: "Reads A" }),
      stack.registerOrg({ orgName: "Reads B" }),
    ]);
    // The history starts when the wallet was created: make that before the rows below.
    await sql(
      "UPDATE wallets SET created_at = now() - interval '2 hours' WHERE org_id IN ($1, $2)",
      [a.orgId, b.orgId],
    );
    const receipt = (n: number, status = 1) => ({
      hash: hash(n),
      blockNumber: n,
      blockHash: hash(n + 1000),
      status,
      gasUsed: "100000",
      effectiveGasPrice: "1000000000",
    });
    // The indexer has applied block 5: writes mined above it still read as sent.
    await sql(
      `INSERT INTO indexer_cursor (id, block_number, block_hash) VALUES ('main', 5, $1)
       ON CONFLICT (id) DO UPDATE SET block_number = 5`,
      [hash(5)],
    );
    // A: an issuance (fee 0.0001 + stake 0.1), a reverted write, a replaced one; B: one issuance.
    await tx(a, "tx_a1", 30, {
      state: "confirmed",
      value: (COIN / 10n).toString(),
      receipt: receipt(1),
    });
    await tx(a, "tx_a2", 20, {
      state: "failed",
      receipt: receipt(2, 0),
      error: "Below min stake",
      errorKind: "revert",
    });
    await tx(a, "tx_a3", 10, { kind: "transfer", state: "replaced", error: "nonce consumed" });
    await tx(b, "tx_b1", 5, {
      state: "confirmed",
      value: (COIN / 10n).toString(),
      receipt: receipt(9),
    });
    // A sold a token for 2 coin five minutes ago.
    await sql(
      `INSERT INTO sales (block_number, log_index, tx_hash, listing_id, token_id, seller, buyer, price_wei, sold_at)
       VALUES (50, 0, $1, 1, 99, $2, $3, $4, now() - interval '5 minutes')`,
      [
        hash(50),
        a.walletAddress.toLowerCase(),
        b.walletAddress.toLowerCase(),
        (2n * COIN).toString(),
      ],
    );
    // Assets: A minted 3 (two today, one two days ago; one of today's is listed by A), B one.
    await asset(1, a.walletAddress, a.walletAddress, 2);
    await asset(2, a.walletAddress, a.walletAddress, 0);
    await asset(3, a.walletAddress, MARKETPLACE_HOLDER, 0);
    await asset(4, b.walletAddress, b.walletAddress, 0);
    await sql(
      `INSERT INTO listings (listing_id, token_id, seller, price_wei, state, listed_at, expires_at,
                             create_tx_hash, created_block, updated_block)
       VALUES (7, 3, $1, 1000, 'active', now(), now() + interval '30 days', $2, 1, 1)`,
      [a.walletAddress.toLowerCase(), hash(77)],
    );
    // Webhook deliveries this hour: A has one of each outcome (plus a retrying one), B one.
    for (const [org, rows] of [
      [
        a,
        [
          ["delivered", 1],
          ["delivered", 3],
          ["retrying", 2],
          ["failed", 8],
          ["pending", 0],
        ],
      ],
      [b, [["delivered", 1]]],
    ] as const) {
      const hook = `wh_${org.orgId.slice(-8)}`;
      await sql(
        `INSERT INTO webhooks (id, org_id, url, events, encrypted_secret) VALUES ($1, $2, 'http://127.0.0.1:9/h', '{asset.issued}', 'x')`,
        [hook, org.orgId],
      );
      for (const [i, [status, attempts]] of rows.entries()) {
        const event = `evt_${hook}_${i}`;
        await sql(
          `INSERT INTO webhook_events (id, org_id, kind, payload, status) VALUES ($1, $2, 'asset.issued', '{}', 'released')`,
          [event, org.orgId],
        );
        await sql(
          `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, status, attempts)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [`dlv_${hook}_${i}`, hook, org.orgId, event, status, attempts],
        );
      }
    }
  });

  after(() => stack?.stop());

  /** GETs the list at `path` as `org`, expects 200 and `ids` as the items' `key`, in order. */
  async function listed(org: TestOrg, path: string, key: string, ids: string[]) {
    const res = await org.api("GET", path);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.data.map((item: Record<string, string>) => item[key]),
      ids,
    );
    return res;
  }

  it("GET /api/v1/transactions lists only the caller's writes, newest first, with reasons in words", async () => {
    const mine = await listed(a, "/api/v1/transactions", "transactionId", [
      "tx_a3",
      "tx_a2",
      "tx_a1",
    ]);
    const [replaced, failed, confirmed] = mine.body.data;
    assert.equal(confirmed.status, "confirmed");
    assert.equal(confirmed.txHash, hash(1));
    assert.equal(confirmed.blockNumber, 1);
    assert.equal(confirmed.reason, null);
    assert.equal(failed.error, "Below min stake");
    assert.equal(
      failed.reason,
      "The contract refused it: Below min stake. Gas was spent, nothing else changed.",
    );
    assert.match(replaced.reason, /will never be mined/);

    const theirs = await b.api("GET", "/api/v1/transactions");
    assert.deepEqual(
      theirs.body.data.map((t: { transactionId: string }) => t.transactionId),
      ["tx_b1"],
    );
    // Mined in block 9, above the indexer's block 5: not confirmed on screen yet.
    assert.equal(theirs.body.data[0].status, "sent");
  });

  it("GET /api/v1/transactions filters by status and kind and pages with a cursor", async () => {
    const failed = await a.api("GET", "/api/v1/transactions?status=failed");
    assert.deepEqual(
      failed.body.data.map((t: { transactionId: string }) => t.transactionId),
      ["tx_a2"],
    );
    const transfers = await a.api("GET", "/api/v1/transactions?kind=transfer");
    assert.deepEqual(
      transfers.body.data.map((t: { transactionId: string }) => t.transactionId),
      ["tx_a3"],
    );
    const first = await a.api("GET", "/api/v1/transactions?limit=2");
    assert.equal(first.body.data.length, 2);
    assert.ok(first.body.nextCursor);
    const second = await a.api(
      "GET",
      `/api/v1/transactions?limit=2&cursor=${first.body.nextCursor}`,
    );
    assert.deepEqual(
      second.body.data.map((t: { transactionId: string }) => t.transactionId),
      ["tx_a1"],
    );
    assert.equal(second.body.nextCursor, null);
    const bad = await a.api("GET", "/api/v1/transactions?cursor=nonsense");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "Invalid cursor");
    const badState = await a.api("GET", "/api/v1/transactions?status=mined-ish");
    assert.equal(badState.status, 400);
    assert.equal(typeof badState.body.error, "string");
  });

  it("GET /api/enterprise/assets returns what the org owns or has listed, not others' assets", async () => {
    const mine = await listed(a, "/api/enterprise/assets", "tokenId", ["3", "2", "1"]);
    assert.equal(mine.body.data[0].listing.listingId, "7");
    const theirs = await b.api("GET", "/api/enterprise/assets");
    assert.deepEqual(
      theirs.body.data.map((x: { tokenId: string }) => x.tokenId),
      ["4"],
    );
  });

  it("GET /api/enterprise/stats/issuances counts the org's mints per UTC day, zeros included", async () => {
    const mine = await a.api("GET", "/api/enterprise/stats/issuances?days=3");
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(
      mine.body.data.map((d: { issued: number }) => d.issued),
      [1, 0, 2],
    );
    assert.equal(mine.body.data[2].day, new Date().toISOString().slice(0, 10));
    const theirs = await b.api("GET", "/api/enterprise/stats/issuances?days=3");
    assert.deepEqual(
      theirs.body.data.map((d: { issued: number }) => d.issued),
      [0, 0, 1],
    );
    const bad = await a.api("GET", "/api/enterprise/stats/issuances?days=0");
    assert.equal(bad.status, 400);
  });

  it("GET /api/enterprise/stats/deliveries splits this hour's deliveries into succeeded, retried, failed", async () => {
    const mine = await a.api("GET", "/api/enterprise/stats/deliveries?hours=2");
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.body.data.length, 2);
    const { succeeded, retried, failed } = mine.body.data[1];
    assert.deepEqual({ succeeded, retried, failed }, { succeeded: 1, retried: 2, failed: 1 });
    assert.deepEqual(mine.body.data[0], {
      ...mine.body.data[0],
      succeeded: 0,
      retried: 0,
      failed: 0,
    });
    const theirs = await b.api("GET", "/api/enterprise/stats/deliveries?hours=2");
    const last = theirs.body.data[1];
    assert.deepEqual([last.succeeded, last.retried, last.failed], [1, 0, 0]);
  });

  it("GET /api/v1/assets/{id}/history gives the token's issue, listing and sale in order", async () => {
    const log = (n: number, kind: string, listingId: number | null, args: Record<string, string>) =>
      sql(
        `INSERT INTO chain_logs (block_number, log_index, block_hash, tx_hash, block_timestamp, kind, token_id, listing_id, args)
         VALUES ($1, 0, $2, $3, $4, $5, $6, $7, $8)`,
        [
          n,
          hash(n + 500),
          hash(n),
          1_700_000_000 + n,
          kind,
          listingId === null || kind !== "ListingCancelled" ? 2 : null,
          listingId,
          JSON.stringify(args),
        ],
      );
    const seller = a.walletAddress.toLowerCase();
    await log(101, "AssetIssued", null, { tokenId: "2", owner: seller, minter: seller });
    await log(102, "Transfer", null, { from: `0x${"0".repeat(40)}`, to: seller, tokenId: "2" });
    await log(103, "ListingCreated", 8, {
      listingId: "8",
      tokenId: "2",
      seller,
      price: "1500000000000000000",
    });
    await sql(
      `INSERT INTO listings (listing_id, token_id, seller, price_wei, state, listed_at, expires_at,
                             create_tx_hash, created_block, updated_block)
       VALUES (8, 2, $1, 1500000000000000000, 'cancelled', now(), now() + interval '30 days', $2, 103, 104)`,
      [seller, hash(103)],
    );
    await log(104, "ListingCancelled", 8, { listingId: "8" });
    const res = await stack.api("GET", "/api/v1/assets/2/history");
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.data.map((e: { event: string; txHash: string; price: string | null }) => [
        e.event,
        e.txHash,
        e.price,
      ]),
      [
        ["issued", hash(101), null],
        ["listed", hash(103), "1.5"],
        ["delisted", hash(104), null],
      ],
    );
    assert.equal(res.body.data[0].to, a.walletAddress);
    assert.equal((await stack.api("GET", "/api/v1/assets/424242/history")).status, 404);
  });

  it("the org reads need a key with the read scope", async () => {
    const noKey = await stack.api("GET", "/api/enterprise/stats/issuances");
    assert.equal(noKey.status, 401);
    const hooksOnly = await a.api<{ apiKey: string }>("POST", "/api/enterprise/keys", {
      body: { scopes: ["webhooks"] },
    });
    const res = await stack.api("GET", "/api/enterprise/wallet/history", {
      apiKey: hooksOnly.body.apiKey,
    });
    assert.equal(res.status, 403);
  });
});
