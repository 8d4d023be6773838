import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BaseError, TransactionFailedError } from "../../relayer/src/errors.js";
import type { TxRow } from "../../relayer/src/engine/tx-rows.js";
import { writeResponse } from "../../relayer/src/writes/kinds/index.js";
import { txRow } from "./tx-row-fixture.ts";

const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const BUYER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const MARKET = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const ZERO = "0x0000000000000000000000000000000000000000";
const HASH = `0x${"ab".repeat(32)}`;

/** A confirmed row of `kind` whose result is what the engine stores: context, facts, hash. */
function confirmed(
  kind: string,
  context: Record<string, unknown>,
  facts: Record<string, unknown>,
  fields: Partial<TxRow> = {},
): TxRow {
  return txRow({
    kind,
    mode: "sync",
    fromAddress: WALLET,
    toAddress: MARKET,
    nonce: 3,
    state: "confirmed",
    receipt: {
      hash: HASH,
      blockNumber: 5,
      blockHash: HASH,
      status: 1,
      gasUsed: "21000",
      effectiveGasPrice: "1",
    },
    context,
    result: { ...context, ...facts, txHash: HASH },
    ...fields,
  });
}

/** The body as sent: key order and null versus absent fields included. */
function sent(row: TxRow, children: readonly TxRow[] = []): string {
  return JSON.stringify(writeResponse(row, children));
}

const issueContext = {
  wallet: WALLET,
  owner: WALLET,
  assetType: "Art",
  name: "Sunflowers",
  stakedAmount: "0.1",
  ipfsHash: "bafkreia",
  metadataDocument: "{}",
};
const issueFacts = { tokenId: "7", transferFrom: ZERO, transferTo: WALLET, owner: WALLET };

describe("write responses: a confirmed row's stored result, parsed by its kind's schema", () => {
  it("issue-asset answers its tokenId, hash and context", () => {
    assert.equal(
      sent(confirmed("issue-asset", issueContext, issueFacts)),
      JSON.stringify({
        success: true,
        tokenId: "7",
        txHash: HASH,
        wallet: WALLET,
        owner: WALLET,
        assetType: "Art",
        stakedAmount: "0.1",
        ipfsHash: "bafkreia",
      }),
    );
  });

  it("issue-asset answers the same for a row from before the metadata document rode on it", () => {
    const { metadataDocument: _dropped, ...older } = issueContext;
    assert.equal(
      sent(confirmed("issue-asset", older, issueFacts)),
      sent(confirmed("issue-asset", issueContext, issueFacts)),
    );
  });

  it("list answers expiresAt as an ISO date, and null when the receipt had none", () => {
    const context = { tokenId: "7", priceInCOIN: "1.5", durationDays: 30, seller: WALLET };
    const facts = { tokenId: "7", listingId: "3", seller: WALLET, priceWei: "15", expiresAt: 0 };
    assert.equal(
      sent(confirmed("list", context, facts)),
      JSON.stringify({
        success: true,
        listingId: "3",
        txHash: HASH,
        tokenId: "7",
        priceInCOIN: "1.5",
        durationDays: 30,
        expiresAt: "1970-01-01T00:00:00.000Z",
      }),
    );
    const { expiresAt: _none, ...withoutExpiry } = facts;
    assert.match(sent(confirmed("list", context, withoutExpiry)), /"expiresAt":null}$/);
  });

  it("buy answers the price paid in COIN and a null seller when the receipt named none", () => {
    const context = { listingId: "3", tokenId: "7", buyer: BUYER };
    const facts = { listingId: "3", tokenId: "7", buyer: BUYER, priceWei: "1500000000000000000" };
    assert.equal(
      sent(confirmed("buy", context, facts)),
      JSON.stringify({
        success: true,
        txHash: HASH,
        listingId: "3",
        tokenId: "7",
        pricePaid: "1.5",
        buyer: BUYER,
        seller: null,
      }),
    );
    assert.match(sent(confirmed("buy", context, { ...facts, seller: WALLET })), /"seller":"0x7099/);
  });

  it("delist answers the receipt's reason, else the context's, else cancelled (older rows)", () => {
    const context = { listingId: "3", tokenId: "7" };
    const reasonOf = (ctx: Record<string, unknown>, facts: Record<string, unknown>): unknown =>
      (JSON.parse(sent(confirmed("delist", ctx, facts))) as { reason: unknown }).reason;
    assert.equal(
      reasonOf({ ...context, reason: "cancelled" }, { delistReason: "expired" }),
      "expired",
    );
    assert.equal(reasonOf({ ...context, reason: "expired" }, {}), "expired");
    assert.equal(reasonOf(context, {}), "cancelled");
  });

  it("redeem-asset answers the stake paid out, or the stake read before sending without it", () => {
    const context = { tokenId: "7", stakeReturned: "0.1" };
    assert.equal(
      sent(confirmed("redeem-asset", context, { stakeWei: "200000000000000000" })),
      JSON.stringify({ success: true, txHash: HASH, tokenId: "7", stakeReturned: "0.2" }),
    );
    assert.match(sent(confirmed("redeem-asset", context, {})), /"stakeReturned":"0.1"}$/);
  });

  it("transfer and register-asset-type answer their context and hash", () => {
    assert.equal(
      sent(confirmed("transfer", { from: WALLET, to: BUYER, tokenId: "7" }, { tokenId: "7" })),
      JSON.stringify({ success: true, txHash: HASH, from: WALLET, to: BUYER, tokenId: "7" }),
    );
    assert.equal(
      sent(confirmed("register-asset-type", { typeName: "Art" }, { typeName: "Art" })),
      JSON.stringify({ success: true, typeName: "Art", txHash: HASH }),
    );
  });

  it("batch-issue answers each item from its row, and the sender when its row names no wallet", () => {
    const root = confirmed("batch-issue", {}, {}, { toAddress: null, data: null, receipt: null });
    const item = confirmed("issue-asset", issueContext, issueFacts, {
      parentId: root.id,
      itemIndex: 0,
    });
    const failed = confirmed(
      "issue-asset",
      issueContext,
      {},
      {
        parentId: root.id,
        itemIndex: 1,
        state: "failed",
        error: "Below min stake",
        result: null,
      },
    );
    assert.equal(
      sent(root, [item, failed]),
      JSON.stringify({
        success: false,
        issued: 1,
        failed: 1,
        results: [
          { index: 0, success: true, tokenId: "7", txHash: HASH },
          {
            index: 1,
            success: false,
            tokenId: null,
            txHash: HASH,
            error: "Transaction failed: Below min stake",
          },
        ],
        wallet: WALLET,
        owner: WALLET,
      }),
    );
  });

  it("a failed write throws its writeFailure, not a parse error", () => {
    const row = confirmed(
      "buy",
      {},
      {},
      { state: "failed", error: "Price above max", result: null },
    );
    assert.throws(() => writeResponse(row), TransactionFailedError);
  });

  it("a stored result that does not parse is an internal error naming the row", () => {
    const wrongType = confirmed("transfer", { from: WALLET, to: BUYER, tokenId: 7 }, {});
    const noListing = confirmed(
      "list",
      { tokenId: "7", priceInCOIN: "1", durationDays: 30, seller: WALLET },
      {},
    );
    for (const row of [wrongType, noListing, { ...wrongType, result: null }]) {
      assert.throws(
        () => writeResponse(row),
        (error: unknown) =>
          error instanceof Error &&
          !(error instanceof BaseError) &&
          error.message.includes(row.id) &&
          error.message.includes(`${row.kind} row`),
      );
    }
  });
});
