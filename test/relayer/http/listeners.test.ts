import assert from "node:assert/strict";
import { request } from "node:http";
import { after, describe, it } from "node:test";
import { ConfigError } from "../../../relayer/src/errors.js";
import { listenShared, type Listeners } from "../../../relayer/src/http/listeners.js";

/** One GET on a connection of its own (no keep-alive pool): each is a new accept. */
function getOnNewConnection(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("listenShared (http/listeners.ts)", { skip: process.platform !== "linux" }, () => {
  const open: Listeners[] = [];
  after(async () => {
    await Promise.all(open.map((l) => l.close()));
  });

  it("binds every socket to one port and the kernel spreads new connections over them", async () => {
    const accepted = new Map<number, number>();
    const listeners = await listenShared(
      (req, res) => {
        // Which of the sockets accepted this connection.
        const index = listeners.servers.findIndex(
          (s) => s === (req.socket as { server?: unknown }).server,
        );
        accepted.set(index, (accepted.get(index) ?? 0) + 1);
        res.end(String(index));
      },
      { port: 0, host: "127.0.0.1", count: 8 },
    );
    open.push(listeners);
    assert.equal(listeners.servers.length, 8);
    for (const server of listeners.servers) {
      const address = server.address();
      assert.ok(address !== null && typeof address === "object");
      assert.equal(address.port, listeners.port);
    }
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => getOnNewConnection(listeners.port)),
    );
    assert.equal(answers.length, 200);
    assert.ok(!accepted.has(-1), "every connection was accepted by one of the servers");
    // 200 connections over 8 sockets: all on one would mean the port is not shared.
    assert.ok(accepted.size > 1, `connections per socket: ${JSON.stringify([...accepted])}`);
  });

  it("refuses a port another listener holds, shared or not, with the clear message", async () => {
    const first = await listenShared((_req, res) => res.end("first"), {
      port: 0,
      host: "127.0.0.1",
      count: 4,
    });
    open.push(first);
    await assert.rejects(
      listenShared((_req, res) => res.end("second"), {
        port: first.port,
        host: "127.0.0.1",
        count: 4,
      }),
      (error: unknown) =>
        error instanceof ConfigError && /is already in use: set PORT/.test(error.message),
    );
    await assert.rejects(
      listenShared((_req, res) => res.end("second"), {
        port: first.port,
        host: "127.0.0.1",
        count: 1,
      }),
      ConfigError,
    );
    // The first still answers every request: the refused one took none of its connections.
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => getOnNewConnection(first.port)),
    );
    assert.deepEqual(new Set(answers), new Set(["first"]));
  });

  it("close() frees the port", async () => {
    const listeners = await listenShared((_req, res) => res.end("a"), {
      port: 0,
      host: "127.0.0.1",
      count: 4,
    });
    await listeners.close();
    const again = await listenShared((_req, res) => res.end("b"), {
      port: listeners.port,
      host: "127.0.0.1",
      count: 1,
    });
    open.push(again);
    assert.equal(await getOnNewConnection(again.port), "b");
  });
});
