import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import type * as Sdk from "../../../relayer/sdk/index.js";
import { confinedPage, launchChromium } from "../../support/browser.js";
import { findChromium } from "../../support/chromium.js";
import { startWriteStack, type WriteStack } from "../writes/helpers.js";

const CHROMIUM = findChromium();
const NO_CHROMIUM = CHROMIUM === undefined && "no Chromium (see test/support/chromium.ts)";

describe("SDK bundles and /docs against a running relayer", () => {
  let stack: WriteStack;
  let sdk: typeof Sdk;
  let browser: Browser | undefined;

  before(async () => {
    stack = await startWriteStack();
    // The ES module exactly as served, imported from a data: URL (no file on disk).
    const res = await fetch(`${stack.baseUrl}/sdk/rwa-sdk.mjs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /javascript/);
    const source = await res.text();
    sdk = (await import(
      `data:text/javascript;base64,${Buffer.from(source).toString("base64")}`
    )) as typeof Sdk;
    if (CHROMIUM !== undefined) browser = await launchChromium(CHROMIUM);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("the served ESM bundle issues, batch-issues and lists through the relayer (issueAsset, batchIssue, listAsset)", async () => {
    const org = await stack.registerOrg();
    const client = new sdk.RwaClient({ apiKey: org.apiKey, baseUrl: stack.baseUrl });
    const issued = await client.issueAsset({
      assetType: "Bond",
      name: "SDK bond",
      description: "via the SDK",
      stakedAmount: "0.1",
    });
    assert.equal(issued.success, true);
    assert.match(issued.tokenId, /^\d+$/);
    assert.equal(issued.wallet.toLowerCase(), org.walletAddress.toLowerCase());

    const batch = await client.batchIssue([
      { assetType: "Bond", name: "Batch 1", description: "b" },
      { assetType: "Real Estate", name: "Batch 2", description: "b" },
    ]);
    assert.equal(batch.issued, 2);
    assert.equal(batch.failed, 0);
    assert.deepEqual(
      batch.results.map((r) => r.index),
      [0, 1],
    );

    const listed = await client.listAsset({ tokenId: issued.tokenId, priceInCOIN: "1.5" });
    assert.equal(listed.success, true);
    assert.equal(listed.tokenId, issued.tokenId);
    assert.match(listed.listingId, /^\d+$/);

    // The same call retried with its idempotency key answers the first result, no second mint.
    const again = await client.issueAsset(
      { assetType: "Bond", name: "Once", description: "d" },
      { idempotencyKey: "sdk-e2e-once" },
    );
    const replay = await client.issueAsset(
      { assetType: "Bond", name: "Once", description: "d" },
      { idempotencyKey: "sdk-e2e-once" },
    );
    assert.equal(replay.tokenId, again.tokenId);
    assert.equal(replay.txHash, again.txHash);
  });

  it("errors from the relayer surface as ApiError with the spec's strings", async () => {
    const org = await stack.registerOrg({ scopes: ["read"] });
    const client = new sdk.RwaClient({ apiKey: org.apiKey, baseUrl: stack.baseUrl, maxRetries: 0 });
    await assert.rejects(
      client.issueAsset({ assetType: "Bond", name: "x", description: "y" }),
      (e: unknown) => {
        assert.ok(e instanceof sdk.ApiError);
        assert.equal(e.status, 403);
        assert.equal(e.error, "Insufficient scope");
        return true;
      },
    );
    const bad = new sdk.RwaClient({
      apiKey: `rwa_live_${"0".repeat(64)}`,
      baseUrl: stack.baseUrl,
      maxRetries: 0,
    });
    await assert.rejects(
      bad.getWallet(),
      (e: unknown) => e instanceof sdk.ApiError && e.status === 401 && e.error === "Unauthorized",
    );
    const wallet = await client.getWallet();
    assert.equal(wallet.chain, 1236);
    const assets = await client.getAssets({ limit: 2 });
    assert.ok(Array.isArray(assets.data));
  });

  it(
    "/sdk/rwa-sdk.js in headless Chromium defines window.RwaSdk, constructs, and warns once for a live key",
    { skip: NO_CHROMIUM },
    async () => {
      const { page, foreign } = await confinedPage(browser!, stack.baseUrl);
      const warnings: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "warning") warnings.push(message.text());
      });
      await page.goto(`${stack.baseUrl}/healthz`);
      await page.addScriptTag({ url: `${stack.baseUrl}/sdk/rwa-sdk.js` });
      const result = await page.evaluate(async (baseUrl) => {
        const RwaSdk = (globalThis as unknown as { RwaSdk: typeof Sdk.RwaClient & typeof Sdk })
          .RwaSdk;
        const a = new RwaSdk.RwaClient({ apiKey: `rwa_live_${"a".repeat(64)}`, baseUrl });
        const b = new RwaSdk({ apiKey: `rwa_live_${"b".repeat(64)}`, baseUrl });
        const status = await a.getHealth();
        const body = '{"event":"webhook.test"}';
        const key = await crypto.subtle.importKey(
          "raw",
          new TextEncoder().encode("s3cret-s3cret-s3cret"),
          { name: "HMAC", hash: "SHA-256" },
          false,
          ["sign"],
        );
        const mac = new Uint8Array(
          await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)),
        );
        const hex = Array.from(mac, (x) => x.toString(16).padStart(2, "0")).join("");
        return {
          same: a instanceof RwaSdk.RwaClient && b instanceof RwaSdk.RwaClient,
          status: status.status,
          hasApiError: typeof RwaSdk.ApiError === "function",
          verified: await RwaSdk.verifyWebhook(
            body,
            { "X-Service-Signature": `sha256=${hex}` },
            "s3cret-s3cret-s3cret",
            { requireTimestamp: false },
          ),
          rejected: await RwaSdk.verifyWebhook(
            body + " ",
            { "X-Service-Signature": `sha256=${hex}` },
            "s3cret-s3cret-s3cret",
            { requireTimestamp: false },
          ),
        };
      }, stack.baseUrl);
      assert.deepEqual(result, {
        same: true,
        status: "ok",
        hasApiError: true,
        verified: true,
        rejected: false,
      });
      assert.equal(
        warnings.filter((w) => w.includes("belong on servers")).length,
        1,
        warnings.join("\n"),
      );
      assert.deepEqual(foreign, []);
      await page.close();
    },
  );

  it(
    "/docs renders the reference offline in headless Chromium (no request leaves the relayer)",
    { skip: NO_CHROMIUM },
    async () => {
      const { page, foreign, local } = await confinedPage(browser!, stack.baseUrl);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const response = await page.goto(`${stack.baseUrl}/docs`);
      assert.equal(response?.status(), 200);
      await page.waitForSelector(".opblock-summary-operation-id, .opblock", { timeout: 20_000 });
      const text = await page.locator("#swagger-ui").innerText();
      for (const name of [
        "RWA asset tokenization API",
        "/api/v1/write/issue-asset",
        "issueAsset",
        "batchIssue",
        "/api/enterprise/webhooks",
      ]) {
        assert.ok(text.includes(name), `page shows ${name}`);
      }
      const operations = await page.locator(".opblock").count();
      assert.ok(operations >= 35, `${operations} operations rendered`);
      assert.ok(local.includes("/openapi.json"));
      assert.ok(local.includes("/docs/assets/swagger-ui-bundle.js"));
      assert.deepEqual(foreign, [], "requests outside the relayer");
      assert.deepEqual(errors, []);
      await page.close();
    },
  );
});
