// npm test: alone (relayer processes)
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { startReceiver, type Receiver } from "../relayer/webhooks/receiver.js";
import {
  startCluster,
  waitUntil,
  type Cluster,
  type ClusterOrg,
  type ClusterRelayer,
} from "./support/cluster.js";

/**
 * Bad webhook receivers (one hangs past the 5 s deadline, one answers 500, one 429 with
 * Retry-After, one closes the connection) must not delay another organization's deliveries.
 * The bound (< 5 s from the mint's answer to the delivery) is about isolation, not speed.
 */
describe("webhook deliveries are isolated between receivers", { timeout: 120_000 }, () => {
  let cluster: Cluster;
  let relayer: ClusterRelayer;
  let receiver: Receiver;
  let closer: http.Server;
  const badOrgs: ClusterOrg[] = [];
  let healthy: ClusterOrg;

  before(async () => {
    cluster = await startCluster({ blockTime: 0 });
    relayer = await cluster.spawn();
    receiver = await startReceiver();
    receiver.respond.set("/hang", () => ({ status: 200, delayMs: 10_000 }));
    receiver.respond.set("/fail", () => ({ status: 500 }));
    receiver.respond.set("/busy", () => ({ status: 429, headers: { "retry-after": "1" } }));
    closer = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => closer.listen(0, "127.0.0.1", resolve));
    const closerUrl = `http://127.0.0.1:${(closer.address() as AddressInfo).port}/close`;
    const targets = [
      receiver.url("/hang"),
      receiver.url("/fail"),
      receiver.url("/busy"),
      closerUrl,
    ];
    for (const url of [...targets, receiver.url("/healthy")]) {
      const org = await cluster.registerOrg(relayer);
      await cluster.subscribeWebhook(relayer, org, { url, events: ["asset.issued"] });
      if (url.endsWith("/healthy")) healthy = org;
      else badOrgs.push(org);
    }
  });

  after(async () => {
    await receiver?.close();
    await new Promise<void>((resolve) => {
      if (closer === undefined) return resolve();
      closer.close(() => resolve());
      closer.closeAllConnections();
    });
    await cluster?.stop();
  });

  async function issue(org: ClusterOrg, name: string): Promise<{ tokenId: string; at: number }> {
    const res = await relayer.call("POST", "/api/v1/write/issue-asset", {
      apiKey: org.apiKey,
      body: { assetType: "Bond", name, description: "isolation" },
      timeoutMs: 60_000,
    });
    assert.equal(res.status, 200, res.text);
    return { tokenId: String((res.body as { tokenId: string }).tokenId), at: Date.now() };
  }

  test("a healthy org's deliveries arrive within 5 s while four bad receivers exist", async () => {
    // Load the bad receivers first: three events each.
    for (let round = 0; round < 3; round += 1) {
      await Promise.all(badOrgs.map((org, i) => issue(org, `bad ${i}.${round}`)));
    }
    const latencies: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const { tokenId, at } = await issue(healthy, `healthy ${i}`);
      const delivery = await waitUntil(
        `healthy delivery of token ${tokenId}`,
        () =>
          receiver
            .accepted("/healthy")
            .find(
              (d) => d.json.event === "asset.issued" && String(d.json.data.tokenId) === tokenId,
            ),
        15_000,
        20,
      );
      latencies.push(delivery.receivedAt - at);
    }
    console.log(`healthy delivery latency (ms): ${latencies.join(", ")}`);
    for (const latency of latencies) assert.ok(latency < 5_000, `latency ${latency} ms`);
    // The bad receivers were really being tried meanwhile.
    assert.ok(receiver.received.some((d) => d.path === "/hang"));
    assert.ok(receiver.received.some((d) => d.path === "/fail"));
    assert.ok(receiver.received.some((d) => d.path === "/busy"));
  });
});
