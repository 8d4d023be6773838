import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { AbiCoder, parseEther, Wallet, type JsonRpcProvider } from "ethers";
import { deployAll } from "../../../deploy/deploy.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import type { AppContext } from "../../../relayer/src/context.js";
import { startIndexer, type IndexerHandle } from "../../../relayer/src/indexer/start-indexer.js";
import { createAppContext, releaseAppServices } from "../../../relayer/src/create-app-context.js";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import type { TestOrg } from "../../support/stack.js";
import { FOREIGN_KEYS, testProvider } from "../webhooks/chain-helpers.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";

// The local `npm start` redeploys the contracts on the same chain and database when their ABI
// changed; the indexer then empties the read model of the old contracts (bindDeployment) and
// starts again from the new deployment block. Restarting on the same contracts keeps everything.

const REDEPLOYED = "contracts were redeployed";

describe("indexer follows a redeployment (anvil + PostgreSQL)", () => {
  let stack: WriteStack;
  let org: TestOrg;
  let tmpDir: string;
  let indexer: IndexerHandle | undefined;
  let redeployed: AppContext | undefined;
  let provider: JsonRpcProvider;

  // Rows are untyped, like response bodies; `any` keeps the assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const q = async <T = any>(text: string, values: unknown[] = []) =>
    (await stack.database.pool.query(text, values)).rows as T[];
  const head = async () => Number(BigInt(await stack.rpc<string>("eth_blockNumber")));
  const count = async (table: string) =>
    Number((await q<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
  /** Row versions: a row deleted and indexed again gets a new xmin. */
  const versions = async () => ({
    assets: await q(`SELECT token_id, xmin::text FROM assets ORDER BY token_id`),
    listings: await q(`SELECT listing_id, xmin::text FROM listings ORDER BY listing_id`),
    types: await q(`SELECT type_id, xmin::text FROM asset_types ORDER BY type_id`),
    logs: await q(`SELECT block_number, log_index, xmin::text FROM chain_logs ORDER BY 1, 2`),
    firstBlock: (await q(`SELECT min(number)::int AS n FROM indexed_blocks`))[0].n as number,
  });
  const deploymentSetting = async () =>
    (await q(`SELECT value FROM settings WHERE key = 'indexer_deployment'`))[0]?.value as
      | string
      | undefined;
  const start = (ctx: AppContext) => startIndexer(ctx, { pollIntervalMs: 50, lockPollMs: 100 });
  const redeployLines = () => stack.logs.filter((l) => l.includes(REDEPLOYED)).length;

  before(async () => {
    stack = await startWriteStack();
    provider = testProvider(stack.rpcUrl);
    tmpDir = mkdtempSync(path.join(os.tmpdir(), "rwa-redeploy-"));
    org = await stack.registerOrg();
    // Real activity through the API on the first deployment: an asset, then its listing.
    const issued = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(issued.status, 200, issued.text);
    const listed = await org.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId: issued.body.tokenId, priceInCOIN: "1", durationDays: 7 },
    });
    assert.equal(listed.status, 200, listed.text);
  });
  after(async () => {
    await indexer?.stop();
    if (redeployed !== undefined) await releaseAppServices(redeployed);
    provider?.destroy();
    await stack?.stop();
    if (tmpDir !== undefined) rmSync(tmpDir, { recursive: true, force: true });
  });

  it("a restart on the same deployment keeps the read model and the cursor", async () => {
    const { contracts } = stack.ctx;
    const before = await versions();
    assert.equal(before.assets.length, 1);
    assert.equal(before.listings.length, 1);
    assert.ok(before.types.length > 0);
    assert.equal(before.firstBlock, contracts.deployBlock - 1);
    const bound = await deploymentSetting();
    assert.ok(bound?.includes(contracts.assetToken.toLowerCase()), bound);
    const { block_number: cursorBefore } = (
      await q(`SELECT block_number::int FROM indexer_cursor`)
    )[0];

    await stack.indexer.stop();
    indexer = await start(stack.ctx);
    await stack.rpc("anvil_mine", ["0x3"]);
    await indexer.waitForBlock(await head(), 20_000);

    assert.deepEqual(await versions(), before, "nothing deleted and indexed again");
    assert.equal(await deploymentSetting(), bound);
    const { block_number: cursorAfter } = (
      await q(`SELECT block_number::int FROM indexer_cursor`)
    )[0];
    assert.ok(cursorAfter >= cursorBefore + 3, `cursor ${cursorBefore} -> ${cursorAfter}`);
    assert.equal(redeployLines(), 0);
    // The API still reads the asset and its listing.
    const asset = await org.api("GET", `/api/v1/assets/${before.assets[0].token_id}`);
    assert.equal(asset.status, 200, asset.text);
  });

  it("a new deployment empties the old contracts' rows, restarts at its deploy block and indexes the new contracts", async () => {
    const old = stack.ctx.contracts;
    const oldRows = await q(`SELECT token_id, owner FROM assets`);
    assert.equal(oldRows.length, 1);
    assert.equal(oldRows[0].owner, old.marketplace.toLowerCase(), "listed on the old marketplace");

    // Deploy the contracts again on the same chain (a fresh record file: a new deployment).
    const { deployment } = await deployAll({
      rpcUrl: stack.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile: path.join(tmpDir, "deployments", "1236.json"),
      build: "never",
      log: () => undefined,
    });
    const contracts = { ...deployment.addresses, deployBlock: deployment.blockNumber };
    assert.notEqual(contracts.assetToken.toLowerCase(), old.assetToken.toLowerCase());
    assert.ok(contracts.deployBlock > old.deployBlock);

    await indexer!.stop();
    indexer = undefined;
    redeployed = createAppContext({
      config: stack.ctx.config,
      logger: stack.ctx.logger,
      database: stack.database,
      rpcUrl: stack.rpcUrl,
      contracts,
      isLocalChain: true,
    });
    indexer = await start(redeployed);
    await indexer.waitForBlock(await head(), 20_000);

    // The old contracts' rows are gone, and indexing started again at the new deployment block.
    assert.equal(await count("assets"), 0);
    assert.equal(await count("listings"), 0);
    assert.equal(await count("transfers"), 0);
    const firstBlock = (await q(`SELECT min(number)::int AS n FROM indexed_blocks`))[0].n;
    assert.equal(firstBlock, contracts.deployBlock - 1);
    const logs = await q(`SELECT min(block_number)::int AS first FROM chain_logs`);
    assert.ok(logs[0].first >= contracts.deployBlock, `chain_logs from block ${logs[0].first}`);
    // The new registry's types (registered after the new deployment) are indexed.
    const types = await q(
      `SELECT min(block_number)::int AS first, count(*)::int AS n FROM asset_types`,
    );
    assert.ok(types[0].n > 0);
    assert.ok(types[0].first >= contracts.deployBlock);
    const bound = await deploymentSetting();
    assert.ok(bound?.includes(contracts.assetToken.toLowerCase()), bound);
    assert.ok(bound?.endsWith(`@${contracts.deployBlock}`), bound);
    assert.equal(redeployLines(), 1);

    // Activity on the new contracts is indexed: token id 1 again, another owner, then a listing.
    const minter = new Wallet(FOREIGN_KEYS[0], provider);
    const token = AssetToken__factory.connect(contracts.assetToken, minter);
    const minted = await (
      await token.getFunction("mint")(
        "Bond",
        { digest: `0x${"01".repeat(32)}`, version: 1, codec: 0x0200, hashCode: 0x12 },
        `0x${"00".repeat(32)}`,
        { value: parseEther("0.1") },
      )
    ).wait();
    const listed = await (
      await token.getFunction("safeTransferFrom(address,address,uint256,bytes)")(
        minter.address,
        contracts.marketplace,
        1n,
        AbiCoder.defaultAbiCoder().encode(["uint256", "uint256"], [parseEther("2"), 7n]),
      )
    ).wait();
    assert.ok(listed!.blockNumber > minted!.blockNumber);
    await indexer.waitForBlock(listed!.blockNumber, 20_000);
    const assets = await q(`SELECT token_id::text, owner, mint_tx_hash FROM assets`);
    assert.deepEqual(assets, [
      {
        token_id: "1",
        owner: contracts.marketplace.toLowerCase(),
        mint_tx_hash: minted!.hash,
      },
    ]);
    const listings = await q(
      `SELECT listing_id::text, token_id::text, seller, state FROM listings`,
    );
    assert.deepEqual(listings, [
      { listing_id: "1", token_id: "1", seller: minter.address.toLowerCase(), state: "active" },
    ]);
    // The API reads the new contracts' asset.
    const read = await org.api("GET", "/api/v1/assets/1");
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.tokenId, "1");
  });

  it("a database indexed before the binding was recorded is kept on its own contracts and emptied for newer ones", async () => {
    const dropBinding = () => q(`DELETE FROM settings WHERE key = 'indexer_deployment'`);
    const current = redeployed!;
    const before = await versions();
    assert.equal(before.assets.length, 1);

    // No record, cursor past the deployment block: the same contracts, nothing emptied.
    await indexer!.stop();
    indexer = undefined;
    await dropBinding();
    indexer = await start(current);
    await indexer.waitForBlock(await head(), 20_000);
    assert.deepEqual(await versions(), before, "nothing deleted and indexed again");
    assert.ok((await deploymentSetting())?.endsWith(`@${current.contracts.deployBlock}`));
    assert.equal(redeployLines(), 1);

    // No record, cursor before a newer deployment (made while the relayer was down, on a chain
    // that kept producing blocks): the read model is emptied.
    await indexer.stop();
    indexer = undefined;
    await dropBinding();
    await stack.rpc("anvil_mine", ["0x5"]);
    const { deployment } = await deployAll({
      rpcUrl: stack.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile: path.join(tmpDir, "third", "1236.json"),
      build: "never",
      log: () => undefined,
    });
    const third = createAppContext({
      config: stack.ctx.config,
      logger: stack.ctx.logger,
      database: stack.database,
      rpcUrl: stack.rpcUrl,
      contracts: { ...deployment.addresses, deployBlock: deployment.blockNumber },
      isLocalChain: true,
    });
    try {
      indexer = await start(third);
      await indexer.waitForBlock(await head(), 20_000);
      assert.equal(await count("assets"), 0);
      assert.equal(await count("listings"), 0);
      const firstBlock = (await q(`SELECT min(number)::int AS n FROM indexed_blocks`))[0].n;
      assert.equal(firstBlock, deployment.blockNumber - 1);
      assert.ok((await deploymentSetting())?.endsWith(`@${deployment.blockNumber}`));
      assert.equal(redeployLines(), 2);
    } finally {
      await indexer?.stop();
      indexer = undefined;
      await releaseAppServices(third);
    }
  });
});
