import type { Engine } from "../../relayer/src/engine/engine.js";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DEFAULT_STUCK_AFTER_BLOCKS } from "../../relayer/src/config.js";
import { ensureConsoleBuilt } from "../../relayer/src/console/build-console.js";
import { startIndexer, type IndexerHandle } from "../../relayer/src/indexer/start-indexer.js";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../relayer/src/webhooks/start-webhook-workers.js";
import { launchChromium } from "../support/browser.js";
import { findChromium, missingChromiumMessage } from "../support/chromium.js";
import { startTestStack, type TestOrg, type TestStack } from "../support/stack.js";

/**
 * The admin console in a real browser (Debian's chromium through playwright-core) against the
 * full stack: anvil, PostgreSQL, contracts, the relayer serving the console's static export,
 * engine, the indexer and webhook delivery. Screenshots of every screen at 1280 and
 * 390 px go to test-artifacts/console/, and every screen is checked with axe-core at both widths
 * (no serious or critical violation).
 */

const CHROMIUM = findChromium();
const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** An SVG that declares itself enormous and tries to run script: shown only through `<img>`. */
const HOSTILE_SVG = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000" onload="window.__pwned=1">' +
    '<script>window.__pwned=1</script><rect width="100000" height="100000" fill="#1d4ed8"/></svg>',
)}`;
const HOSTILE_TEXT = '<img src=x onerror="window.__pwned=1">Bond <b>bold</b>';
const ARTIFACTS = path.resolve("test-artifacts", "console");
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A local webhook receiver that answers 200 to everything and counts requests. */
async function startReceiver(): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/rwa`,
    count: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("admin console in a browser", { timeout: 900_000 }, () => {
  let stack: TestStack;
  let org: TestOrg;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let indexer: IndexerHandle | undefined;
  let webhookWorkers: WebhookWorkersHandle | undefined;
  let engine: Engine | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

  const url = (route: string) => `${stack.baseUrl}/console${route}`;

  /** axe-core on the current page: the serious and critical violations, as readable lines. */
  const axeViolations = async (): Promise<string[]> => {
    await page.addScriptTag({ path: AXE_SCRIPT });
    // A string expression: the root tsconfig has no DOM types (this runs in the page).
    const violations = await page.evaluate<
      Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>
    >(`axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)`);
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map(
        (v) =>
          `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`,
      );
  };

  /**
   * Full-page screenshots at desktop and phone width (the phone one with the menu closed), and
   * the axe check at both widths.
   */
  const shoot = async (name: string) => {
    assert.deepEqual(await axeViolations(), [], `axe on ${name} at 1280 px`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    assert.deepEqual(await axeViolations(), [], `axe on ${name} at 390 px`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-390.png`), fullPage: true });
    await page.setViewportSize(WIDE);
  };

  /** Reloads until `locator` matches something (the indexer follows the chain within seconds). */
  const reloadUntil = async (locator: ReturnType<Page["locator"]>, what: string, ms = 30_000) => {
    const deadline = Date.now() + ms;
    while ((await locator.count()) === 0) {
      assert.ok(Date.now() < deadline, `${what} did not show within ${ms / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 700));
      await page.reload();
      await page.waitForLoadState("networkidle");
    }
  };

  /** Signs in through the form with `credential` and waits for the first screen. */
  const signIn = async (credential: string, home: string) => {
    await page.goto(url("/"));
    await page.locator("#credential").fill(credential);
    await page.getByRole("button", { name: "Sign in with the key" }).click();
    await page.waitForURL(url(home));
  };

  /** Cookie header of the browser's session, for API-level checks. */
  const sessionCookie = async () => {
    const cookie = (await context.cookies(stack.baseUrl)).find((c) => c.name === "rwa_session");
    assert.ok(cookie, "session cookie set");
    return cookie;
  };

  before(async () => {
    // At once, not after the stack has started: `npm test` installs it first (scripts/test.sh).
    if (CHROMIUM === undefined) throw new Error(missingChromiumMessage());
    mkdirSync(ARTIFACTS, { recursive: true });
    const build = await ensureConsoleBuilt({ print: (line) => process.stderr.write(`${line}\n`) });
    process.stderr.write(`console build: ${build.status} in ${build.ms} ms\n`);
    assert.notEqual(build.status, "failed", build.status === "failed" ? build.message : "");
    stack = await startTestStack({ logLevel: "warn" });
    engine = stack.ctx.engine;
    await engine.start();
    indexer = await startIndexer(stack.ctx, { pollIntervalMs: 100, lockPollMs: 200 });
    try {
      webhookWorkers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200 });
    } catch (error) {
      // The delivery workers are another module's; without them the log still shows the
      // delivery (pending), and the test says so instead of failing the whole console suite.
      process.stderr.write(`webhook workers did not start: ${String(error)}\n`);
    }
    receiver = await startReceiver();
    org = await stack.registerOrg({ orgName: "Console Test Org" });
    browser = await launchChromium(CHROMIUM);
    context = await browser.newContext({ viewport: WIDE });
    page = await context.newPage();
  });

  after(async () => {
    await browser?.close();
    await webhookWorkers?.stop();
    await indexer?.stop();
    await engine?.stop();
    await receiver?.close();
    await stack?.stop();
  });

  it("serves the sign-in page with no-cache HTML and immutable assets", async () => {
    const res = await fetch(url("/"));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-cache");
    const html = await res.text();
    const asset = /\/console\/_next\/static\/[^"]+\.js/.exec(html)?.[0];
    assert.ok(asset, "page references a hashed script");
    const assetRes = await fetch(`${stack.baseUrl}${asset}`);
    assert.equal(assetRes.status, 200);
    assert.match(assetRes.headers.get("cache-control") ?? "", /immutable/);
    assert.equal((await fetch(url("/keys"), { redirect: "manual" })).status, 301);
  });

  it("an org admin signs in with a key and the browser keeps no credential", async () => {
    await page.goto(url("/"));
    await page.locator("#credential").waitFor();
    await shoot("sign-in");
    // A malformed value: a field error, nothing sent.
    await page.locator("#credential").fill("not a key");
    await page.getByRole("button", { name: "Sign in with the key" }).click();
    await page
      .getByText("Expected rwa_live_ or ent_admin_ followed by 64 hex characters")
      .waitFor();
    // A well-formed key the relayer does not know: refused, and the field is emptied.
    await page.locator("#credential").fill(`rwa_live_${"0".repeat(64)}`);
    await page.getByRole("button", { name: "Sign in with the key" }).click();
    await page.getByText("That key or token was not accepted").waitFor();
    assert.equal(await page.locator("#credential").inputValue(), "");
    assert.equal(await page.locator("#credential-error").count(), 0, "field error cleared");
    await page.locator("#credential").fill(org.apiKey);
    await page.getByRole("button", { name: "Sign in with the key" }).click();
    await page.waitForURL(url("/wallet/"));
    // A string expression: the root tsconfig has no DOM types (this runs in the page).
    const stored = await page.evaluate<Record<string, string>>(
      `({
        local: JSON.stringify(Object.entries(localStorage)),
        session: JSON.stringify(Object.entries(sessionStorage)),
        cookie: document.cookie,
        html: document.documentElement.outerHTML,
      })`,
    );
    for (const [where, text] of Object.entries(stored)) {
      assert.ok(!text.includes(org.apiKey), `API key found in ${where}`);
      assert.ok(!text.includes(stack.adminToken), `admin token found in ${where}`);
    }
    assert.equal(stored.cookie, "", "no JS-readable cookie");
    const cookie = await sessionCookie();
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Strict");
    assert.equal(cookie.path, "/");
    assert.ok(!cookie.value.includes(org.apiKey));
  });

  it("the wallet screen shows the balance in coin and wei with the funding hint", async () => {
    await page.getByTestId("wallet-balance").waitFor();
    assert.equal((await page.getByTestId("wallet-balance").innerText()).trim(), "10 COIN");
    assert.equal(await page.getByTestId("wallet-address").innerText(), org.walletAddress);
    assert.match(await page.getByTestId("wallet-balance-wei").innerText(), /^10\D000\D000/);
    assert.match(await page.getByTestId("wallet-covers").innerText(), /about 66 assets/);
    await shoot("wallet");
    // Phone width: the navigation is behind the menu button.
    await page.setViewportSize(PHONE);
    assert.equal(await page.locator("#main-nav").isVisible(), false);
    await page.getByRole("button", { name: "Menu" }).click();
    assert.equal(await page.locator("#main-nav").isVisible(), true);
    await page.screenshot({ path: path.join(ARTIFACTS, "nav-open-390.png") });
    await page.setViewportSize(WIDE);
  });

  it("a new key is shown once, and once revoked it is refused by the API", async () => {
    await page.goto(url("/keys/"));
    await page.getByTestId(`key-row-${org.keyId}`).waitFor();
    // Field errors: no scope chosen.
    await page.getByRole("checkbox", { name: "read" }).uncheck();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByText("Choose at least one scope").waitFor();
    await page.getByLabel("Label (optional)").fill("browser test key");
    await page.getByRole("checkbox", { name: "read" }).check();
    // Only the session's own scopes are offered.
    assert.equal(await page.getByRole("checkbox", { name: "admin:types" }).count(), 0);
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.getByTestId("secret-value").innerText()).trim();
    assert.match(secret, /^rwa_live_[0-9a-f]{64}$/);
    assert.equal(
      (await stack.api("GET", "/api/enterprise/wallet", { apiKey: secret })).status,
      200,
    );
    await shoot("keys-created");

    await page.reload();
    await page.getByRole("cell", { name: "browser test key" }).waitFor();
    assert.equal(await page.getByTestId("secret-value").count(), 0, "secret gone after reload");
    assert.ok(!(await page.content()).includes(secret));

    const row = page.locator("tr", { has: page.getByRole("cell", { name: "browser test key" }) });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await row.getByText("revoked", { exact: true }).waitFor();
    assert.equal(
      (await stack.api("GET", "/api/enterprise/wallet", { apiKey: secret })).status,
      401,
    );
    await shoot("keys");
  });

  it("a cookie-authenticated POST from a foreign origin or without the CSRF token is refused", async () => {
    const cookie = await sessionCookie();
    const session = await stack.api<{ kind: string; orgId: string; csrfToken: string }>(
      "GET",
      "/api/console/session",
      {
        headers: { cookie: `rwa_session=${cookie.value}` },
      },
    );
    assert.equal(session.status, 200);
    assert.equal(session.body.kind, "org");
    assert.equal(session.body.orgId, org.orgId);
    assert.ok(!session.text.includes(org.apiKey));
    const csrfToken = session.body.csrfToken;
    const post = (headers: Record<string, string>) =>
      stack.api<{ error?: string }>("POST", "/api/enterprise/keys", {
        body: { scopes: ["read"], label: "csrf" },
        headers: { cookie: `rwa_session=${cookie.value}`, ...headers },
      });
    const foreign = await post({ origin: "https://evil.example", "x-csrf-token": csrfToken });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error, "CSRF check failed");
    assert.equal((await post({ origin: stack.baseUrl })).status, 403, "token missing");
    assert.equal((await post({ "x-csrf-token": csrfToken })).status, 403, "origin missing");
    const ok = await post({ origin: stack.baseUrl, "x-csrf-token": csrfToken });
    assert.equal(ok.status, 200, ok.text);
  });

  it("a webhook registered in the console logs the delivery of an issuance", async () => {
    await page.goto(url("/webhooks/"));
    await page.getByText("No webhooks yet").waitFor();
    await page.getByLabel("URL").fill("not a url");
    await page.getByRole("button", { name: "Register webhook" }).click();
    await page.getByText("Enter a full URL").waitFor();
    await page.getByLabel("URL").fill(receiver!.url);
    await page.getByRole("button", { name: "Register webhook" }).click();
    const secret = (await page.getByTestId("secret-value").innerText()).trim();
    assert.ok(secret.length >= 16);

    const issued = await org.api("POST", "/api/v1/write/issue-asset", {
      body: { assetType: "Bond", name: "Console Bond", description: "Issued by the console test" },
    });
    assert.equal(issued.status, 200, issued.text);

    const log = page.locator('[data-testid^="delivery-log-"]');
    const delivered = log.locator('[data-testid="delivery-row"]', { hasText: "asset.issued" });
    const expected =
      webhookWorkers === undefined ? delivered : delivered.filter({ hasText: "delivered" });
    const deadline = Date.now() + 30_000;
    while ((await expected.count()) === 0) {
      assert.ok(Date.now() < deadline, "delivery did not show up in the log within 30 s");
      await new Promise((resolve) => setTimeout(resolve, 500));
      await log.getByRole("button", { name: "Refresh" }).click();
    }
    if (webhookWorkers !== undefined) {
      assert.match(await delivered.first().innerText(), /200/);
      assert.match(await delivered.first().innerText(), /\d+ ms/);
      assert.ok(receiver!.count() >= 1);
    }

    await log.getByRole("button", { name: "Send test event" }).click();
    await log.getByText("Test event queued.").waitFor();
    await delivered.first().getByRole("button", { name: "Redeliver" }).click();
    await log.getByText("Redelivery queued.").waitFor();
    await page.getByRole("button", { name: "I have stored it" }).click();
    await shoot("webhooks");

    // Settings (docs/webhooks.md): event filter, replay of the last day, secret rotation.
    await page.getByRole("button", { name: "Settings" }).click();
    const controls = page.locator('[data-testid^="webhook-controls-"]');
    await controls.getByRole("button", { name: "Save events" }).click();
    await controls.getByText("Event filter saved.").waitFor();
    await controls.getByRole("button", { name: "Replay", exact: true }).click();
    await controls.getByText("Replay queued.").waitFor();
    await controls.getByRole("button", { name: "Rotate secret" }).click();
    await controls.getByRole("button", { name: "Yes, rotate" }).click();
    await controls.getByText("Secret rotated: copy the new one above.").waitFor();
    const rotated = (await page.getByTestId("secret-value").innerText()).trim();
    assert.ok(rotated.startsWith("whsec_") && rotated !== secret, "a new secret, shown once");
    await page.getByText(/the previous one signs until/).waitFor();
    await shoot("webhook-settings");
    await page.getByRole("button", { name: "I have stored it" }).click();
  });

  it("the gallery shows each asset's image, a placeholder for a missing or broken one, and metadata text as text", async () => {
    const issue = async (body: Record<string, unknown>) => {
      const res = await org.api<{ tokenId: string; ipfsHash: string }>(
        "POST",
        "/api/v1/write/issue-asset",
        { body: { assetType: "Bond", description: "Gallery test", ...body } },
      );
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const broken = await issue({ name: "Broken Image", image: "https://127.0.0.1:9/missing.png" });
    const hostile = await issue({
      name: HOSTILE_TEXT,
      description: `<script>window.__pwned=1</script>`,
    });
    // A document whose image is an SVG that declares 100000 px and carries script.
    await stack.database.pool.query(
      `UPDATE token_metadata SET json = jsonb_set(json::jsonb, '{image}', to_jsonb($2::text))::text WHERE token_id = $1`,
      [hostile.tokenId, HOSTILE_SVG],
    );

    await page.goto(url("/assets/"));
    const cards = page.getByTestId("asset-card");
    await reloadUntil(cards.filter({ hasText: "Broken Image" }), "the issued assets");
    // "Console Bond" (no image): placeholder; the broken URL: placeholder once it fails.
    const plain = cards.filter({ hasText: "Console Bond" });
    await plain.getByTestId("image-placeholder").waitFor();
    assert.match(await plain.getByTestId("image-placeholder").innerText(), /No image/);
    const brokenCard = cards.filter({ hasText: "Broken Image" });
    await brokenCard.getByText("Image unavailable").waitFor();
    // The hostile card: its name is text, its SVG is an image held in the box.
    const hostileCard = cards.filter({ hasText: "Bond <b>bold</b>" });
    assert.equal(await hostileCard.count(), 1, "the name shows as literal text");
    const img = hostileCard.getByTestId("asset-image");
    await img.waitFor();
    await page.waitForFunction(
      `Array.from(document.querySelectorAll('[data-testid="asset-image"]')).every((i) => i.complete)`,
    );
    const box = await img.boundingBox();
    assert.ok(
      box !== null && box.width <= 400 && box.height <= 240,
      `image box ${JSON.stringify(box)}`,
    );
    assert.equal(await page.evaluate("window.__pwned === undefined"), true, "no script ran");
    assert.equal(await page.locator("b", { hasText: "bold" }).count(), 0, "no HTML was injected");
    await shoot("assets");

    // The type filter, and its empty state.
    await page.getByLabel("Asset type").fill("Treasury");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("No Treasury assets").waitFor();
    await page.waitForURL(url("/assets/?assetType=Treasury"));
    await page.reload();
    await page.getByText("No Treasury assets").waitFor();
    assert.equal(await page.getByLabel("Asset type").inputValue(), "Treasury");

    // Keyboard: the card is a link; Enter opens the detail view.
    await page.goto(url("/assets/"));
    await cards.filter({ hasText: "Broken Image" }).getByRole("link").focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(url(`/assets/detail/?id=${broken.tokenId}`));
    await page.getByTestId("asset-title").waitFor();
    assert.equal(await page.getByTestId("asset-title").innerText(), "Broken Image");
    // The detail of the hostile asset: text fields are text there too.
    await page.goto(url(`/assets/detail/?id=${hostile.tokenId}`));
    await page.getByTestId("asset-description").waitFor();
    assert.equal(
      await page.getByTestId("asset-description").innerText(),
      "<script>window.__pwned=1</script>",
    );
    assert.equal(await page.getByTestId("asset-title").innerText(), HOSTILE_TEXT);
    assert.equal(await page.evaluate("window.__pwned === undefined"), true, "no script ran");
  });

  it("an asset's detail shows owner, stake, metadata and history, and listing it shows progress until mined", async () => {
    const assets = await org.api<{
      data: Array<{ tokenId: string; name: string; mintTxHash: string }>;
    }>("GET", "/api/enterprise/assets");
    const bond = assets.body.data.find((a) => a.name === "Console Bond");
    assert.ok(bond, "the webhook test's asset is held");
    await page.goto(url(`/assets/detail/?id=${bond.tokenId}`));
    await page.getByTestId("asset-owner").waitFor();
    assert.equal(await page.getByTestId("asset-owner").getAttribute("title"), org.walletAddress);
    assert.equal(await page.getByTestId("asset-token-id").innerText(), bond.tokenId);
    assert.equal(await page.getByTestId("asset-listing").innerText(), "Not listed");
    const issued = page.getByTestId("history-row").filter({ hasText: "Issued" });
    await issued.waitFor();
    assert.equal(
      await issued.locator("code").last().getAttribute("title"),
      bond.mintTxHash,
      "the history names the mint transaction",
    );

    await page.getByRole("button", { name: "List for sale" }).click();
    await page.getByLabel("Price (COIN)").fill("0");
    await page.getByRole("button", { name: "Review" }).click();
    await page.getByText("Must be more than 0").waitFor();
    await page.getByLabel("Price (COIN)").fill("1.5");
    await page.getByRole("button", { name: "Review" }).click();
    await page.getByText(`List token #${bond.tokenId} for 1.5 COIN for 30 days?`).waitFor();
    await page.getByRole("button", { name: "Confirm" }).click();
    const progress = page.getByTestId("tx-progress");
    await progress.waitFor();
    await progress.getByText(/^(Listed|Failed)/).waitFor({ timeout: 30_000 });
    assert.match(await progress.innerText(), /^Listed\. Transaction 0x/);
    await page
      .getByTestId("asset-listing")
      .getByText(/at 1\.5 COIN/)
      .waitFor({ timeout: 15_000 });
    await reloadUntil(
      page.getByTestId("history-row").filter({ hasText: "Listed" }),
      "the listing in the history",
    );
    await page.getByRole("button", { name: "Delist" }).waitFor();
    await shoot("asset-detail");

    await page.goto(url("/listings/"));
    const row = page.getByTestId("listing-row").filter({ hasText: `#${bond.tokenId}` });
    await row.waitFor();
    assert.match(await row.innerText(), /1\.5 COIN/);
    await page.getByLabel("Status").selectOption("sold");
    await page.getByText("No sold listings").waitFor();
    await page.getByLabel("Status").selectOption("");
    await row.waitFor();
    await shoot("listings");
  });

  it("the transactions screen follows a write from queued to confirmed and words a failure", async () => {
    // A failed write as the engine records a revert.
    await stack.database.pool.query(
      `INSERT INTO transactions (id, org_id, wallet_id, kind, request_hash, from_address, state, error, error_kind, failed_at)
       SELECT 'tx_consolefailed', w.org_id, w.id, 'buy', 'console-test', w.address, 'failed', 'Listing not active', 'revert', now()
         FROM wallets w WHERE w.org_id = $1`,
      [org.orgId],
    );
    // With block production paused, an async write is sent but not mined.
    await stack.ctx.provider.send("evm_setIntervalMining", [0]);
    const accepted = await org.api<{ transactionId: string }>("POST", "/api/v1/write/issue-asset", {
      body: { assetType: "Bond", name: "Live State Bond", description: "sent first" },
      headers: { prefer: "respond-async" },
    });
    assert.equal(accepted.status, 202, accepted.text);
    const id = accepted.body.transactionId;

    await page.goto(url("/transactions/"));
    const row = page.getByTestId(`tx-row-${id}`);
    await row.waitFor();
    await row.getByTestId("tx-status").getByText("sent").waitFor({ timeout: 15_000 });
    await page.getByText("Updating live…").waitFor();
    const failed = page.getByTestId("tx-row-tx_consolefailed");
    assert.match(
      await failed.innerText(),
      /The contract refused it: Listing not active\. Gas was spent, nothing else changed\./,
    );
    await shoot("transactions-live");

    // Blocks again: the row turns confirmed on screen without a reload.
    await stack.ctx.provider.send("evm_setIntervalMining", [1]);
    await row.getByTestId("tx-status").getByText("confirmed").waitFor({ timeout: 30_000 });
    assert.match(await row.innerText(), /0x[0-9a-f]{4}…[0-9a-f]{4}/, "the hash is shown");

    // Filters, and sorting from the keyboard.
    await page.getByLabel("State").selectOption("failed");
    // The failed row was on screen before the filter too: wait for the confirmed one to go (the
    // filtered page replaces the list when it arrives), then check the failed one stayed.
    await row.waitFor({ state: "detached", timeout: 10_000 });
    await failed.waitFor();
    assert.equal(await row.count(), 0);
    await page.getByLabel("State").selectOption("");
    await row.waitFor();
    const kindHeader = page.getByRole("columnheader", { name: /Kind/ });
    await kindHeader.getByRole("button").focus();
    await page.keyboard.press("Enter");
    assert.equal(await kindHeader.getAttribute("aria-sort"), "ascending");
    await shoot("transactions");
    // At 1280 px the whole table shows: no column is cut off behind a sideways scroll.
    const overflow = await page.evaluate<number>(
      `(() => { const w = document.querySelector(".table-wrap"); return w.scrollWidth - w.clientWidth; })()`,
    );
    assert.ok(overflow <= 0, `the transactions table is ${overflow} px wider than its frame`);
  });

  it("the transactions screen keeps its filters and page in the URL across a reload, Back and a bad link", async () => {
    // 25 failed writes, older than the others: two pages of "failed" (20 a page). Each has a
    // target and data (without both a row is a batch's parent, whose items carry the errors).
    await stack.database.pool.query(
      `INSERT INTO transactions (id, org_id, wallet_id, kind, request_hash, from_address, to_address, data, state, error, error_kind, failed_at, created_at)
       SELECT 'tx_' || lpad(to_hex(g), 24, '0'), w.org_id, w.id, 'buy', 'console-page-' || g, w.address, w.address, '0x',
              'failed', 'Listing not active', 'revert', now(), now() - g * interval '1 minute'
         FROM wallets w, generate_series(1, 25) AS g WHERE w.org_id = $1`,
      [org.orgId],
    );
    await page.goto(url("/transactions/"));
    await page.locator('[data-testid^="tx-row-"]').first().waitFor();
    await page.getByLabel("State").selectOption("failed");
    await page.waitForURL(/\/transactions\/\?status=failed$/);
    await page.getByLabel("Kind").selectOption("buy");
    await page.waitForURL(/\/transactions\/\?status=failed&kind=buy$/);
    const rows = page.locator('[data-testid^="tx-row-"]');
    const pager = page.locator(".pager");
    /** The row of the `n`th inserted write (the list keeps the last page until the next comes). */
    const filled = (n: number) => page.getByTestId(`tx-row-tx_${n.toString(16).padStart(24, "0")}`);
    await pager.getByText("Page 1").waitFor();
    await filled(19).waitFor();
    assert.equal(await rows.count(), 20);

    await pager.getByRole("button", { name: "Next" }).click();
    await page.waitForURL(/status=failed&kind=buy&cursor=[\w-]+$/);
    await pager.getByText("Page 2").waitFor();
    // 26 failed buys (the earlier test's too): 6 on page 2.
    await filled(25).waitFor();
    assert.equal(await rows.count(), 6);
    const page2 = page.url();

    // A reload shows the same filters and page, and Previous still works.
    await page.reload();
    await pager.getByText("Page 2").waitFor();
    assert.equal(await page.getByLabel("State").inputValue(), "failed");
    assert.equal(await page.getByLabel("Kind").inputValue(), "buy");
    await filled(20).waitFor();
    assert.equal(await rows.count(), 6);
    await pager.getByRole("button", { name: "Previous" }).click();
    await filled(1).waitFor();
    await pager.getByText("Page 1").waitFor();
    await page.waitForURL(/\/transactions\/\?status=failed&kind=buy$/);
    // Back returns to page 2 (moving between pages adds history entries).
    await page.goBack();
    await pager.getByText("Page 2").waitFor();
    await filled(25).waitFor();
    assert.equal(page.url(), page2);

    // A shared link with a cursor the API refuses: page 1 of the same filters, not an error.
    await page.goto(url("/transactions/?status=failed&kind=buy&cursor=not-a-cursor"));
    await pager.getByText("Page 1").waitFor();
    await page.waitForURL(/\/transactions\/\?status=failed&kind=buy$/);
    await filled(19).waitFor();
    // A value the filter does not offer reads as "any".
    await page.goto(url("/transactions/?status=bogus&kind=buy"));
    await rows.first().waitFor();
    assert.equal(await page.getByLabel("State").inputValue(), "");
  });

  it("a write's timeline shows its recording, each attempt's hash and fee, its block and its final state", async () => {
    const accepted = await org.api<{ transactionId: string }>("POST", "/api/v1/write/issue-asset", {
      body: { assetType: "Bond", name: "Timeline Bond", description: "followed in the console" },
      headers: { prefer: "respond-async" },
    });
    assert.equal(accepted.status, 202, accepted.text);
    const id = accepted.body.transactionId;
    type Status = {
      status: string;
      attempts: Array<{ hash: string; type: number | null }>;
      receipt: { hash: string; blockNumber: number } | null;
      confirmations: { blocksAbove: number | null; required: number };
    };
    let status = (await org.api<Status>("GET", `/api/v1/transactions/${id}`)).body;
    for (let i = 0; i < 300 && status.status !== "confirmed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await org.api<Status>("GET", `/api/v1/transactions/${id}`)).body;
    }
    assert.equal(status.status, "confirmed");
    const attempt = status.attempts[0]!;

    // From the list, filtered: the id links to the timeline, and Back keeps the filter.
    await page.goto(url("/transactions/?kind=issue-asset"));
    await page.getByTestId(`tx-row-${id}`).getByTestId("tx-detail-link").click();
    await page.waitForURL(url(`/transactions/detail/?id=${id}`));
    await page.getByTestId("tx-detail-status").getByText("confirmed").waitFor();
    const attempts = page.getByTestId("tx-attempt");
    assert.equal(await attempts.count(), status.attempts.length);
    assert.equal(
      await attempts.first().getByTestId("tx-attempt-hash").getAttribute("title"),
      attempt.hash,
    );
    assert.match(
      await attempts.first().getByTestId("tx-attempt-fee").innerText(),
      attempt.type === 0
        ? /^gas price (≈ )?[\d.]+ gwei$/
        : /^max fee (≈ )?[\d.]+ gwei, priority fee (≈ )?[\d.]+ gwei$/,
    );
    assert.match(
      await attempts.first().getByTestId("tx-attempt-outcome").innerText(),
      new RegExp(`^Mined in block ${status.receipt!.blockNumber}\\.`),
    );
    assert.match(
      await page.getByTestId("tx-mined").innerText(),
      new RegExp(`Mined in block ${status.receipt!.blockNumber}`),
    );
    assert.match(
      await page.getByTestId("tx-confirmations").innerText(),
      new RegExp(`^\\d+ blocks on top \\(${status.confirmations.required} required\\)$`),
    );
    assert.match(await page.getByTestId("tx-final").innerText(), /^Confirmed/);
    assert.match(await page.getByTestId("tx-result").innerText(), /"tokenId"/);
    await shoot("transaction-detail");
    await page.goBack();
    await page.waitForURL(url("/transactions/?kind=issue-asset"));
    assert.equal(await page.getByLabel("Kind").inputValue(), "issue-asset");

    // A failed write: the reason and the status the synchronous call answered.
    const failedId = `tx_${"1".padStart(24, "0")}`;
    await page.goto(url(`/transactions/detail/?id=${failedId}`));
    const final = page.getByTestId("tx-final");
    await final.waitFor();
    assert.match(await final.innerText(), /^Failed/);
    assert.equal(await page.getByTestId("tx-error").innerText(), "Listing not active");
    assert.match(await final.innerText(), /answered HTTP 400/);
    assert.equal(await page.getByTestId("tx-attempt").count(), 0);
  });

  it("the activity screen charts the balance, issuances per day and deliveries per hour", async () => {
    await page.goto(url("/activity/"));
    const issuances = page.getByTestId("chart-issuances");
    await issuances.locator(".recharts-bar-rectangle").first().waitFor();
    assert.match(
      await page.getByTestId("chart-issuances-summary").innerText(),
      /^[4-9] assets issued in the last 30 days/,
    );
    const balance = page.getByTestId("chart-balance");
    await balance.locator(".recharts-area-curve").first().waitFor();
    assert.match(
      await page.getByTestId("chart-balance-summary").innerText(),
      /^Now [\d.]+ COIN; \d+ recorded change/,
    );
    const deliveries = page.getByTestId("chart-deliveries");
    await deliveries.locator(".recharts-bar-rectangle").first().waitFor();
    assert.match(
      await page.getByTestId("chart-deliveries-summary").innerText(),
      /Last 24 hours: [1-9]\d* succeeded/,
    );
    await shoot("activity");
  });

  it("the audit log screen shows the organization's actions, by the session's key, filtered by action", async () => {
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.waitForURL(url("/audit/"));
    const created = page.locator('[data-testid^="audit-row-"]').filter({
      hasText: "api_key.created",
    });
    await created.first().waitFor();
    // The key created in the console was created by the key the session was opened with.
    assert.match(await created.first().innerText(), new RegExp(org.keyId));
    await page.getByLabel("Action").selectOption("api_key.revoked");
    await page.waitForURL(url("/audit/?action=api_key.revoked"));
    const rows = page.locator('[data-testid^="audit-row-"]');
    // The unfiltered page stays until the filtered one comes.
    await rows.filter({ hasNotText: "api_key.revoked" }).first().waitFor({ state: "detached" });
    await rows.filter({ hasText: "api_key.revoked" }).first().waitFor();
    for (const text of await rows.allInnerTexts()) assert.match(text, /api_key\.revoked/);
    await shoot("audit");
  });

  it("the alert threshold raises the low-balance banner on every screen, amounts read short with the exact value on hover, and pages never scroll sideways", async () => {
    await page.goto(url("/wallet/"));
    await page.getByLabel("Alert below (COIN)").fill("1000");
    await page.getByRole("button", { name: "Save threshold" }).click();
    await page.getByText("Alert threshold set to 1000 COIN.").waitFor();
    const banner = page.getByTestId("low-balance-banner");
    await reloadUntil(banner, "the low-balance banner");
    assert.match(
      await banner.innerText(),
      /Low balance\..*below your alert threshold of 1\D?000 COIN/s,
    );
    const amount = banner.locator(".amount").first();
    const exact = await amount.getAttribute("data-exact");
    assert.ok(exact !== null && /^\d+(\.\d+)?$/.test(exact), `exact value ${String(exact)}`);
    assert.equal(await amount.getAttribute("title"), `${exact} COIN`);
    // After this suite's writes the balance has 18 decimals: shown to 4, exact on hover.
    const balance = page.getByTestId("wallet-balance");
    assert.match((await balance.innerText()).trim(), /^≈ \d+\.\d{1,4} COIN$/);
    assert.match(String(await balance.getAttribute("title")), /^\d+\.\d{5,18} COIN$/);
    await shoot("wallet-low-balance");
    for (const screen of ["/transactions/", "/webhooks/", "/assets/"]) {
      await page.goto(url(screen));
      await banner.waitFor();
      for (const size of [WIDE, PHONE]) {
        await page.setViewportSize(size);
        const overflow = await page.evaluate<number>(
          "document.documentElement.scrollWidth - window.innerWidth",
        );
        assert.ok(
          overflow <= 0,
          `${screen} at ${size.width} px scrolls sideways by ${overflow} px`,
        );
      }
      await page.setViewportSize(WIDE);
    }
    // Threshold 0: the banner goes once the indexer has read the wallet again.
    await page.goto(url("/wallet/"));
    await page.getByLabel("Alert below (COIN)").fill("0");
    await page.getByRole("button", { name: "Save threshold" }).click();
    await page.getByText("Alert threshold set to 0 COIN.").waitFor();
    const deadline = Date.now() + 30_000;
    while ((await banner.count()) > 0) {
      assert.ok(Date.now() < deadline, "the banner did not go");
      await new Promise((resolve) => setTimeout(resolve, 700));
      await page.reload();
      await page.waitForLoadState("networkidle");
    }
  });

  it("a stuck write's timeline shows the stuck badge with its reason and since; Speed up re-sends it, Cancel races it out", async () => {
    // Signed in by the earlier tests; alone (a name pattern), sign in here.
    if (!(await context.cookies(stack.baseUrl)).some((c) => c.name === "rwa_session"))
      await signIn(org.apiKey, "/wallet/");
    const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
      const res = await fetch(stack.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
      const body = (await res.json()) as { result?: T; error?: { message: string } };
      if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
      return body.result as T;
    };
    type Status = {
      status: string;
      stuck: { since: string; reason: string } | null;
      attempts: Array<{ hash: string; maxFeePerGas: string }>;
    };
    const read = async (id: string) =>
      (await org.api<Status>("GET", `/api/v1/transactions/${id}`)).body;
    const until = async (id: string, check: (s: Status) => boolean, what: string) => {
      for (let i = 0; i < 300; i++) {
        const status = await read(id);
        if (check(status)) return status;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.fail(`${what}: ${JSON.stringify(await read(id))}`);
    };
    /**
     * Blocks far too dear for the write (a hundred times its newest fee cap), as many as the
     * engine's STUCK_AFTER_BLOCKS and one more: it marks the write `not-mined`.
     */
    const leaveOut = async (s: Status) => {
      const cap = BigInt(s.attempts.at(-1)!.maxFeePerGas);
      await rpc("anvil_setNextBlockBaseFeePerGas", [`0x${(cap * 100n).toString(16)}`]);
      await rpc("anvil_mine", [`0x${(DEFAULT_STUCK_AFTER_BLOCKS + 1).toString(16)}`]);
    };
    // Enough coin for a speed-up priced in those blocks.
    await rpc("anvil_setBalance", [org.walletAddress, `0x${(10n ** 22n).toString(16)}`]);
    await rpc("evm_setAutomine", [false]);
    // And no 1 s blocks either (an earlier test turned them on): one mined between the write's
    // broadcast and `leaveOut` included it at the normal fee, and it was never stuck.
    await rpc("evm_setIntervalMining", [0]);
    let id = "";
    try {
      const accepted = await org.api<{ transactionId: string }>(
        "POST",
        "/api/v1/write/issue-asset",
        {
          body: { assetType: "Bond", name: "Stuck Bond", description: "left out of the blocks" },
          headers: { prefer: "respond-async" },
        },
      );
      assert.equal(accepted.status, 202, accepted.text);
      id = accepted.body.transactionId;
      await leaveOut(await until(id, (s) => s.status === "sent", "sent"));
      const stuck = await until(id, (s) => s.stuck !== null, "marked stuck");
      assert.equal(stuck.stuck!.reason, "not-mined");

      await page.goto(url(`/transactions/detail/?id=${id}`));
      const badge = page.getByTestId("tx-stuck-badge");
      await badge.waitFor();
      assert.equal(await badge.innerText(), "stuck: not-mined");
      assert.match(
        await page.getByTestId("tx-stuck-text").innerText(),
        /^Stuck since .+: not mined after many blocks\.$/,
      );
      await shoot("transaction-stuck");

      // Speed up: the cap raised to the current quote's, re-sent at once; no longer stuck.
      const before = stuck.attempts.length;
      await page.getByRole("button", { name: "Speed up" }).click();
      await page.getByText("Speed-up sent: the write was re-sent with a higher fee cap.").waitFor();
      const sped = await until(id, (s) => s.attempts.length > before, "re-sent");
      assert.ok(
        BigInt(sped.attempts.at(-1)!.maxFeePerGas) > BigInt(stuck.attempts.at(-1)!.maxFeePerGas),
        "a higher fee",
      );
      assert.equal(sped.stuck, null, "the speed-up clears the mark");
      await page.getByTestId("tx-stuck").waitFor({ state: "detached" });

      // Left out again: stuck again; Cancel (two steps) races it with a self-transfer.
      await leaveOut(sped);
      await until(id, (s) => s.stuck !== null, "marked stuck again");
      await badge.waitFor();
      await page.getByRole("button", { name: "Cancel" }).click();
      await page.getByRole("button", { name: "Yes, cancel it" }).click();
      await page.getByText("Cancel sent: the chain decides which transaction is mined.").waitFor();
      await until(id, (s) => s.attempts.length > sped.attempts.length, "the self-transfer");
    } finally {
      await rpc("anvil_setNextBlockBaseFeePerGas", ["0x3b9aca00"]);
      await rpc("evm_mine");
      await rpc("evm_setAutomine", [true]);
    }
    await until(id, (s) => s.status === "cancelled", "cancelled");
    await page.getByTestId("tx-detail-status").getByText("cancelled").waitFor();
    assert.match(
      await page.getByTestId("tx-error").innerText(),
      /^Cancelled: its nonce went to a zero-value self-transfer/,
    );
    assert.equal(await page.getByTestId("tx-stuck").count(), 0, "an ended write is not stuck");
  });

  it("signing out ends the session on the server", async () => {
    const cookie = await sessionCookie();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("You have signed out.").waitFor();
    assert.equal(
      (await context.cookies(stack.baseUrl)).some((c) => c.name === "rwa_session"),
      false,
    );
    const after = await stack.api("GET", "/api/enterprise/wallet", {
      headers: { cookie: `rwa_session=${cookie.value}` },
    });
    assert.equal(after.status, 401);
    await page.goto(url("/wallet/"));
    await page.waitForURL(url("/"));
  });

  it("a session opened with a key dies when that key is revoked", async () => {
    const extra = await org.api<{ apiKey: string; keyId: string }>("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"] },
    });
    assert.equal(extra.status, 200);
    const signedIn = await stack.api("POST", "/api/console/session", {
      body: { apiKey: extra.body.apiKey },
    });
    assert.equal(signedIn.status, 200);
    const token = /rwa_session=([^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1];
    assert.ok(token);
    const cookie = `rwa_session=${token}`;
    assert.equal(
      (await stack.api("GET", "/api/console/session", { headers: { cookie } })).status,
      200,
    );
    await org.api("DELETE", `/api/enterprise/keys/${extra.body.keyId}`);
    assert.equal(
      (await stack.api("GET", "/api/console/session", { headers: { cookie } })).status,
      401,
    );
  });

  it("an operator registers an organization and an asset type", async () => {
    await signIn(stack.adminToken, "/operator/orgs/");
    await page.getByTestId("org-row").first().waitFor();
    assert.ok(!(await page.content()).includes(stack.adminToken));
    await page.getByLabel("Name").fill("Operator Made Org");
    await page.getByLabel("Plan").selectOption("basic");
    await page.getByRole("checkbox", { name: "admin:types" }).check();
    await page.getByRole("button", { name: "Register organization" }).click();
    assert.match((await page.getByTestId("secret-value").innerText()).trim(), /^rwa_live_/);
    const row = page.getByTestId("org-row").filter({ hasText: "Operator Made Org" });
    await row.waitFor();
    assert.match(await row.innerText(), /basic/);
    assert.match(await row.innerText(), /admin:types/);
    await shoot("operator-orgs");

    await page.getByRole("link", { name: "Asset types" }).click();
    await page.waitForURL(url("/operator/asset-types/"));
    await page.getByTestId("asset-type-row").first().waitFor();
    await page.getByLabel("Type name").fill("Console Collectible");
    await page.getByRole("button", { name: "Register type" }).click();
    await page.getByText("Registered “Console Collectible”").waitFor({ timeout: 30_000 });
    const typeRow = page.getByTestId("asset-type-row").filter({ hasText: "Console Collectible" });
    const deadline = Date.now() + 20_000;
    while ((await typeRow.count()) === 0) {
      assert.ok(Date.now() < deadline, "new type not listed within 20 s");
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.getByRole("button", { name: "Refresh" }).click();
    }
    await shoot("operator-asset-types");
    // An operator session is not an org session: org endpoints refuse it.
    const cookie = await sessionCookie();
    const wallet = await stack.api("GET", "/api/enterprise/wallet", {
      headers: { cookie: `rwa_session=${cookie.value}` },
    });
    assert.equal(wallet.status, 401);
  });

  it("the operator's audit log shows every organization, filtered by organization", async () => {
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.waitForURL(url("/operator/audit/"));
    const rows = page.locator('[data-testid^="audit-row-"]');
    await rows.filter({ hasText: "Operator Made Org" }).first().waitFor();
    await rows.filter({ hasText: "asset_type.registered" }).first().waitFor();
    assert.match(
      await rows.filter({ hasText: "asset_type.registered" }).first().innerText(),
      /\(service\)[\s\S]*admin/,
    );
    await page.getByLabel("Organization").selectOption({ label: "Operator Made Org" });
    await rows.filter({ hasText: "asset_type.registered" }).first().waitFor({ state: "detached" });
    const texts = await rows.allInnerTexts();
    assert.ok(texts.length > 0);
    for (const text of texts) assert.match(text, /Operator Made Org/);
    await shoot("operator-audit");
  });
});
