import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiKeyCache, type ApiKeyPrincipal } from "../../relayer/src/services/api-key-cache.js";

const principal: ApiKeyPrincipal = {
  orgId: "org_1",
  keyId: "key_1",
  scopes: ["read"],
  grantedScopes: new Set(["read"]),
  plan: "free",
};

/** A load that resolves when `release` is called, counting its calls. */
function gatedLoad() {
  let calls = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    calls: () => calls,
    release: () => release(),
    load: async () => {
      calls++;
      await gate;
      return { principal, expiresAt: null };
    },
  };
}

describe("API key cache", () => {
  it("concurrent lookups of one key share one load, and the result is remembered", async () => {
    const cache = new ApiKeyCache();
    const gated = gatedLoad();
    const pending = Array.from({ length: 10 }, () => cache.resolve("h", gated.load));
    gated.release();
    const results = await Promise.all(pending);
    assert.equal(gated.calls(), 1);
    assert.ok(results.every((r) => r === principal));
    assert.equal(cache.get("h"), principal);
  });

  it("a key forgotten while its lookup runs is not remembered from that lookup", async () => {
    const cache = new ApiKeyCache();
    const gated = gatedLoad();
    const pending = cache.resolve("h", gated.load);
    cache.forget("key_1");
    gated.release();
    await pending;
    assert.equal(cache.get("h"), undefined);
  });

  it("a failed load is not remembered and the next request loads again", async () => {
    const cache = new ApiKeyCache();
    await assert.rejects(cache.resolve("h", () => Promise.reject(new Error("unknown key"))));
    let calls = 0;
    await cache.resolve("h", () => {
      calls++;
      return Promise.resolve({ principal, expiresAt: null });
    });
    assert.equal(calls, 1);
  });
});
