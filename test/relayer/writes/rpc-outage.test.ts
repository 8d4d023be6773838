import assert from "node:assert/strict";
import net from "node:net";
import { describe, it } from "node:test";
import { findFreePort } from "../../../deploy/local-chain.js";
import { assetBody } from "./helpers.js";
import { useChildRelayers } from "./relayer-child-process.js";

/** A TCP proxy to anvil that can be cut (the node looks unreachable) and restored on the same port. */
function rpcProxy(listenPort: number, target: URL) {
  let server: net.Server | undefined;
  const sockets = new Set<net.Socket>();
  const up = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(listenPort, "127.0.0.1", () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server?.close(() => resolve());
    });
  return { up, down, url: `http://127.0.0.1:${listenPort}` };
}

describe("RPC outage (relayer child behind a cuttable proxy, anvil 1 s blocks)", () => {
  const relayers = useChildRelayers();

  it("writes answer 503 while the node is down, queued work completes after it returns, later writes succeed", async () => {
    const { stack } = relayers;
    const org = await stack.registerOrg();
    const proxy = rpcProxy(await findFreePort(), new URL(stack.rpcUrl));
    await proxy.up();
    const started = await relayers.start(proxy.url);
    const call = (headers: Record<string, string> = {}) =>
      fetch(`${started.baseUrl}/api/v1/write/issue-asset`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": org.apiKey, ...headers },
        body: JSON.stringify(assetBody()),
      });

    assert.equal((await call()).status, 200);
    const accepted = await Promise.all(
      Array.from({ length: 5 }, () => call({ prefer: "respond-async" })),
    );
    const ids = await Promise.all(
      accepted.map(async (r) => ((await r.json()) as { transactionId: string }).transactionId),
    );
    await proxy.down();
    // The chain views a write is checked against are kept for at most a second per block
    // (chain/head-reads.ts): past that, a write needs the node.
    await new Promise((r) => setTimeout(r, 1_500));

    const down = await call();
    assert.equal(down.status, 503);
    assert.deepEqual(await down.json(), { error: "RPC unavailable" });

    await new Promise((r) => setTimeout(r, 2_000));
    await proxy.up();
    const deadline = Date.now() + 45_000;
    const states = new Map<string, string>();
    while (Date.now() < deadline) {
      for (const id of ids) {
        const res = await fetch(`${started.baseUrl}/api/v1/transactions/${id}`, {
          headers: { "x-api-key": org.apiKey },
        });
        states.set(id, ((await res.json()) as { status: string }).status);
      }
      if ([...states.values()].every((s) => s === "confirmed")) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.deepEqual([...states.values()], Array(5).fill("confirmed"));
    assert.equal((await call()).status, 200);
    await proxy.down();
  });
});
