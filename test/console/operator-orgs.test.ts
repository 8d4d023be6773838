import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../relayer/src/console/build-console.js";
import { launchChromium } from "../support/browser.js";
import { findChromium, missingChromiumMessage } from "../support/chromium.js";
import { startTestStack, type TestOrg, type TestStack } from "../support/stack.js";

const CHROMIUM = findChromium();

/**
 * The console's operator pages for organizations, in a real browser: search the list, open an
 * org, change its plan, suspend it (asked twice) and resume it, revoke a key (asked twice); and
 * the org's own key page showing expiry and last use.
 */
describe("console: operator controls over organizations", { timeout: 300_000 }, () => {
  let stack: TestStack;
  let org: TestOrg;
  let browser: Browser;
  let page: Page;
  const url = (route: string) => `${stack.baseUrl}/console${route}`;

  before(async () => {
    if (CHROMIUM === undefined) throw new Error(missingChromiumMessage());
    const build = await ensureConsoleBuilt({ print: (line) => process.stderr.write(`${line}\n`) });
    assert.notEqual(build.status, "failed", build.status === "failed" ? build.message : "");
    stack = await startTestStack({ logLevel: "warn" });
    org = await stack.registerOrg({ orgName: "Quayside Holdings", plan: "basic" });
    await stack.registerOrg({ orgName: "Someone Else" });
    browser = await launchChromium(CHROMIUM);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const signIn = async (credential: string, home: string) => {
    await page.goto(url("/"));
    await page.locator("#credential").fill(credential);
    await page.getByRole("button", { name: "Sign in with the key" }).click();
    await page.waitForURL(url(home));
  };
  const orgState = async () =>
    (await stack.api("GET", `/api/enterprise/orgs/${org.orgId}`, { adminToken: stack.adminToken }))
      .body as { plan: string; suspended: boolean; keyCount: number };

  it("an operator finds an org, changes its plan, suspends it after confirming, and resumes it", async () => {
    await signIn(stack.adminToken, "/operator/orgs/");
    await page.getByTestId("org-row").first().waitFor();
    await page.getByLabel("Search organizations").fill("quaySIDE");
    const row = page.getByTestId("org-row").filter({ hasText: "Quayside Holdings" });
    await row.waitFor();
    await page.getByTestId("org-row").filter({ hasText: "Someone Else" }).waitFor({
      state: "detached",
    });
    assert.match(await row.innerText(), /basic/);
    assert.match(await row.innerText(), /active/);
    // The search is in the URL (a moment after the last key): a reload keeps it.
    await page.waitForURL(url("/operator/orgs/?q=quaySIDE"));
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByLabel("Search organizations").inputValue(), "quaySIDE");
    await row.getByRole("link", { name: "Manage" }).click();
    await page.getByTestId("org-title").waitFor();
    assert.equal(await page.getByTestId("org-title").innerText(), "Quayside Holdings");

    await page.getByLabel("Plan").selectOption("pro");
    await page.getByRole("button", { name: "Change plan" }).click();
    await page.getByText("Plan changed to pro").waitFor();
    assert.equal((await orgState()).plan, "pro");
    await page.getByTestId("org-plan").filter({ hasText: "pro" }).waitFor();

    // Suspend asks first; cancelling changes nothing.
    await page.getByRole("button", { name: "Suspend" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    assert.equal((await orgState()).suspended, false);
    await page.getByRole("button", { name: "Suspend" }).click();
    await page.getByRole("button", { name: "Yes, suspend" }).click();
    await page.getByTestId("org-status").filter({ hasText: "suspended" }).waitFor();
    assert.equal((await orgState()).suspended, true);
    assert.equal((await org.api("GET", "/api/enterprise/wallet")).status, 403);

    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByTestId("org-status").filter({ hasText: "active" }).waitFor();
    assert.equal((await orgState()).suspended, false);
    assert.equal((await org.api("GET", "/api/enterprise/wallet")).status, 200);
  });

  it("an operator revokes one of the org's keys after confirming", async () => {
    const extra = await org.api<{ keyId: string; apiKey: string }>("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"], label: "leaked" },
    });
    assert.equal(extra.status, 200, extra.text);
    await page.reload();
    const keyRow = page.getByTestId(`org-key-row-${extra.body.keyId}`);
    await keyRow.waitFor();
    assert.ok(!(await page.content()).includes(extra.body.apiKey));
    await keyRow.getByRole("button", { name: "Revoke" }).click();
    await keyRow.getByRole("button", { name: "Yes, revoke" }).click();
    await keyRow.getByText("revoked").waitFor();
    const res = await stack.api("GET", "/api/enterprise/wallet", {
      apiKey: extra.body.apiKey,
    });
    assert.equal(res.status, 401);
    assert.equal((await orgState()).keyCount, 1);
  });

  it("the org's key page creates a key with an expiry and shows expiry and last use", async () => {
    await page.context().clearCookies();
    await signIn(org.apiKey, "/wallet/");
    await page.goto(url("/keys/"));
    await page.getByLabel("Label (optional)").fill("expiring");
    await page.getByLabel("Expires (optional)").fill("2031-06-30T12:00");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("secret-value").waitFor();
    const listed = await org.api<{ keys: Array<Record<string, unknown>> }>(
      "GET",
      "/api/enterprise/keys",
    );
    const created = listed.body.keys.find((k) => k.label === "expiring");
    assert.ok(created !== undefined, listed.text);
    assert.match(String(created.expiresAt), /^2031-06-30T/);
    const row = page.getByTestId(`key-row-${String(created.keyId)}`);
    await row.waitFor();
    assert.match(await row.innerText(), /2031/);
    // The key used to sign in shows when it was last used.
    const own = page.getByTestId(`key-row-${org.keyId}`);
    assert.doesNotMatch(await own.innerText(), /—\s+—/);
  });
});
