import type { Engine } from "../../relayer/src/engine/engine.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../relayer/src/console/build-console.js";
import { startIndexer, type IndexerHandle } from "../../relayer/src/indexer/start-indexer.js";
import { launchChromium } from "../support/browser.js";
import { findChromium, missingChromiumMessage } from "../support/chromium.js";
import { startTestStack, type TestOrg, type TestStack } from "../support/stack.js";

/**
 * The compliance controls in a real browser (Debian's chromium through playwright-core) against
 * the full stack: an operator freezes an organization's asset from the Compliance page (reason,
 * then the confirmation step), and the organization's own asset pages show it frozen, with the
 * reason.
 */

const CHROMIUM = findChromium();
const WIDE = { width: 1280, height: 900 };

describe("compliance controls in the console", { timeout: 300_000 }, () => {
  let stack: TestStack;
  let org: TestOrg;
  let browser: Browser;
  let indexer: IndexerHandle | undefined;
  let engine: Engine | undefined;

  const url = (route: string) => `${stack.baseUrl}/console${route}`;

  /** A fresh browser context signed in with `credential`, on its first screen. */
  const signedIn = async (credential: string, home: string): Promise<Page> => {
    const context = await browser.newContext({ viewport: WIDE });
    const page = await context.newPage();
    await page.goto(url("/"));
    await page.locator("#credential").fill(credential);
    await page.getByRole("button", { name: "Sign in with the key" }).click();
    await page.waitForURL(url(home));
    return page;
  };

  before(async () => {
    if (CHROMIUM === undefined) throw new Error(missingChromiumMessage());
    const build = await ensureConsoleBuilt({ print: (line) => process.stderr.write(`${line}\n`) });
    assert.notEqual(build.status, "failed", build.status === "failed" ? build.message : "");
    // The freeze itself, at once (OPERATOR_FOUR_EYES=off); four-eyes has its own tests.
    stack = await startTestStack({ logLevel: "warn", config: { operatorFourEyes: false } });
    engine = stack.ctx.engine;
    await engine.start();
    indexer = await startIndexer(stack.ctx, { pollIntervalMs: 100, lockPollMs: 200 });
    org = await stack.registerOrg({ orgName: "Compliance Console Org" });
    browser = await launchChromium(CHROMIUM);
  });

  after(async () => {
    await browser?.close();
    await indexer?.stop();
    await engine?.stop();
    await stack?.stop();
  });

  it("an operator freezes an asset with a reason and a confirmation; the organization's pages show it frozen", async () => {
    const issued = await org.api("POST", "/api/v1/write/issue-asset", {
      body: { assetType: "Bond", name: "Disputed Bond", description: "for the freeze test" },
    });
    assert.equal(issued.status, 200, issued.text);
    const tokenId = (issued.body as { tokenId: string }).tokenId;

    const operator = await signedIn(stack.adminToken, "/operator/orgs/");
    await operator.getByRole("link", { name: "Compliance" }).click();
    await operator.waitForURL(url("/operator/compliance/"));
    await operator.locator("#freeze-token-id").fill(tokenId);
    // No reason: refused in the page, nothing sent.
    await operator.getByRole("button", { name: "Freeze", exact: true }).click();
    await operator.getByRole("button", { name: "Yes, freeze" }).click();
    await operator.getByText("Give a reason").waitFor();
    assert.equal(await stack.ctx.engine.reader.isFrozen(BigInt(tokenId)), false);

    await operator.locator("#freeze-reason").fill("Ownership dispute, case 2026-11");
    await operator.getByRole("button", { name: "Freeze", exact: true }).click();
    await operator.getByText(`Freeze token #${tokenId}?`).waitFor();
    await operator.getByRole("button", { name: "Yes, freeze" }).click();
    await operator.getByText(`Token #${tokenId} frozen`).waitFor({ timeout: 30_000 });
    assert.equal(await stack.ctx.engine.reader.isFrozen(BigInt(tokenId)), true);

    const page = await signedIn(org.apiKey, "/wallet/");
    await page.goto(url("/assets/"));
    const pill = page.getByTestId("asset-frozen");
    for (let i = 0; i < 40 && (await pill.count()) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await page.reload();
      await page.waitForLoadState("networkidle");
    }
    assert.equal(await pill.count(), 1, "the gallery marks the asset frozen");
    await page.goto(url(`/assets/detail/?id=${tokenId}`));
    const compliance = page.getByTestId("asset-compliance");
    await compliance.waitFor();
    assert.match(
      (await compliance.textContent()) ?? "",
      /Frozen by the operator: Ownership dispute, case 2026-11/,
    );
  });
});
