import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkWebhookUrl, isPublicAddress } from "../../../relayer/src/webhooks/url-policy.js";
import {
  DESTINATION_NOT_ALLOWED,
  DestinationRefusedError,
  resolveDestination,
} from "../../../relayer/src/webhooks/resolve-destination.js";

/** Addresses a webhook must never reach, with the range each one stands for. */
const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ["0.0.0.0", "this network"],
  ["0.1.2.3", "this network"],
  ["10.0.0.1", "private 10/8"],
  ["10.255.255.255", "private 10/8"],
  ["100.64.0.1", "shared address space 100.64/10"],
  ["100.127.255.254", "shared address space 100.64/10"],
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["172.16.0.1", "private 172.16/12"],
  ["172.31.255.255", "private 172.16/12"],
  ["192.0.0.8", "IETF protocol assignments"],
  ["192.0.2.10", "documentation TEST-NET-1"],
  ["192.88.99.1", "6to4 relay anycast"],
  ["192.168.1.1", "private 192.168/16"],
  ["198.18.0.1", "benchmarking 198.18/15"],
  ["198.19.255.255", "benchmarking 198.18/15"],
  ["198.51.100.7", "documentation TEST-NET-2"],
  ["203.0.113.9", "documentation TEST-NET-3"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved 240/4"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex form"],
  ["::ffff:8.8.8.8", "IPv4-mapped, even of a public address"],
  ["::127.0.0.1", "IPv4-compatible loopback"],
  ["::a9fe:a9fe", "IPv4-compatible link-local"],
  ["::8.8.8.8", "IPv4-compatible, even of a public address"],
  ["64:ff9b::7f00:1", "NAT64 of loopback"],
  ["64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254"],
  ["64:ff9b:1::a00:1", "local-use NAT64 64:ff9b:1::/48"],
  ["100::1", "discard-only 100::/64"],
  ["2001::a9fe:a9fe", "Teredo"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
  ["2001:2::1", "benchmarking"],
  ["2001:db8::1", "documentation"],
  ["2002:7f00:1::1", "6to4 of loopback"],
  ["2002:a9fe:a9fe::", "6to4 of link-local"],
  ["fc00::1", "unique local"],
  ["fd12:3456:789a::1", "unique local"],
  ["fe80::1", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "site-local (deprecated)"],
  ["ff02::1", "multicast"],
  ["ff05::2", "multicast"],
  ["not-an-ip", "not an address at all"],
];

/** Public unicast addresses a webhook may reach. */
const ALLOWED: readonly string[] = [
  "1.1.1.1",
  "8.8.8.8",
  "93.184.215.14",
  "100.63.255.255",
  "100.128.0.1",
  "172.15.255.255",
  "172.32.0.1",
  "198.17.255.255",
  "198.20.0.1",
  "223.255.255.254",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001:80b::200e",
];

describe("webhook destination policy (ipaddr.js ranges)", () => {
  it(`refuses every non-public address in a table of ${REFUSED.length}`, () => {
    assert.ok(REFUSED.length + ALLOWED.length >= 40);
    const wronglyAllowed = REFUSED.filter(([ip]) => isPublicAddress(ip));
    assert.deepEqual(wronglyAllowed, []);
  });

  it(`allows ${ALLOWED.length} public unicast addresses, including neighbours of refused ranges`, () => {
    assert.deepEqual(
      ALLOWED.filter((ip) => !isPublicAddress(ip)),
      [],
    );
  });

  it("refuses a webhook URL naming any refused address literally, and allows it with allowLocal over http", () => {
    for (const [ip] of REFUSED.filter(([ip]) => ip !== "not-an-ip")) {
      const host = ip.includes(":") ? `[${ip}]` : ip;
      assert.equal(
        checkWebhookUrl(`https://${host}/hook`, false),
        "must not point to a local or private address",
        ip,
      );
      assert.equal(checkWebhookUrl(`http://${host}/hook`, true), undefined, ip);
    }
    assert.equal(checkWebhookUrl("https://8.8.8.8/hook", false), undefined);
    assert.equal(checkWebhookUrl("https://[2606:4700:4700::1111]/hook", false), undefined);
  });

  it("refuses at delivery time with 'destination not allowed', never naming the resolved address", async () => {
    for (const [ip] of REFUSED.filter(([ip]) => ip !== "not-an-ip")) {
      const host = ip.includes(":") ? `[${ip}]` : ip;
      const error = await resolveDestination(new URL(`https://${host}/hook`), false).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof DestinationRefusedError, ip);
      assert.equal(error.message, DESTINATION_NOT_ALLOWED);
      assert.ok(!error.message.includes(ip));
    }
    assert.equal(DESTINATION_NOT_ALLOWED, "destination not allowed");
  });

  it("refuses a hostname that resolves to loopback without saying where it points", async () => {
    await assert.rejects(resolveDestination(new URL("https://localhost/hook"), false), (error) => {
      assert.ok(error instanceof DestinationRefusedError);
      assert.equal(error.message, "destination not allowed");
      assert.doesNotMatch(error.message, /127\.0\.0\.1|::1/);
      return true;
    });
  });
});
