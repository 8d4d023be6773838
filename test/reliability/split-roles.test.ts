// npm test: alone (several relayer processes on 1 s blocks)
import { untaggedCallData } from "../../relayer/src/engine/write-tag.js";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { JsonRpcProvider } from "ethers";
import { limitFromUsed, shapeKey } from "../../relayer/src/engine/gas-book.js";
import { GAS_CHANNEL } from "../../relayer/src/engine/tx-notifier.js";
import { DEFAULT_SEQUENCER_OPTIONS } from "../../relayer/src/engine/engine-context.js";
import { AssetToken__factory } from "../../typechain-types/factories/AssetToken__factory.js";
import type { AssetToken } from "../../typechain-types/AssetToken.js";
import { startRpcFaultProxy, type RpcFaultProxy } from "../support/rpc-fault-proxy.js";
import {
  call,
  indexerLockHolders,
  localPortsOf,
  postgresPortOf,
  startCluster,
  type Cluster,
  type ClusterOrg,
  type ClusterRelayer,
  waitUntil,
} from "./support/cluster.js";

/**
 * RELAYER_ROLE (docs/scaling.md): an API-only process and a worker process on one PostgreSQL and
 * one anvil. The API process records writes and never sends them, leases or indexes; the worker sends
 * them, indexes, and serves only /healthz and /metrics. Gas figures cross between them: the API
 * estimates a shape once, and a figure the worker's engine learns or forgets (an out-of-gas)
 * reaches the API. The API process talks to the node through a proxy that counts its estimates.
 */

const MARGIN = DEFAULT_SEQUENCER_OPTIONS.gasMarginPercent;

describe("an API-only process and a worker process", { timeout: 240_000 }, () => {
  let cluster: Cluster;
  let api: ClusterRelayer;
  let worker: ClusterRelayer;
  let proxy: RpcFaultProxy;
  let org: ClusterOrg;
  let provider: JsonRpcProvider;
  let token: AssetToken;

  before(async () => {
    cluster = await startCluster({ blockTime: 1 });
    proxy = await startRpcFaultProxy({ target: cluster.rpcUrl });
    worker = await cluster.spawn({ RELAYER_ROLE: "worker" });
    api = await cluster.spawn({ RELAYER_ROLE: "api", RPC_URL: proxy.url });
    provider = new JsonRpcProvider(cluster.rpcUrl, 1236, { staticNetwork: true });
    token = AssetToken__factory.connect(cluster.contracts.assetToken, provider);
    // Registration's allowlisting and faucet transactions are sent by the worker's engine.
    org = await cluster.registerOrg(api);
  });

  after(async () => {
    provider?.destroy();
    await cluster?.stop();
    await proxy?.close();
  });

  const issue = async (name: string) => {
    const res = await api.call("POST", "/api/v1/write/issue-asset", {
      apiKey: org.apiKey,
      body: { assetType: "Bond", name, description: "split roles" },
      timeoutMs: 60_000,
    });
    assert.equal(res.status, 200, res.text);
    return res.headers.get("x-transaction-id")!;
  };
  const rowOf = async (id: string) =>
    (
      await cluster.pool.query<{
        kind: string;
        to_address: string;
        data: string;
        gas_limit: string;
        attempts: Array<{ hash: string; outOfGas?: boolean }>;
        receipt: { gasUsed: string; status: number };
      }>(
        "SELECT kind, to_address, data, gas_limit::text, attempts, receipt FROM transactions WHERE id = $1",
        [id],
      )
    ).rows[0]!;

  test("the worker serves /healthz and /metrics only", async () => {
    const health = await worker.call("GET", "/healthz");
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: "ok" });
    const metrics = await call(worker.baseUrl, "GET", "/metrics", {
      adminToken: cluster.adminToken,
    });
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /rwa_db_statements_total/);
    const apiRoute = await worker.call("GET", "/api/v1/assets", { apiKey: org.apiKey });
    assert.equal(apiRoute.status, 404);
    assert.equal(typeof (apiRoute.body as { error?: unknown }).error, "string");
  });

  test("a write through the API process is sent by the worker: minted once, shape estimated once", async () => {
    const supply = await token.totalSupply();
    const estimates = proxy.forwarded("eth_estimateGas");
    // Registration's operator transactions are the API process's own (operator/operator-transactions.ts).
    const sent = proxy.forwarded("eth_sendRawTransaction");
    await issue("Split 1");
    assert.equal(proxy.forwarded("eth_estimateGas"), estimates + 1, "a new shape is estimated");
    await issue("Split 2");
    await issue("Split 3");
    assert.equal(proxy.forwarded("eth_estimateGas"), estimates + 1, "then known: not estimated");
    assert.equal(await token.totalSupply(), supply + 3n);
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), sent, "the worker sent the writes");

    // A wallet is leased while it has work (and given back when idle): queue some and look.
    const queued = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        api.call("POST", "/api/v1/write/issue-asset", {
          apiKey: org.apiKey,
          body: { assetType: "Bond", name: `Queued ${n}`, description: "split roles" },
          headers: { prefer: "respond-async" },
        }),
      ),
    );
    for (const res of queued) assert.equal(res.status, 202, res.text);
    const owners = await waitUntil("a leased wallet", async () => {
      const { rows } = await cluster.pool.query<{ lease_owner: string }>(
        "SELECT DISTINCT lease_owner FROM wallets WHERE lease_owner IS NOT NULL",
      );
      return rows.length > 0 ? rows.map((r) => r.lease_owner) : undefined;
    });
    for (const owner of owners)
      assert.ok(owner.includes(`:${worker.pid}:`), `lease held by ${owner}, not the worker`);
    const ids = queued.map((res) => (res.body as { transactionId: string }).transactionId);
    await waitUntil("the queued writes confirmed", async () => {
      const { rows } = await cluster.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM transactions WHERE id = ANY($1::text[]) AND state = 'confirmed'",
        [ids],
      );
      return rows[0]!.n === ids.length ? true : undefined;
    });

    assert.deepEqual(await indexerLockHolders(cluster), [worker.name], "the worker indexes");
  });

  test("a figure too low reaches both; the worker's out-of-gas and its receipt reach the API", async () => {
    const seed = await rowOf(await issue("Seed"));
    // The gas book's shapes are of the call without its write tag (`engine/write-tag.ts`).
    const key = shapeKey({
      kind: seed.kind,
      to: seed.to_address,
      data: untaggedCallData(seed.data),
    });
    // As another process would publish them: forget the shape, then a figure far too low.
    await cluster.pool.query("SELECT pg_notify($1, $2)", [GAS_CHANNEL, `elsewhere - ${key}`]);
    await cluster.pool.query("SELECT pg_notify($1, $2)", [GAS_CHANNEL, `elsewhere 30000 ${key}`]);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const supply = await token.totalSupply();
    const spent = await rowOf(await issue("Out of gas once"));
    assert.equal(spent.attempts.length, 2, "ran out of gas once, re-estimated and sent again");
    assert.equal(spent.attempts[0]!.outOfGas, true);
    const failed = await provider.getTransactionReceipt(spent.attempts[0]!.hash);
    assert.equal(
      failed?.gasUsed,
      52_100n,
      "the API applied the published figure: 30,000 + one slot",
    );
    assert.equal(spent.receipt.status, 1);
    assert.equal(await token.totalSupply(), supply + 1n, "one token");

    // The worker forgot the figure and learned the receipt's; the API process follows.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const estimates = proxy.forwarded("eth_estimateGas");
    const next = await rowOf(await issue("After the out-of-gas"));
    assert.equal(next.attempts.length, 1);
    assert.equal(
      BigInt(next.gas_limit),
      limitFromUsed(BigInt(spent.receipt.gasUsed), MARGIN),
      "the limit comes from the worker's receipt",
    );
    assert.equal(proxy.forwarded("eth_estimateGas"), estimates, "not estimated");
  });
  test("each process keeps to the connections docs/scaling.md counts: one pg-boss client in the worker", async () => {
    // After writes and deliveries have run, so the pools have opened what they use.
    const { rows } = await cluster.pool.query<{ client_port: number; application_name: string }>(
      `SELECT client_port, application_name FROM pg_stat_activity
        WHERE datname = current_database() AND client_port IS NOT NULL`,
    );
    const byName = (relayer: ClusterRelayer) => {
      const ports = localPortsOf(relayer.pid, postgresPortOf(cluster));
      const names = new Map<string, number>();
      for (const row of rows)
        if (ports.has(row.client_port))
          names.set(row.application_name, (names.get(row.application_name) ?? 0) + 1);
      return names;
    };
    const total = (names: Map<string, number>) => [...names.values()].reduce((a, b) => a + b, 0);
    const workers = byName(worker);
    const apis = byName(api);
    // pg-boss: one client per process (its pool of at most 4, and its LISTEN), not one per part.
    const queueNames = [...workers.keys()].filter(
      (name) =>
        name !== "rwa-relayer" && name !== "rwa-relayer-notify" && name !== "rwa-indexer-lock",
    );
    assert.deepEqual(
      queueNames,
      ["rwa-jobs"],
      `worker connections: ${JSON.stringify([...workers])}`,
    );
    assert.ok(workers.get("rwa-jobs")! <= 5, `worker connections: ${JSON.stringify([...workers])}`);
    assert.ok(total(workers) <= 27, `worker connections: ${JSON.stringify([...workers])}`);
    assert.equal(apis.get("rwa-jobs"), undefined, "the API process runs no pg-boss client");
    assert.ok(total(apis) <= 21, `API connections: ${JSON.stringify([...apis])}`);
  });
});
