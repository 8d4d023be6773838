import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runInNewContext } from "node:vm";
import { RwaClient } from "../../../relayer/sdk/index.js";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";

/** The constructor's shapes, as the served bundles expose them. */
type ClientClass = new (
  first: string | { apiKey: string; baseUrl?: string },
  options?: { baseUrl?: string },
) => { baseUrl: string; getWallet(): Promise<{ walletAddress: string }> };

describe("SDK: API key in the constructor, and bundles that know where they were served from", () => {
  let stack: TestStack;
  let org: TestOrg;

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    org = await stack.registerOrg();
  });
  after(async () => {
    stack.ctx.config.publicBaseUrl = undefined;
    await stack?.stop();
  });

  /** The global `RwaSdk` of the served IIFE, evaluated as a `<script>` would be. */
  async function servedGlobal(): Promise<ClientClass> {
    const res = await fetch(`${stack.baseUrl}/sdk/rwa-sdk.js`);
    assert.equal(res.status, 200);
    // As a classic script: the IIFE's `var RwaSdk` is the last expression's value.
    return runInNewContext(`${await res.text()}\nRwaSdk`, {
      fetch,
      console,
      setTimeout,
      clearTimeout,
      AbortController,
      URL,
      URLSearchParams,
      TextEncoder,
      crypto,
      atob,
    }) as ClientClass;
  }

  /** `RwaClient` of the served ES module. */
  async function servedModule(): Promise<ClientClass> {
    const text = await (await fetch(`${stack.baseUrl}/sdk/rwa-sdk.mjs`)).text();
    const module = (await import(`data:text/javascript,${encodeURIComponent(text)}`)) as {
      RwaClient: ClientClass;
    };
    return module.RwaClient;
  }

  it('new RwaSdk("rwa_live_...") from the served script calls the relayer it was served from', async () => {
    const RwaSdk = await servedGlobal();
    const client = new RwaSdk(org.apiKey);
    assert.equal(client.baseUrl, stack.baseUrl);
    assert.equal((await client.getWallet()).walletAddress, org.walletAddress);
    // The options object stays the long form.
    const long = new RwaSdk({ apiKey: org.apiKey, baseUrl: stack.baseUrl });
    assert.equal((await long.getWallet()).walletAddress, org.walletAddress);
  });

  it("the served ES module knows its base URL too", async () => {
    const ServedClient = await servedModule();
    const client = new ServedClient(org.apiKey);
    assert.equal(client.baseUrl, stack.baseUrl);
    assert.equal((await client.getWallet()).walletAddress, org.walletAddress);
  });

  it("behind a proxy the bundles, OpenAPI servers and Postman use PUBLIC_BASE_URL", async () => {
    stack.ctx.config.publicBaseUrl = "https://rwa.example.com/api";
    try {
      assert.equal(new (await servedGlobal())(org.apiKey).baseUrl, "https://rwa.example.com/api");
      assert.equal(new (await servedModule())(org.apiKey).baseUrl, "https://rwa.example.com/api");
      const openapi = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
        servers: Array<{ url: string }>;
      };
      assert.equal(openapi.servers[0]?.url, "https://rwa.example.com/api");
      const postman = await (await fetch(`${stack.baseUrl}/postman.json`)).text();
      assert.ok(postman.includes("https://rwa.example.com/api"));
    } finally {
      stack.ctx.config.publicBaseUrl = undefined;
    }
  });

  it("the npm source takes the key first with options second, and says what is missing without a base URL", () => {
    const client = new RwaClient(org.apiKey, { baseUrl: `${stack.baseUrl}/` });
    assert.equal(client.baseUrl, stack.baseUrl);
    assert.throws(() => new RwaClient(org.apiKey), /baseUrl is required outside the bundle/);
    assert.throws(() => new RwaClient(""), /apiKey is required/);
  });
});
