import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseUnits, Wallet } from "ethers";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import type { TestOrg } from "../../support/stack.js";
import { assertError } from "../../support/assert-error.js";
import { assetBody, startWriteStackWithOrgs, type WriteStack } from "../writes/helpers.js";

/**
 * The operator's compliance controls over HTTP (docs/contracts.md "Compliance controls"): freeze,
 * forced transfer, market pause, restricted asset types and the allowlist, each answering once
 * mined; every write's pre-checks (`Asset is frozen`, `Transfers are paused`, `Recipient is not
 * allowed to hold this asset type`); the read model and the webhook outbox. One real anvil and one
 * real PostgreSQL for the file; the tests run in order and each leaves the market resumed.
 */

const FROZEN = "Asset is frozen";
const PAUSED = "Transfers are paused";
const RECIPIENT = "Recipient is not allowed to hold this asset type";
const RESTRICTED_TYPE = "Carbon Credit";

describe("compliance controls (anvil + PostgreSQL)", () => {
  let stack: WriteStack, alice: TestOrg, bob: TestOrg;
  before(
    async () =>
      ([stack, alice, bob] = await startWriteStackWithOrgs(2, {
        // The acts themselves, carried out at once (OPERATOR_FOUR_EYES=off); four-eyes is
        // test/relayer/people/operator-people.test.ts's.
        config: { operatorFourEyes: false },
      })),
  );
  after(() => stack?.stop());

  const outsider = Wallet.createRandom().address;
  const operator = (method: string, path: string, body?: unknown) =>
    stack.api(method, path, {
      adminToken: stack.adminToken,
      ...(body === undefined ? {} : { body }),
    });
  const issue = async (org: TestOrg, overrides: Record<string, unknown> = {}) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody(overrides) });
    assert.equal(res.status, 200, res.text);
    return (res.body as { tokenId: string }).tokenId;
  };
  const list = async (org: TestOrg, tokenId: string) => {
    const res = await org.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId, priceInCOIN: "1" },
    });
    assert.equal(res.status, 200, res.text);
    return (res.body as { listingId: string }).listingId;
  };
  const transfer = (org: TestOrg, tokenId: string, toAddress: string) =>
    org.api("POST", "/api/v1/write/transfer", { body: { tokenId, toAddress } });
  const outbox = async (kind: string, txHash: string) =>
    (
      await stack.database.pool.query<{ org_id: string; payload: { data: unknown } }>(
        `SELECT org_id, payload FROM webhook_events WHERE kind = $1 AND tx_hash = $2 ORDER BY org_id`,
        [kind, txHash],
      )
    ).rows.map((r) => ({ orgId: r.org_id, data: r.payload.data }));
  const operatorNonce = () =>
    stack.provider.getTransactionCount(stack.ctx.operator.address, "latest");
  /** Polls `probe` (up to ~10 s) until it returns true: the indexer follows the chain. */
  const eventually = async (probe: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await probe()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await probe(), "condition not reached");
  };

  it("registration puts every organization's wallet on the allowlist", async () => {
    assert.equal(await stack.token.isAllowed(alice.walletAddress), true);
    assert.equal(await stack.token.isAllowed(bob.walletAddress), true);
    await eventually(async () => {
      const res = await operator("GET", "/api/enterprise/allowlist");
      const addresses = (res.body as { addresses: { address: string }[] }).addresses.map(
        (a) => a.address,
      );
      return addresses.includes(alice.walletAddress) && addresses.includes(bob.walletAddress);
    });
  });

  it("an organization's API key gets 403 on every operator route", async () => {
    const calls: Array<[string, string, unknown]> = [
      ["POST", "/api/enterprise/assets/1/freeze", { reason: "x" }],
      ["POST", "/api/enterprise/assets/1/unfreeze", { reason: "x" }],
      ["POST", "/api/enterprise/assets/1/forced-transfer", { toAddress: outsider, reason: "x" }],
      ["POST", "/api/enterprise/marketplace/pause", { reason: "x" }],
      ["POST", "/api/enterprise/marketplace/resume", { reason: "x" }],
      [
        "PATCH",
        `/api/enterprise/asset-types/${encodeURIComponent(RESTRICTED_TYPE)}`,
        { restricted: true },
      ],
      ["GET", "/api/enterprise/allowlist", undefined],
      ["POST", "/api/enterprise/allowlist", { address: outsider }],
      ["DELETE", "/api/enterprise/allowlist", { address: alice.walletAddress }],
    ];
    for (const [method, path, body] of calls) {
      const res = await alice.api(method, path, body === undefined ? {} : { body });
      assertError(res, 403, "Admin token required", `${method} ${path}: ${res.text}`);
    }
  });

  it("freeze answers once mined; the asset reads frozen with its reason and asset.frozen carries it", async () => {
    const tokenId = await issue(alice);
    assertError(
      await operator("POST", "/api/enterprise/assets/999999/freeze", { reason: "dispute" }),
      404,
      "Asset not found",
    );
    assertError(
      await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, { reason: "  " }),
      400,
      "Missing required field: reason",
    );
    const res = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "title dispute 42",
    });
    assert.equal(res.status, 200, res.text);
    const body = res.body as { txHash: string };
    assert.deepEqual(res.body, {
      success: true,
      tokenId,
      frozen: true,
      reason: "title dispute 42",
      txHash: body.txHash,
    });
    assert.equal(await stack.token.isFrozen(tokenId), true);
    await eventually(async () => (await alice.api("GET", `/api/v1/assets/${tokenId}`)).body.frozen);
    const asset = (await alice.api("GET", `/api/v1/assets/${tokenId}`)).body as Record<
      string,
      unknown
    >;
    assert.equal(asset.frozenReason, "title dispute 42");
    assert.equal(asset.restricted, false);
    await eventually(async () => (await outbox("asset.frozen", body.txHash)).length === 1);
    assert.deepEqual(await outbox("asset.frozen", body.txHash), [
      {
        orgId: alice.orgId,
        data: { tokenId, holder: alice.walletAddress, reason: "title dispute 42" },
      },
    ]);

    // The operator's act is in the audit log, under the holder's organization, with its reason.
    const audit = await alice.api("GET", "/api/enterprise/audit-log?action=asset.frozen");
    assert.equal(audit.status, 200, audit.text);
    const [row] = audit.body.data as Array<{
      actor: string;
      target: string;
      changes: Record<string, unknown>;
    }>;
    assert.equal(row?.actor, "admin");
    assert.equal(row?.target, tokenId);
    assert.deepEqual(row?.changes, {
      tokenId,
      frozen: true,
      reason: "title dispute 42",
      txHash: body.txHash,
      attemptId: row?.changes.attemptId,
      blockNumber: row?.changes.blockNumber,
    });
    assert.equal(typeof row?.changes.blockNumber, "number");

    // A second freeze sends nothing and answers like the first.
    const nonce = await operatorNonce();
    const again = await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, {
      reason: "another reason",
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, res.body);
    assert.equal(await operatorNonce(), nonce, "nothing sent");
  });

  it("a frozen asset cannot be transferred, listed or redeemed (400, nothing sent), and moves again once unfrozen", async () => {
    const tokenId = await issue(alice);
    await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, { reason: "audit" });
    assertError(await transfer(alice, tokenId, bob.walletAddress), 400, FROZEN);
    assertError(
      await alice.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "1" },
      }),
      400,
      FROZEN,
    );
    assertError(
      await alice.api("POST", "/api/v1/write/redeem-asset", { body: { tokenId } }),
      400,
      FROZEN,
    );
    const res = await operator("POST", `/api/enterprise/assets/${tokenId}/unfreeze`, {
      reason: "audit closed",
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((res.body as { frozen: boolean }).frozen, false);
    await eventually(
      async () =>
        (await outbox("asset.unfrozen", (res.body as { txHash: string }).txHash)).length === 1,
    );
    const moved = await transfer(alice, tokenId, bob.walletAddress);
    assert.equal(moved.status, 200, moved.text);
    await eventually(async () => !(await market()).paused);
  });

  it("a frozen listed asset cannot be bought, but its seller can still delist it", async () => {
    const tokenId = await issue(alice);
    const listingId = await list(alice, tokenId);
    await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, { reason: "dispute" });
    assertError(
      await bob.api("POST", "/api/v1/write/marketplace/buy", { body: { listingId } }),
      400,
      FROZEN,
    );
    const delisted = await alice.api("POST", "/api/v1/write/marketplace/delist", {
      body: { listingId },
    });
    assert.equal(delisted.status, 200, delisted.text);
    assert.equal(await stack.token.ownerOf(tokenId), alice.walletAddress);
  });

  /** The market pause as `GET /api/v1/status` shows it (from the indexed chain). */
  const market = async () =>
    (
      (await stack.api("GET", "/api/v1/status")).body as {
        market: { paused: boolean; reason: string | null; changedAt: string | null };
      }
    ).market;

  it("pause stops mints and transfers with 'Transfers are paused', tells every organization, and resume undoes it; /status shows it", async () => {
    const tokenId = await issue(alice);
    const paused = await operator("POST", "/api/enterprise/marketplace/pause", {
      reason: "incident 7",
    });
    assert.equal(paused.status, 200, paused.text);
    const pauseTx = (paused.body as { txHash: string }).txHash;
    assert.deepEqual(paused.body, {
      success: true,
      paused: true,
      reason: "incident 7",
      txHash: pauseTx,
    });
    try {
      assertError(
        await alice.api("POST", "/api/v1/write/issue-asset", { body: assetBody() }),
        400,
        PAUSED,
      );
      assertError(await transfer(alice, tokenId, bob.walletAddress), 400, PAUSED);
      await eventually(async () => (await outbox("market.paused", pauseTx)).length === 2);
      const sent = await outbox("market.paused", pauseTx);
      assert.deepEqual(sent.map((e) => e.orgId).sort(), [alice.orgId, bob.orgId].sort());
      assert.deepEqual(sent[0]?.data, { by: stack.ctx.operator.address, reason: "incident 7" });
      await eventually(async () => (await market()).paused);
      assert.equal((await market()).reason, "incident 7");
      assert.ok(!Number.isNaN(Date.parse((await market()).changedAt ?? "")));
      const nonce = await operatorNonce();
      const again = await operator("POST", "/api/enterprise/marketplace/pause", { reason: "x" });
      assert.deepEqual(again.body, paused.body);
      assert.equal(await operatorNonce(), nonce, "nothing sent");
    } finally {
      const resumed = await operator("POST", "/api/enterprise/marketplace/resume", {
        reason: "incident closed",
      });
      assert.equal(resumed.status, 200, resumed.text);
    }
    const moved = await transfer(alice, tokenId, bob.walletAddress);
    assert.equal(moved.status, 200, moved.text);
  });

  it("a restricted type is only minted to and moved to allowlisted wallets; the read API shows it", async () => {
    const path = `/api/enterprise/asset-types/${encodeURIComponent(RESTRICTED_TYPE)}`;
    assertError(
      await operator("PATCH", "/api/enterprise/asset-types/Nope", { restricted: true }),
      404,
      "Asset type not found",
    );
    const res = await operator("PATCH", path, { restricted: true });
    assert.equal(res.status, 200, res.text);
    assert.equal((res.body as { restricted: boolean }).restricted, true);
    await eventually(async () => {
      const types = (await alice.api("GET", "/api/v1/asset-types")).body as {
        data: { name: string; restricted: boolean }[];
      };
      return types.data.some((t) => t.name === RESTRICTED_TYPE && t.restricted);
    });

    const tokenId = await issue(alice, { assetType: RESTRICTED_TYPE });
    await eventually(
      async () => (await alice.api("GET", `/api/v1/assets/${tokenId}`)).body.restricted === true,
    );
    assertError(await transfer(alice, tokenId, outsider), 400, RECIPIENT);

    const removed = await operator("DELETE", "/api/enterprise/allowlist", {
      address: bob.walletAddress,
    });
    assert.equal(removed.status, 200, removed.text);
    assert.equal((removed.body as { allowed: boolean }).allowed, false);
    assertError(await transfer(alice, tokenId, bob.walletAddress), 400, RECIPIENT);
    assertError(
      await bob.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ assetType: RESTRICTED_TYPE }),
      }),
      400,
      RECIPIENT,
    );

    const added = await operator("POST", "/api/enterprise/allowlist", {
      address: bob.walletAddress,
    });
    assert.equal(added.status, 200, added.text);
    const moved = await transfer(alice, tokenId, bob.walletAddress);
    assert.equal(moved.status, 200, moved.text);
    await operator("PATCH", path, { restricted: false });
  });

  it("forced transfer: 404 for an unknown token, 400 for the zero address or a disallowed recipient, and a listed asset's listing ends cancelled", async () => {
    const tokenId = await issue(alice);
    const force = (id: string, toAddress: string) =>
      operator("POST", `/api/enterprise/assets/${id}/forced-transfer`, {
        toAddress,
        reason: "court order 12",
      });
    assertError(await force("999999", bob.walletAddress), 404, "Asset not found");
    assertError(
      await force(tokenId, "0x0000000000000000000000000000000000000000"),
      400,
      "Invalid field: toAddress (the zero address cannot hold tokens)",
    );
    const restricted = await issue(alice, { assetType: "Bond" });
    await operator("PATCH", "/api/enterprise/asset-types/Bond", { restricted: true });
    try {
      assertError(await force(restricted, outsider), 400, RECIPIENT);
    } finally {
      await operator("PATCH", "/api/enterprise/asset-types/Bond", { restricted: false });
    }

    const listingId = await list(alice, tokenId);
    await operator("POST", `/api/enterprise/assets/${tokenId}/freeze`, { reason: "lost key" });
    const res = await force(tokenId, bob.walletAddress);
    assert.equal(res.status, 200, res.text);
    const body = res.body as { txHash: string };
    assert.deepEqual(res.body, {
      success: true,
      tokenId,
      from: stack.ctx.contracts.marketplace,
      to: bob.walletAddress,
      reason: "court order 12",
      txHash: body.txHash,
      cancelledListingId: listingId,
    });
    assert.equal(await stack.token.ownerOf(tokenId), bob.walletAddress);
    assert.equal(await stack.token.isFrozen(tokenId), false, "arrives unfrozen");
    await eventually(async () => (await outbox("asset.forced_transfer", body.txHash)).length === 2);
    const sent = await outbox("asset.forced_transfer", body.txHash);
    assert.deepEqual(sent.map((e) => e.orgId).sort(), [alice.orgId, bob.orgId].sort());
    assert.deepEqual(sent[0]?.data, {
      tokenId,
      from: stack.ctx.contracts.marketplace,
      to: bob.walletAddress,
      reason: "court order 12",
    });
    const listing = await alice.api("GET", `/api/v1/marketplace/${listingId}`);
    assert.equal(listing.body.state, "cancelled");
  });
  it("a mint that passed its checks before a pause was mined fails on chain with the check's 400 'Transfers are paused', on the synchronous call and its transaction", async () => {
    const rpc = (method: string, params: unknown[] = []) => stack.provider.send(method, params);
    const waitForPending = async (count: number) => {
      for (let i = 0; i < 200; i++) {
        const status = (await rpc("txpool_status")) as { pending: string };
        if (Number(BigInt(status.pending)) >= count) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`txpool never held ${count} transactions`);
    };
    // The operator pauses outside the relayer (another operator process, say): nothing tells
    // this one but the chain.
    const pauser = AssetToken__factory.connect(
      stack.ctx.contracts.assetToken,
      new Wallet(ANVIL_DEV_PRIVATE_KEY, stack.provider),
    );
    const res = await stack.withoutAutomine(async () => {
      // Alice's mint passes every check (nothing is paused yet) and is broadcast; the pause then
      // enters the pool with a far higher tip, so the next block runs it first.
      const pending = alice.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
      await waitForPending(1);
      await pauser.pause("race", {
        gasLimit: 200_000n,
        maxPriorityFeePerGas: parseUnits("1000", "gwei"),
        maxFeePerGas: parseUnits("2000", "gwei"),
      });
      await waitForPending(2);
      await rpc("evm_mine");
      return pending;
    });
    try {
      assertError(res, 400, PAUSED);
      const id = res.headers.get("x-transaction-id");
      assert.ok(id !== null, "the answer names its transaction");
      const status = await alice.api("GET", `/api/v1/transactions/${id}`);
      assert.equal(status.body.status, "failed");
      assert.deepEqual(
        { status: status.body.errorStatus, error: status.body.error },
        { status: 400, error: PAUSED },
      );
    } finally {
      const resumed = await operator("POST", "/api/enterprise/marketplace/resume", {
        reason: "race over",
      });
      assert.equal(resumed.status, 200, resumed.text);
    }
  });
});
