import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { reindexCommand } from "../../../relayer/src/recovery/recovery-commands.js";
import { deployedChainState, writeDeploymentRecord } from "../../support/chain-state.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";

/**
 * `npm run reindex` (docs/recovery.md "Rebuilding the read model") on a real anvil and
 * PostgreSQL, while the service runs: a damaged read model is rebuilt from the deployment block,
 * reads answer all along, a write made meanwhile is indexed, and the live indexer goes on after
 * the swap.
 */
describe("npm run reindex", { timeout: 240_000 }, () => {
  let stack: WriteStack;
  let org: TestOrg;
  const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-reindex-"));
  let env: NodeJS.ProcessEnv;

  before(async () => {
    stack = await startWriteStack();
    org = await stack.registerOrg();
    const deploymentFile = path.join(dir, "deployments", "1236.json");
    writeDeploymentRecord(deploymentFile, (await deployedChainState()).deploymentJson);
    env = {
      DATABASE_URL: stack.testDatabase.url,
      RPC_URL: stack.rpcUrl,
      DEPLOYMENTS_FILE: deploymentFile,
      DATA_DIR: path.join(dir, "data"),
    };
  });
  after(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const issue = async (name: string) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody({ name }) });
    assert.equal(res.status, 200, res.text);
    return (res.body as { tokenId: string }).tokenId;
  };

  /** The read model's owners, against the chain's. */
  async function assertMatchesChain(): Promise<void> {
    const total = Number(await stack.token.totalSupply());
    const { rows } = await stack.database.pool.query<{ token_id: string; owner: string }>(
      `SELECT token_id::text, owner FROM assets WHERE NOT redeemed ORDER BY token_id`,
    );
    assert.equal(rows.length, total, "one row per token on chain");
    for (const row of rows)
      assert.equal(
        row.owner.toLowerCase(),
        (await stack.token.ownerOf(BigInt(row.token_id))).toLowerCase(),
        `owner of ${row.token_id}`,
      );
  }

  it("rebuilds a damaged read model from the deployment block while reads and writes go on", async () => {
    const tokens = [await issue("one"), await issue("two"), await issue("three")];
    const listed = await org.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId: tokens[2], priceInCOIN: "0.5" },
    });
    assert.equal(listed.status, 200, listed.text);
    // The damage: a token's row lost, another's owner wrong, the listing gone.
    await stack.database.pool.query(`DELETE FROM assets WHERE token_id = $1`, [tokens[0]]);
    await stack.database.pool.query(`UPDATE assets SET owner = $2 WHERE token_id = $1`, [
      tokens[1],
      "0x000000000000000000000000000000000000dEaD",
    ]);
    await stack.database.pool.query(`DELETE FROM listings`);
    await assert.rejects(assertMatchesChain());

    const out: string[] = [];
    const running = reindexCommand({
      argv: [],
      env,
      print: (line) => out.push(line),
      printError: (line) => out.push(line),
    });
    // Meanwhile: reads answer, and a write is made and indexed (by the live indexer).
    let reads = 0;
    let finished = false;
    const done = running.finally(() => {
      finished = true;
    });
    const during = await issue("during the reindex");
    while (!finished) {
      const res = await org.api("GET", "/api/v1/assets");
      assert.equal(res.status, 200, res.text);
      reads += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(await done, 0, out.join("\n"));
    assert.ok(reads > 0);
    const text = out.join("\n");
    assert.match(text, /Rebuilding the read model of DATABASE_URL from block \d+/);
    assert.match(text, /\[[#.]{30}\] +\d+% block \d+ of \d+, \d+ blocks\/s/);
    assert.match(text, /Rebuilt \d+ blocks in [\d.]+ s \(\d+ blocks\/s\); swapped in at block \d+/);

    await assertMatchesChain();
    const listings = await stack.database.pool.query(
      `SELECT 1 FROM listings WHERE token_id = $1 AND state = 'active'`,
      [tokens[2]],
    );
    assert.equal(listings.rowCount, 1, "the listing is back");
    const shadow = await stack.database.pool.query(
      `SELECT 1 FROM pg_namespace WHERE nspname = 'reindex_shadow'`,
    );
    assert.equal(shadow.rowCount, 0, "the copy's schema is dropped");

    // The live indexer goes on from the swapped-in cursor.
    const next = await issue("after the reindex");
    const assets = await org.api("GET", "/api/v1/assets?limit=100");
    const ids = (assets.body as { data: Array<{ tokenId: string }> }).data.map((a) => a.tokenId);
    for (const id of [...tokens, during, next]) assert.ok(ids.includes(id), `token ${id} is read`);
    await assertMatchesChain();
  });
});
