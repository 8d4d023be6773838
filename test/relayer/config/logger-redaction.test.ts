import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { createLogger, REDACTED } from "../../../relayer/src/logger.js";

/** A logger writing into a string, and a reader of what it wrote. */
function captured(level = "trace") {
  let output = "";
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      output += chunk.toString();
      done();
    },
  });
  const logger = createLogger({ level, destination });
  return {
    logger,
    text: () => output,
    lines: () =>
      output
        .trim()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const API_KEY = `rwa_live_${"a1".repeat(32)}`;
const ADMIN_TOKEN = `ent_admin_${"b2".repeat(32)}`;
const PRIVATE_KEY = `0x${"c3".repeat(32)}`;
const MASTER_KEY = "d4".repeat(32);
const MASTER_KEY_PREVIOUS = "e5".repeat(32);
const WEBHOOK_SECRET = "whsec_super_secret_value";
const PASSWORD = "correct horse battery staple";

describe("createLogger redaction", () => {
  test("redacts secret fields at any depth, including request headers", () => {
    const log = captured();
    log.logger.info(
      {
        privateKey: PRIVATE_KEY,
        masterKey: MASTER_KEY,
        masterKeyPrevious: MASTER_KEY_PREVIOUS,
        password: PASSWORD,
        org: { wallet: { encrypted_private_key: PRIVATE_KEY, address: "0xabc" } },
        webhook: { secret: WEBHOOK_SECRET, url: "https://example.test/hook" },
        req: {
          headers: {
            "x-api-key": API_KEY,
            "x-admin-token": ADMIN_TOKEN,
            authorization: `Bearer ${API_KEY}`,
            cookie: "session=abc",
            "content-type": "application/json",
          },
        },
        list: [{ apiKey: API_KEY }, { token: ADMIN_TOKEN }],
        config: { adminToken: ADMIN_TOKEN, databaseUrl: "postgres://u:pw@h/db", port: 8080 },
      },
      "request",
    );
    const text = log.text();
    for (const secret of [
      API_KEY,
      ADMIN_TOKEN,
      PRIVATE_KEY,
      MASTER_KEY,
      MASTER_KEY_PREVIOUS,
      WEBHOOK_SECRET,
      PASSWORD,
      "session=abc",
    ]) {
      assert.ok(!text.includes(secret), `leaked ${secret.slice(0, 12)}...`);
    }
    const [line] = log.lines();
    const req = line!.req as { headers: Record<string, unknown> };
    assert.equal(req.headers["x-api-key"], REDACTED);
    assert.equal(req.headers["content-type"], "application/json", "other headers stay");
    assert.equal((line!.webhook as Record<string, unknown>).url, "https://example.test/hook");
    assert.equal((line!.config as Record<string, unknown>).port, 8080);
    assert.equal(
      ((line!.org as Record<string, unknown>).wallet as Record<string, unknown>).address,
      "0xabc",
    );
  });

  test("drops the connection object drivers attach to errors", () => {
    const log = captured();
    const error = Object.assign(new Error("terminating connection"), {
      code: "57P01",
      client: { connectionParameters: { password: "pw" }, processID: 1, secretKey: 123 },
    });
    log.logger.warn({ err: error }, "pool error");
    const [line] = log.lines();
    const err = line!.err as Record<string, unknown>;
    assert.equal(err.code, "57P01");
    assert.equal(err.client, undefined);
    assert.ok(!log.text().includes("secretKey"));
  });

  test("keeps public ids that look like secret names (keyId, tokenId, assetToken)", () => {
    const log = captured();
    log.logger.info(
      {
        keyId: "key_1",
        tokenId: "42",
        idempotencyKey: "retry-1",
        contracts: { assetToken: "0xToken" },
      },
      "ids",
    );
    const [line] = log.lines();
    assert.equal(line!.keyId, "key_1");
    assert.equal(line!.tokenId, "42");
    assert.equal(line!.idempotencyKey, "retry-1");
    assert.equal((line!.contracts as Record<string, unknown>).assetToken, "0xToken");
  });

  test("scrubs API keys and admin tokens inside messages and error texts", () => {
    const log = captured();
    log.logger.warn(`rejected key ${API_KEY}`);
    log.logger.error({ err: new Error(`bad token ${ADMIN_TOKEN}`) }, "failed");
    log.logger.info("connecting to %s", "postgres://relayer:s3cret@db/rwa");
    const text = log.text();
    assert.ok(!text.includes(API_KEY));
    assert.ok(!text.includes(ADMIN_TOKEN));
    assert.ok(!text.includes("s3cret"));
    assert.match(text, /bad token \[REDACTED\]/);
    const errLine = log.lines()[1]!;
    assert.equal(
      (errLine.err as Record<string, unknown>).type,
      "Error",
      "errors are still serialised",
    );
  });

  test("redacts secrets in child logger bindings", () => {
    const log = captured();
    log.logger.child({ apiKey: API_KEY, orgId: "org_1" }).info("child");
    const [line] = log.lines();
    assert.equal(line!.apiKey, REDACTED);
    assert.equal(line!.orgId, "org_1");
  });

  test("survives circular objects and honours the level", () => {
    const log = captured("warn");
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;
    log.logger.info({ loop }, "dropped");
    log.logger.warn({ loop }, "kept");
    const lines = log.lines();
    assert.equal(lines.length, 1);
    assert.equal((lines[0]!.loop as Record<string, unknown>).self, "[Circular]");
  });
});
