import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";
import { findFreePort } from "../../../deploy/local-chain.js";
import {
  startPinWorkers,
  type PinWorkersHandle,
} from "../../../relayer/src/metadata/start-pin-workers.js";
import type { TestStackOptions } from "../../support/stack.js";
import { assetBody, startWriteStack } from "../writes/helpers.js";
import { assertError } from "../../support/assert-error.js";

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function hashesTo(bytes: Uint8Array, cid: CID): Promise<boolean> {
  const again = CID.createV1(cid.code, await sha256.digest(bytes));
  return again.equals(cid);
}

/** A write stack (engine and indexer) with the pin worker running. */
async function startPinningStack(options: TestStackOptions = {}) {
  const stack = await startWriteStack(options);
  const pins: PinWorkersHandle = await startPinWorkers(stack.ctx);
  const org = await stack.registerOrg();
  const issue = async (name: string) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name, assetType: "Real Estate" }),
    });
    assert.equal(res.status, 200, res.text);
    return res.body as { tokenId: string; ipfsHash: string };
  };
  const asset = async (tokenId: string) => {
    const res = await stack.api("GET", `/api/v1/assets/${tokenId}`);
    return res.status === 200 ? res.body : undefined;
  };
  const stop = async () => {
    await pins.stop();
    await stack.stop();
  };
  return { stack, org, issue, asset, stop };
}

describe("metadata documents on the embedded IPFS node", () => {
  let env: Awaited<ReturnType<typeof startPinningStack>>;
  before(async () => {
    env = await startPinningStack();
  });
  after(() => env?.stop());

  it("an issued asset's CID resolves on the embedded node by CID alone, to bytes that hash to it", async () => {
    const issued = await env.issue("Harbour Warehouse");
    const record = await until("metadataPinned", async () => {
      const a = await env.asset(issued.tokenId);
      return a?.metadataPinned === true ? a : undefined;
    });
    assert.equal(record.metadataCid, issued.ipfsHash, "the on-chain CID is the document's");
    const cid = CID.parse(issued.ipfsHash);
    assert.equal(cid.code, 0x55, "raw codec, as `ipfs add --cid-version 1` gives");

    const fromNode = await env.stack.ctx.ipfs.get(cid);
    assert.ok(fromNode, "the embedded node holds the block");
    assert.ok(await hashesTo(fromNode, cid));
    assert.equal(JSON.parse(new TextDecoder().decode(fromNode)).name, "Harbour Warehouse");

    // Served over the gateway route from the document the service holds.
    const res = await fetch(`${env.stack.baseUrl}/ipfs/${issued.ipfsHash}`);
    assert.equal(res.status, 200);
    const served = new Uint8Array(await res.arrayBuffer());
    assert.ok(await hashesTo(served, cid), "the gateway's bytes hash to the CID");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    // Only documents the service holds: the node's own copy is not served on its own.
    await env.stack.database.pool.query(`DELETE FROM token_metadata WHERE cid = $1`, [
      issued.ipfsHash,
    ]);
    const gone = await env.stack.api("GET", `/ipfs/${issued.ipfsHash}`);
    assertError(gone, 404, "Not found");
  });

  it("a token sharing an earlier token's document is marked pinned; the earlier one is left as it was", async () => {
    const pinnedAt = async (tokenId: string) =>
      (
        await env.stack.database.pool.query<{ at: string | null }>(
          "SELECT pinned_at::text AS at FROM token_metadata WHERE token_id = $1",
          [tokenId],
        )
      ).rows[0]?.at ?? undefined;
    const first = await env.issue("Twin Depot");
    const firstAt = await until("the first pin", () => pinnedAt(first.tokenId));
    const second = await env.issue("Twin Depot");
    assert.equal(second.ipfsHash, first.ipfsHash, "one document, one CID");
    await until("the second pin", () => pinnedAt(second.tokenId));
    assert.equal(await pinnedAt(first.tokenId), firstAt, "the first token's row is not re-marked");
    assert.equal((await env.asset(second.tokenId))?.metadataPinned, true);
  });

  it("the gateway answers 404 for a CID it does not hold and 400 for a malformed one", async () => {
    const unknown = CID.createV1(0x55, await sha256.digest(new TextEncoder().encode("nope")));
    const missing = await env.stack.api("GET", `/ipfs/${unknown.toString()}`);
    assertError(missing, 404, "Not found");
    const bad = await env.stack.api("GET", "/ipfs/not-a-cid");
    assertError(bad, 400, "Invalid field: cid (not a valid IPFS CID)");
  });
});

describe("metadata pins on an unreachable kubo node", () => {
  let env: Awaited<ReturnType<typeof startPinningStack>>;
  before(async () => {
    const closedPort = await findFreePort(); // nothing listens there
    env = await startPinningStack({
      config: { ipfs: { kind: "kubo", url: `http://127.0.0.1:${closedPort}` } },
    });
  });
  after(() => env?.stop());

  it("the mint still succeeds, the asset shows metadataPinned false and the pin is retried", async () => {
    const issued = await env.issue("Unpinned Depot");
    const record = await until("the asset record", () => env.asset(issued.tokenId));
    assert.equal(record.name, "Unpinned Depot");
    assert.equal(record.metadataPinned, false);
    const job = await until(
      "a retried pin job",
      async () => {
        const { rows } = await env.stack.database.pool.query<{ retry_count: number }>(
          `SELECT retry_count FROM pgboss.job WHERE name = 'metadata-pin' AND data->>'cid' = $1`,
          [issued.ipfsHash],
        );
        return rows[0] !== undefined && rows[0].retry_count >= 1 ? rows[0] : undefined;
      },
      30_000,
    );
    assert.ok(job.retry_count >= 1);
    const { rows } = await env.stack.database.pool.query<{ pin_error: string | null }>(
      `SELECT pin_error FROM token_metadata WHERE token_id = $1`,
      [issued.tokenId],
    );
    assert.ok(rows[0]?.pin_error, "the last failure is recorded");
    assert.equal((await env.asset(issued.tokenId))?.metadataPinned, false);
  });
});

describe("the /ipfs gateway with IPFS_API_URL set (a recording kubo stand-in)", () => {
  let env: Awaited<ReturnType<typeof startPinningStack>>;
  let kubo: http.Server;
  const asked: string[] = [];
  before(async () => {
    kubo = http.createServer((req, res) => {
      asked.push(req.url ?? "");
      res.writeHead(500, { "content-type": "text/plain" }).end("not a real node");
    });
    await new Promise<void>((resolve) => kubo.listen(0, "127.0.0.1", resolve));
    const { port } = kubo.address() as AddressInfo;
    env = await startPinningStack({
      config: { ipfs: { kind: "kubo", url: `http://127.0.0.1:${port}` } },
    });
  });
  after(async () => {
    await env?.stop();
    kubo?.closeAllConnections();
    await new Promise((resolve) => kubo?.close(resolve));
  });

  it("answers 404 for a CID the service does not hold without asking the node, and serves its own documents from the database", async () => {
    const unknown = CID.createV1(0x55, await sha256.digest(new TextEncoder().encode("elsewhere")));
    const missing = await env.stack.api("GET", `/ipfs/${unknown.toString()}`);
    assertError(missing, 404, "Not found");
    const issued = await env.issue("Held Here");
    const res = await fetch(`${env.stack.baseUrl}/ipfs/${issued.ipfsHash}`);
    assert.equal(res.status, 200);
    assert.ok(await hashesTo(new Uint8Array(await res.arrayBuffer()), CID.parse(issued.ipfsHash)));
    // Pins (`block/put`) go to the node; nothing that reads or searches for a block does.
    const reads = asked.filter((url) =>
      /^\/api\/v0\/(block\/(get|stat)|cat|get|dag\/get|routing|dht)/.test(url),
    );
    assert.deepEqual(reads, [], "the node was never asked to find a block");
    assert.ok(!asked.some((url) => url.includes(unknown.toString())));
  });
});
