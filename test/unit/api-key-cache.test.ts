import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  API_KEY_CACHE_TTL_MS,
  ApiKeyCache,
  type ApiKeyPrincipal,
} from "../../relayer/src/auth/api-key-cache.js";

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

  describe("refresh ahead (the clock mocked)", () => {
    const later: ApiKeyPrincipal = { ...principal, scopes: ["webhooks"], plan: "enterprise" };

    it("an entry past half its life answers at once and is looked up again behind the request", async (t) => {
      t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
      const cache = new ApiKeyCache();
      cache.remember("h", principal);
      let calls = 0;
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const load = async (background: boolean) => {
        calls++;
        assert.equal(background, true, "a refresh no request waits for says so");
        await gate;
        return { principal: later, expiresAt: null };
      };
      t.mock.timers.tick(API_KEY_CACHE_TTL_MS / 2 - 1);
      assert.equal(await cache.resolve("h", load), principal);
      assert.equal(calls, 0, "a young entry is not looked up again");
      t.mock.timers.tick(1);
      // Answered from memory while the look-up is held back: the request does not wait for it.
      assert.equal(await cache.resolve("h", load), principal);
      assert.equal(await cache.resolve("h", load), principal);
      assert.equal(calls, 1, "one refresh at a time");
      release();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(cache.get("h"), later);
      // The refreshed entry lives a full TTL from its own look-up.
      t.mock.timers.tick(API_KEY_CACHE_TTL_MS - 1);
      assert.equal(cache.get("h"), later);
      t.mock.timers.tick(1);
      assert.equal(cache.get("h"), undefined);
    });

    it("a refresh that fails drops the entry, so the next request waits for its own look-up", async (t) => {
      t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
      const cache = new ApiKeyCache();
      cache.remember("h", principal);
      t.mock.timers.tick(API_KEY_CACHE_TTL_MS / 2);
      assert.equal(
        await cache.resolve("h", () => Promise.reject(new Error("revoked key"))),
        principal,
      );
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(cache.get("h"), undefined);
      await assert.rejects(
        cache.resolve("h", () => Promise.reject(new Error("revoked key"))),
        /revoked key/,
      );
    });

    it("a key back after its entry expired hints the old principal once, before its look-up", async (t) => {
      t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
      const cache = new ApiKeyCache();
      const hints: ApiKeyPrincipal[] = [];
      const onReturning = (hint: ApiKeyPrincipal) => hints.push(hint);
      let looked = 0;
      const gated = gatedLoad();
      const load = () => {
        // The hint comes first: the caller starts its work before the look-up is even asked.
        assert.equal(hints.length, 1, "hinted before the look-up started");
        looked++;
        return gated.load();
      };
      // An unknown key: nothing to hint.
      await cache.resolve(
        "fresh",
        () => Promise.resolve({ principal, expiresAt: null }),
        onReturning,
      );
      assert.equal(hints.length, 0);
      cache.remember("h", principal);
      t.mock.timers.tick(API_KEY_CACHE_TTL_MS / 2 - 1);
      await cache.resolve("h", load, onReturning);
      assert.equal(hints.length, 0, "a live entry answers, no hint");
      t.mock.timers.tick(API_KEY_CACHE_TTL_MS / 2 + 1);
      const first = cache.resolve("h", load, onReturning);
      // A second request while the look-up runs shares it: no second hint.
      const second = cache.resolve("h", load, onReturning);
      gated.release();
      assert.deepEqual(await Promise.all([first, second]), [principal, principal]);
      assert.deepEqual(hints, [principal]);
      assert.equal(looked, 1);
      // A forgotten key (revoked, its org suspended) leaves no entry, so no hint.
      cache.forget("key_1");
      t.mock.timers.tick(API_KEY_CACHE_TTL_MS);
      await cache.resolve("h", () => Promise.resolve({ principal, expiresAt: null }), onReturning);
      assert.equal(hints.length, 1);
    });

    it("an entry is never served past the TTL, refreshed or not", async (t) => {
      t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
      const cache = new ApiKeyCache();
      cache.remember("h", principal);
      t.mock.timers.tick(API_KEY_CACHE_TTL_MS);
      let calls = 0;
      const got = await cache.resolve("h", (background) => {
        calls++;
        assert.equal(background, false, "a request waits for this look-up");
        return Promise.resolve({ principal: later, expiresAt: null });
      });
      assert.equal(got, later);
      assert.equal(calls, 1);
    });
  });
});
