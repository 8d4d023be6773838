import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { nextRetryDelayMs, parseRetryAfterMs } from "../../../relayer/src/webhooks/backoff.js";
import { circuitHoldMs, isCircuitOpen } from "../../../relayer/src/webhooks/circuit-breaker.js";
import { payloadBody } from "../../../relayer/src/webhooks/payload-body.js";
import {
  DestinationRefusedError,
  resolveDestination,
} from "../../../relayer/src/webhooks/resolve-destination.js";
import { serviceSignature, signatureHeaders } from "../../../relayer/src/webhooks/sign.js";
import { decodePageCursor, encodePageCursor } from "../../../relayer/src/shared/cursor.js";
import { weiToDecimal } from "../../../relayer/src/domain/amount.js";
import { assertExponentialBackoff } from "../../support/assert-backoff.js";

const body = payloadBody({
  event: "asset.issued",
  timestamp: 1,
  orgId: "org_1",
  txHash: "0xab",
  blockNumber: 7,
  data: { tokenId: "1" },
});

describe("webhook signing", () => {
  it("X-Service-Signature is sha256= and the lowercase hex HMAC of the raw body keyed with the secret", () => {
    const secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0";
    assert.equal(
      serviceSignature(secret, body),
      `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
    );
    assert.match(serviceSignature(secret, body), /^sha256=[0-9a-f]{64}$/);
  });

  it("Standard Webhooks headers verify with the standardwebhooks package for whsec_ and raw secrets", () => {
    for (const [secret, verifier] of [
      ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", (s: string) => new Webhook(s)],
      ["plain-secret-of-sixteen+", (s: string) => new Webhook(s, { format: "raw" })],
    ] as const) {
      const headers = signatureHeaders(secret, "evt_123", body);
      assert.deepEqual(verifier(secret).verify(body, headers), JSON.parse(body));
      assert.throws(() => verifier(secret).verify(`${body} `, headers));
      assert.ok(
        Object.values(headers).every((v) => !v.includes(secret)),
        "secret never in a header",
      );
    }
  });

  it("during a rotation webhook-signature carries the new and the previous signature, space-separated; X-Service-Signature only the new", () => {
    const previous = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const next = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0";
    const headers = signatureHeaders(next, "evt_r", body, Date.now(), [previous]);
    const parts = headers["webhook-signature"]!.split(" ");
    assert.equal(parts.length, 2);
    assert.ok(parts.every((p) => /^v1,[A-Za-z0-9+/]+=*$/.test(p)));
    assert.equal(headers["X-Service-Signature"], serviceSignature(next, body));
    // Either secret alone verifies with the standardwebhooks package.
    assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(next).verify(body, headers), JSON.parse(body));
    assert.equal(
      signatureHeaders(next, "evt_r", body, Date.now())["webhook-signature"]!.split(" ").length,
      1,
    );
  });

  it("the webhook-id header is the event id, stable across attempts", () => {
    assert.equal(signatureHeaders("s".repeat(16), "evt_a", body, 1_000)["webhook-id"], "evt_a");
    assert.equal(signatureHeaders("s".repeat(16), "evt_a", body, 9_000)["webhook-id"], "evt_a");
  });
});

describe("circuit breaker", () => {
  it("holds 30 s the first time, doubling each time it opens again, capped at 1 h", () => {
    const holds = [0, 1, 2, 3, 7, 8, 40].map((n) => circuitHoldMs(n, 30_000, 3_600_000));
    assert.deepEqual(holds, [30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it("is open only while openUntil is in the future", () => {
    assert.equal(isCircuitOpen({ openUntil: null }), false);
    assert.equal(isCircuitOpen({ openUntil: new Date(2_000) }, 1_000), true);
    assert.equal(isCircuitOpen({ openUntil: new Date(2_000) }, 2_000), false);
  });
});

describe("retry backoff", () => {
  it("grows exponentially with jitter, is capped, and honours Retry-After", () => {
    assertExponentialBackoff(
      (attempt, retryAfterMs, jitter) =>
        nextRetryDelayMs(attempt, 1_000, 60_000, retryAfterMs, () => jitter),
      { firstAttempt: 1, baseMs: 1_000, maxMs: 60_000 },
    );
    assert.equal(parseRetryAfterMs("7"), 7_000);
    assert.equal(
      parseRetryAfterMs(new Date(Date.now() + 10_000).toUTCString()) !== undefined,
      true,
    );
    assert.equal(parseRetryAfterMs("soon"), undefined);
  });
});

describe("delivery destination (SSRF guard)", () => {
  const refused = [
    "http://127.0.0.1/x",
    "http://10.1.2.3/x",
    "http://172.16.0.1/x",
    "http://192.168.1.1/x",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/x",
    "http://0.0.0.0/x",
    "http://224.0.0.1/x",
    "http://[::1]/x",
    "http://[::]/x",
    "http://[fe80::1]/x",
    "http://[fd00::1]/x",
    "http://[ff02::1]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://localhost/x",
  ];
  it("refuses private, loopback, link-local, multicast and unspecified addresses", async () => {
    for (const url of refused) {
      await assert.rejects(resolveDestination(new URL(url), false), DestinationRefusedError, url);
    }
  });
  it("allows them with webhookAllowLocal and pins the resolved address", async () => {
    assert.deepEqual(await resolveDestination(new URL("http://127.0.0.1:9/x"), true), {
      address: "127.0.0.1",
      family: 4,
    });
    assert.deepEqual(await resolveDestination(new URL("https://93.184.215.14/x"), false), {
      address: "93.184.215.14",
      family: 4,
    });
  });
});

describe("read helpers", () => {
  it("page cursors round-trip and reject garbage", () => {
    assert.equal(decodePageCursor(encodePageCursor("12345")), "12345");
    assert.throws(() => decodePageCursor("xyz"), /Invalid cursor/);
    assert.throws(
      () => decodePageCursor(Buffer.from('{"k":"1; drop"}').toString("base64url")),
      /Invalid cursor/,
    );
  });
  it("wei amounts become decimal strings without floats", () => {
    assert.equal(weiToDecimal("100000000000000000"), "0.1");
    assert.equal(weiToDecimal("1000000000000000000"), "1");
    assert.equal(weiToDecimal("2500000000000000000"), "2.5");
    assert.equal(weiToDecimal("123456789012345678901234567890"), "123456789012.34567890123456789");
    assert.equal(weiToDecimal("0"), "0");
  });
});
