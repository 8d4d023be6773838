import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { API_KEY_CACHE_TTL_MS } from "../../../relayer/src/auth/api-key-cache.js";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";
import { assertError } from "../../support/assert-error.js";

const KEYS = "/api/enterprise/keys";

describe("API-key lookups reused for at most 2 s, and revocation", () => {
  let stack: TestStack;
  let org: TestOrg;

  before(async () => {
    stack = await startTestStack();
    org = await stack.registerOrg({ plan: "enterprise" });
  });
  after(async () => {
    await stack?.stop();
  });

  async function newKey(scopes: string[]): Promise<{ keyId: string; apiKey: string }> {
    const res = await org.api("POST", KEYS, { body: { scopes } });
    assert.equal(res.status, 200, res.text);
    return { keyId: res.body.keyId as string, apiKey: res.body.apiKey as string };
  }
  const listWith = (apiKey: string) => stack.api("GET", KEYS, { apiKey });

  it("a key revoked through the API is refused on its very next request", async () => {
    const key = await newKey(["read"]);
    assert.equal((await listWith(key.apiKey)).status, 200);
    const revoke = await org.api("DELETE", `${KEYS}/${key.keyId}`);
    assert.equal(revoke.status, 200, revoke.text);
    const after = await listWith(key.apiKey);
    assertError(after, 401, "Unauthorized");
  });

  it("a key revoked by another process (in the database) is refused once the 2 s bound has passed", async () => {
    const key = await newKey(["read"]);
    assert.equal((await listWith(key.apiKey)).status, 200);
    await stack.database.pool.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [
      key.keyId,
    ]);
    await sleep(API_KEY_CACHE_TTL_MS + 100);
    assert.equal((await listWith(key.apiKey)).status, 401);
  });

  it("a successful lookup is reused within the bound instead of read again on every request", async () => {
    // Change the stored scopes behind the process's back: within the bound the remembered
    // lookup still answers; after it, the database's answer does. (On a machine so loaded that
    // the two requests are more than 2 s apart, the round is tried again.)
    let key = await newKey(["read"]);
    for (let round = 0; ; round++) {
      const started = Date.now();
      assert.equal((await listWith(key.apiKey)).status, 200);
      await stack.database.pool.query("UPDATE api_keys SET scopes = '{webhooks}' WHERE id = $1", [
        key.keyId,
      ]);
      const within = await listWith(key.apiKey);
      if (Date.now() - started < API_KEY_CACHE_TTL_MS) {
        assert.equal(within.status, 200);
        break;
      }
      assert.ok(round < 3, "four rounds each took longer than the bound");
      key = await newKey(["read"]);
    }
    await sleep(API_KEY_CACHE_TTL_MS + 100);
    const later = await listWith(key.apiKey);
    assertError(later, 403, "Insufficient scope");
  });

  it("keys looked up in the same instant (one statement) each get their own answer", async () => {
    // Fresh keys (none remembered yet), two organizations, different scopes, a revoked key and
    // an unknown one, all sent at once: the look-ups go out together (`lookUpApiKeys`), and
    // one key's refusal must not leak into another's answer.
    const other = await stack.registerOrg({ plan: "enterprise" });
    const readers = await Promise.all([1, 2, 3].map(() => newKey(["read"])));
    const hookers = await Promise.all([1, 2].map(() => newKey(["webhooks"])));
    const otherKey = await other.api("POST", KEYS, { body: { scopes: ["read"] } });
    assert.equal(otherKey.status, 200, otherKey.text);
    const revoked = await newKey(["read"]);
    await stack.database.pool.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [
      revoked.keyId,
    ]);
    const unknown = `${readers[0]!.apiKey.slice(0, -4)}0000`;
    const answers = await Promise.all([
      ...readers.map((k) => listWith(k.apiKey)),
      ...hookers.map((k) => listWith(k.apiKey)),
      listWith(otherKey.body.apiKey as string),
      listWith(revoked.apiKey),
      listWith(unknown),
    ]);
    const [r1, r2, r3, h1, h2, o, rev, unk] = answers;
    for (const res of [r1, r2, r3]) {
      assert.equal(res.status, 200, res.text);
      const ids = (res.body.keys as Array<{ keyId: string }>).map((k) => k.keyId);
      assert.ok(ids.includes(readers[0]!.keyId), "the org's own keys are listed");
    }
    for (const res of [h1, h2]) assertError(res!, 403, "Insufficient scope");
    assert.equal(o!.status, 200, o!.text);
    const otherIds = (o!.body.keys as Array<{ keyId: string }>).map((k) => k.keyId);
    assert.ok(!otherIds.includes(readers[0]!.keyId), "another org's keys are not listed");
    assert.ok(otherIds.includes(otherKey.body.keyId as string));
    assertError(rev!, 401, "Unauthorized");
    assertError(unk!, 401, "Unauthorized");
  });
});
