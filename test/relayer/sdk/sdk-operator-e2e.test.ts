import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Wallet } from "ethers";
import type * as Sdk from "../../../relayer/sdk/index.js";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import type { TestOrg } from "../../support/stack.js";
import { orgSigner } from "../webhooks/chain-helpers.js";
import { startWriteStackWithOrgs, type WriteStack } from "../writes/helpers.js";

/**
 * `RwaOperatorClient` (the admin token's client), from the ES module bundle exactly as the
 * relayer serves it, against a running relayer on a real anvil and PostgreSQL: each method reaches
 * its route and answers its typed body, and every refusal comes back as the SDK's `ApiError` with
 * the spec's status and words.
 */
describe("SDK operator client against a running relayer", () => {
  let stack: WriteStack, alice: TestOrg;
  let sdk: typeof Sdk;
  let ops: Sdk.RwaOperatorClient;

  before(async () => {
    // The acts at once (OPERATOR_FOUR_EYES=off); four-eyes: people/operator-people.test.ts.
    [stack, alice] = await startWriteStackWithOrgs(1, { config: { operatorFourEyes: false } });
    const res = await fetch(`${stack.baseUrl}/sdk/rwa-sdk.mjs`);
    assert.equal(res.status, 200);
    const source = await res.text();
    sdk = (await import(
      `data:text/javascript;base64,${Buffer.from(source).toString("base64")}`
    )) as typeof Sdk;
    ops = new sdk.RwaOperatorClient({
      adminToken: stack.adminToken,
      baseUrl: stack.baseUrl,
      maxRetries: 0,
    });
  });
  after(() => stack?.stop());

  /** The `ApiError` `call` rejects with, checked for its status and words. */
  const refused = async (call: Promise<unknown>, status: number, error: string | RegExp) => {
    const thrown = await call.then(
      () => assert.fail("expected an ApiError"),
      (e: unknown) => e,
    );
    assert.ok(thrown instanceof sdk.ApiError, `an ApiError, got ${String(thrown)}`);
    assert.equal(thrown.status, status, thrown.message);
    if (typeof error === "string") assert.equal(thrown.error, error);
    else assert.match(thrown.error, error);
    return thrown;
  };
  const issue = async (): Promise<string> => {
    const client = new sdk.RwaClient({ apiKey: alice.apiKey, baseUrl: stack.baseUrl });
    const { tokenId } = await client.issueAsset({
      assetType: "Bond",
      name: "Operator SDK bond",
      description: "for the operator client",
    });
    return tokenId;
  };
  /** Polls `probe` (up to ~10 s) until it is true: the indexer follows the chain. */
  const eventually = async (probe: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await probe()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await probe(), "condition not reached");
  };

  it("needs the admin token: without one the constructor throws; a wrong one or an API key gets 403 Admin token required", async () => {
    assert.throws(
      () => new sdk.RwaOperatorClient({ adminToken: "", baseUrl: stack.baseUrl }),
      /adminToken is required/,
    );
    const wrong = new sdk.RwaOperatorClient(`ent_admin_${"0".repeat(64)}`, {
      baseUrl: stack.baseUrl,
    });
    await refused(wrong.listOrgs(), 403, "Admin token required");
    const keyAsToken = new sdk.RwaOperatorClient(alice.apiKey, { baseUrl: stack.baseUrl });
    await refused(keyAsToken.freezeAsset("1", { reason: "x" }), 403, "Admin token required");
  });

  it("organizations: register, list, get, change the plan, suspend and resume, list and revoke keys", async () => {
    const orgName = `Operator SDK Org ${Date.now()}`;
    const registered = await ops.registerOrganization({ orgName, plan: "basic" });
    assert.match(registered.orgId, /^org_/);
    assert.match(registered.apiKey, /^rwa_live_/);

    const listed = await ops.listOrgs({ q: orgName, limit: 10 });
    assert.deepEqual(
      listed.data.map((o) => [o.orgId, o.orgName, o.plan]),
      [[registered.orgId, orgName, "basic"]],
    );
    assert.equal(listed.nextCursor, null);
    const org = await ops.getOrg(registered.orgId);
    assert.equal(org.walletAddress, registered.walletAddress);

    const planned = await ops.changeOrgPlan(registered.orgId, "pro");
    assert.deepEqual(planned.changes, { plan: { from: "basic", to: "pro" } });
    const suspended = await ops.suspendOrg(registered.orgId);
    assert.equal(suspended.org.suspended, true);
    const member = new sdk.RwaClient({
      apiKey: registered.apiKey,
      baseUrl: stack.baseUrl,
      maxRetries: 0,
    });
    await refused(member.getWallet(), 403, "Organization suspended");
    const resumed = await ops.resumeOrg(registered.orgId);
    assert.deepEqual(resumed.changes, { suspended: { from: true, to: false } });
    const updated = await ops.updateOrg(registered.orgId, { plan: "enterprise", suspended: false });
    assert.deepEqual(updated.changes, { plan: { from: "pro", to: "enterprise" } });

    const { keys } = await ops.listOrgKeys(registered.orgId);
    assert.deepEqual(
      keys.map((k) => k.keyId),
      [registered.keyId],
    );
    const revoked = await ops.revokeOrgKey(registered.orgId, registered.keyId);
    assert.equal(revoked.keyId, registered.keyId);
    await refused(member.getWallet(), 401, "Unauthorized");

    await refused(ops.getOrg("org_doesnotexist"), 404, "Organization not found");
    await refused(
      ops.updateOrg("org_doesnotexist", { plan: "pro" }),
      404,
      "Organization not found",
    );
    await refused(ops.updateOrg(registered.orgId, {}), 400, /give plan and\/or suspended/);
    await refused(ops.revokeOrgKey(registered.orgId, "key_nope"), 404, "API key not found");
    await refused(
      ops.registerOrganization({ orgName: "" }),
      400,
      "Invalid field: orgName (must be 1 to 100 characters)",
    );
  });

  it("compliance: freeze and unfreeze, pause and resume, restrict a type, the allowlist, a forced transfer", async () => {
    const tokenId = await issue();
    // Four-eyes is off here: the acts answer their own result, not an operator request.
    const frozen = (await ops.freezeAsset(tokenId, { reason: "sdk dispute" })) as Sdk.FreezeResult;
    assert.deepEqual(
      [frozen.success, frozen.tokenId, frozen.frozen, frozen.reason],
      [true, tokenId, true, "sdk dispute"],
    );
    assert.match(frozen.txHash ?? "", /^0x[0-9a-f]{64}$/);
    assert.equal(await stack.token.isFrozen(tokenId), true);
    const unfrozen = (await ops.unfreezeAsset(tokenId, {
      reason: "sdk resolved",
    })) as Sdk.FreezeResult;
    assert.equal(unfrozen.frozen, false);
    await refused(ops.freezeAsset("999999", { reason: "x" }), 404, "Asset not found");
    await refused(ops.freezeAsset(tokenId, { reason: " " }), 400, "Missing required field: reason");

    const paused = await ops.pauseMarket({ reason: "sdk maintenance" });
    assert.deepEqual([paused.paused, paused.reason], [true, "sdk maintenance"]);
    assert.equal(await stack.token.paused(), true);
    const resumed = await ops.resumeMarket({ reason: "sdk done" });
    assert.equal(resumed.paused, false);

    const restricted = await ops.setAssetTypeRestricted("Bond", { restricted: true });
    assert.deepEqual([restricted.name, restricted.restricted], ["Bond", true]);
    assert.equal(
      (await ops.setAssetTypeRestricted("Bond", { restricted: false })).restricted,
      false,
    );
    await refused(
      ops.setAssetTypeRestricted("No Such Type", { restricted: true }),
      404,
      "Asset type not found",
    );

    const outsider = Wallet.createRandom().address;
    const added = await ops.addToAllowlist({ address: outsider });
    assert.deepEqual([added.address, added.allowed], [outsider, true]);
    await eventually(async () =>
      (await ops.listAllowlist()).addresses.some((a) => a.address === outsider),
    );
    const removed = await ops.removeFromAllowlist({ address: outsider });
    assert.equal(removed.allowed, false);
    await refused(
      ops.addToAllowlist({ address: "0x1234" }),
      400,
      "Invalid field: address (not a 0x address)",
    );

    const moved = (await ops.forceTransferAsset(tokenId, {
      toAddress: outsider,
      reason: "court",
    })) as Sdk.ForceTransferResult;
    assert.deepEqual(
      [moved.tokenId, moved.from, moved.to, moved.cancelledListingId],
      [tokenId, alice.walletAddress, outsider, null],
    );
    assert.equal(await stack.token.ownerOf(tokenId), outsider);
    await refused(
      ops.forceTransferAsset(tokenId, {
        toAddress: stack.ctx.contracts.marketplace,
        reason: "x",
      }),
      400,
      "Invalid field: toAddress (must not be the marketplace)",
    );
  });

  it("rescues a token the marketplace holds without a listing, and refuses one it does not hold", async () => {
    const tokenId = await issue();
    await refused(
      ops.rescueMarketplaceToken({ tokenId, toAddress: alice.walletAddress }),
      400,
      "Token is not held by the marketplace",
    );
    await refused(
      ops.rescueMarketplaceToken({ tokenId: "999999", toAddress: alice.walletAddress }),
      404,
      "Asset not found",
    );
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
    const rescued = await ops.rescueMarketplaceToken({
      tokenId: Number(tokenId),
      toAddress: alice.walletAddress,
    });
    assert.deepEqual(
      [rescued.success, rescued.tokenId, rescued.toAddress],
      [true, tokenId, alice.walletAddress],
    );
    assert.equal(await stack.token.ownerOf(tokenId), alice.walletAddress);
  });

  it("registers an asset type from the operator account, once", async () => {
    const typeName = `Operator SDK Type ${Date.now()}`;
    const registered = await ops.registerAssetTypeAsOperator({ typeName });
    assert.deepEqual([registered.success, registered.typeName], [true, typeName]);
    assert.match(registered.txHash, /^0x[0-9a-f]{64}$/);
    await refused(
      ops.registerAssetTypeAsOperator({ typeName }),
      400,
      `Asset type already registered: ${typeName}`,
    );
  });

  it("reads the whole audit log, filtered by action and organization, in cursor pages", async () => {
    const frozen = await ops.listAuditLog({ action: "asset.frozen", limit: 100 });
    assert.ok(frozen.data.length >= 1);
    assert.ok(frozen.data.every((r) => r.action === "asset.frozen" && r.actor === "admin"));
    const attempts = await ops.listAuditLog({ action: "operator_tx.attempted", limit: 100 });
    assert.ok(attempts.data.some((r) => r.changes.act === "asset.frozen"));

    const mine = await ops.listAuditLog({ orgId: alice.orgId, limit: 2 });
    assert.equal(mine.data.length, 2);
    assert.ok(mine.data.every((r) => r.orgId === alice.orgId));
    assert.notEqual(mine.nextCursor, null);
    const next = await ops.listAuditLog({ orgId: alice.orgId, limit: 2, cursor: mine.nextCursor! });
    assert.ok(BigInt(next.data[0]!.id) < BigInt(mine.data[1]!.id));

    await refused(ops.listAuditLog({ cursor: "garbage" }), 400, "Invalid cursor");
    await refused(ops.listAuditLog({ orgId: "org_nope" }), 404, "Organization not found");
  });
});
