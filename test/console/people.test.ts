import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { getAddress } from "ethers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../relayer/src/console/build-console.js";
import { totpCode } from "../../relayer/src/people/totp.js";
import { launchChromium } from "../support/browser.js";
import { findChromium, missingChromiumMessage } from "../support/chromium.js";
import { startTestStack, type TestStack } from "../support/stack.js";
import {
  email,
  registerWithOwner,
  signIn as signInPerson,
} from "../relayer/people/people-helpers.js";
import { startIndexer, type IndexerHandle } from "../../relayer/src/indexer/start-indexer.js";

/**
 * People in the console, in a real browser (Debian's chromium through playwright-core) against
 * the full stack (docs/people.md): the first owner opens the invitation link, sets a password and
 * gets the authenticator secret once; signs in with email, password and a TOTP code; then invites
 * a developer from the People screen (the link shown once), changes the role and removes them.
 */

const CHROMIUM = findChromium();
const WIDE = { width: 1280, height: 900 };
const PASSWORD = "a long enough password, 2026";

describe("people in the console", { timeout: 300_000 }, () => {
  let stack: TestStack;
  let browser: Browser;
  let indexer: IndexerHandle | undefined;
  let context: BrowserContext;
  let page: Page;
  const owner = email("owner");
  let invitationUrl: string;
  let apiKey: string;
  let secret: string;

  const url = (route: string) => `${stack.baseUrl}/console${route}`;

  before(async () => {
    if (CHROMIUM === undefined) throw new Error(missingChromiumMessage());
    const build = await ensureConsoleBuilt({ print: (line) => process.stderr.write(`${line}\n`) });
    assert.notEqual(build.status, "failed", build.status === "failed" ? build.message : "");
    stack = await startTestStack({ logLevel: "warn" });
    await stack.ctx.engine.start();
    indexer = await startIndexer(stack.ctx, { pollIntervalMs: 100, lockPollMs: 200 });
    ({ invitationUrl, apiKey } = await registerWithOwner(stack, owner));
    browser = await launchChromium(CHROMIUM);
    context = await browser.newContext({ viewport: WIDE });
    page = await context.newPage();
  });

  after(async () => {
    await browser?.close();
    await indexer?.stop();
    await stack?.ctx.engine.stop();
    await stack?.stop();
  });

  it("the invitation link sets a password and shows the authenticator secret once", async () => {
    assert.ok(
      invitationUrl.startsWith(`${stack.baseUrl}/console/accept-invitation`),
      invitationUrl,
    );
    await page.goto(invitationUrl);
    await page.locator("#new-password").fill(PASSWORD);
    await page.locator("#confirm-password").fill(`${PASSWORD}!`);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByText("The two passwords differ").waitFor();
    await page.locator("#new-password").fill("short");
    await page.locator("#confirm-password").fill("short");
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByText("At least 12 characters").waitFor();

    await page.locator("#new-password").fill(PASSWORD);
    await page.locator("#confirm-password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByTestId("totp-secret").waitFor();
    secret = (await page.getByTestId("totp-secret").innerText()).trim();
    assert.match(secret, /^[A-Z2-7]{16,}$/, "a base32 secret");
    assert.equal(await page.getByTestId("accepted-email").innerText(), owner);
    const otpauth = await page
      .getByRole("link", { name: "Open in your authenticator app" })
      .getAttribute("href");
    assert.ok(otpauth?.startsWith("otpauth://totp/"), String(otpauth));
    assert.ok(otpauth?.includes(`secret=${secret}`));

    // The link is single use.
    await page.goto(invitationUrl);
    await page.locator("#new-password").fill(PASSWORD);
    await page.locator("#confirm-password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByText("This invitation was already used").waitFor();
    // A link without its token says so.
    await page.goto(url("/accept-invitation/"));
    await page.getByText("This link has no invitation token").waitFor();
  });

  it("the owner signs in with email, password and the authenticator's code", async () => {
    await page.goto(url("/"));
    await page.locator("#email").fill(owner);
    await page.locator("#password").fill(PASSWORD);
    await page.locator("#totp").fill("12345");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Enter the 6-digit code from your authenticator app").waitFor();

    // A wrong code: one answer for every wrong credential, and the secrets leave the fields.
    const wrong = totpCode(secret, owner, Date.now() + 10 * 60_000);
    await page.locator("#password").fill(PASSWORD);
    await page.locator("#totp").fill(wrong);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Email, password or code not accepted").waitFor();
    assert.equal(await page.locator("#password").inputValue(), "");
    assert.equal(await page.locator("#totp").inputValue(), "");

    await page.locator("#password").fill(PASSWORD);
    await page.locator("#totp").fill(totpCode(secret, owner, Date.now()));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(url("/wallet/"));
    const who = await page.getByTestId("person").innerText();
    assert.match(who, new RegExp(`${owner.replace(/[.+]/g, "\\$&")}\\s+owner`));
    const stored = await page.evaluate<string>(
      `JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie, document.documentElement.outerHTML])`,
    );
    assert.ok(!stored.includes(PASSWORD), "the password is not kept in the page");
    assert.ok(!stored.includes(secret), "the secret is not kept in the page");
  });

  it("the owner invites a developer from the People screen, changes the role and removes them", async () => {
    await page.getByRole("link", { name: "People" }).click();
    await page.waitForURL(url("/people/"));
    await page.getByTestId(`person-row-${owner}`).waitFor();

    const developer = email("developer");
    await page.locator("#invite-email").fill("not an email");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByText("Enter an email address").waitFor();
    await page.locator("#invite-email").fill(developer);
    await page.locator("#invite-role").selectOption("developer");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByText(`${developer} invited as developer.`).waitFor();
    const link = (await page.getByTestId("secret-value").innerText()).trim();
    assert.ok(link.startsWith(`${stack.baseUrl}/console/accept-invitation?token=`), link);
    const row = page.getByTestId(`person-row-${developer}`);
    await row.getByText("invited").waitFor();

    await row.getByRole("combobox", { name: `Role of ${developer}` }).selectOption("viewer");
    await page.getByText(`${developer} is now viewer; their sessions ended.`).waitFor();
    const listed = await stack.api("POST", "/api/console/invitations/accept", {
      body: { token: new URL(link).searchParams.get("token"), password: PASSWORD },
    });
    assert.equal(listed.status, 200, "the invitation still opens after the role change");

    await row.getByRole("button", { name: "Remove" }).click();
    await row.getByRole("button", { name: "Yes, remove" }).click();
    await page.getByText(`${developer} removed.`).waitFor();
    await page.getByTestId(`person-row-${developer}`).waitFor({ state: "detached" });
  });

  it("the owner sets the allowlist and a daily limit in the policy editor, and a key's transfer elsewhere is refused", async () => {
    const treasury = getAddress("0x00000000000000000000000000000000000000aa");
    await page.getByRole("link", { name: "Policy" }).click();
    await page.waitForURL(url("/policy/"));
    await page.getByText("The default policy applies: no restriction.").waitFor();
    await page.locator("#allow-address").fill("0x123");
    await page.locator("#allow-label").fill("Broken");
    await page.getByRole("button", { name: "Add to the allowlist" }).click();
    await page.getByText("Enter a 0x address (40 hex digits)").waitFor();
    await page.locator("#allow-address").fill(treasury);
    await page.locator("#allow-label").fill("Treasury");
    await page.getByRole("button", { name: "Add to the allowlist" }).click();
    await page.getByTestId(`allowlist-${treasury.toLowerCase()}`).waitFor();
    await page.getByLabel("Only the addresses on the allowlist").check();
    await page.locator("#transfers-per-day").fill("5");
    await page.getByRole("button", { name: "Save policy" }).click();
    await page.getByText("Policy saved.").waitFor();

    const saved = await stack.api<{
      destinations: { mode: string; allowlist: Array<{ address: string; label: string }> };
      limits: { transfersPerDay: number | null };
      updatedAt: string | null;
    }>("GET", "/api/enterprise/policy", { apiKey });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.destinations.mode, "allowlist");
    assert.deepEqual(saved.body.destinations.allowlist, [{ address: treasury, label: "Treasury" }]);
    assert.equal(saved.body.limits.transfersPerDay, 5);
    assert.notEqual(saved.body.updatedAt, null);

    // The organization's own key cannot move an asset off the list, nor loosen the policy.
    const elsewhere = await stack.api<{ error: string }>("POST", "/api/v1/write/transfer", {
      apiKey,
      body: { tokenId: "1", toAddress: "0x00000000000000000000000000000000000000bb" },
    });
    assert.equal(elsewhere.status, 403, elsewhere.text);
    assert.match(elsewhere.body.error, /^Policy: /);
    const loosen = await stack.api("PUT", "/api/enterprise/policy", {
      apiKey,
      body: { ...saved.body, updatedAt: undefined, destinations: { mode: "any", allowlist: [] } },
    });
    assert.equal(loosen.status, 403, loosen.text);
  });

  it("an approval rule holds a key's transfer; the owner approves it on the Approvals screen and the token arrives", async () => {
    const treasury = getAddress("0x00000000000000000000000000000000000000aa");
    // The owner's API session (the next TOTP step: the browser's sign-in used this one).
    const ownerApi = await signInPerson(stack, { email: owner, password: PASSWORD, secret }, 1);
    const current = await ownerApi.api<{ destinations: unknown; limits: unknown }>(
      "GET",
      "/api/enterprise/policy",
    );
    const rules = await ownerApi.api("PUT", "/api/enterprise/policy", {
      body: {
        destinations: current.body.destinations,
        limits: current.body.limits,
        approvals: [{ kinds: ["transfer"], when: "always", approvers: 1 }],
      },
    });
    assert.equal(rules.status, 200, rules.text);

    const issued = await stack.api<{ tokenId: string }>("POST", "/api/v1/write/issue-asset", {
      apiKey,
      body: { assetType: "Bond", name: "Held Bond", description: "waits for an approval" },
    });
    assert.equal(issued.status, 200, issued.text);
    const tokenId = String(issued.body.tokenId);
    const asked = await stack.api<{ status: string; transactionId: string }>(
      "POST",
      "/api/v1/write/transfer",
      { apiKey, body: { tokenId, toAddress: treasury } },
    );
    assert.equal(asked.status, 202, asked.text);
    assert.equal(asked.body.status, "pending_approval");
    const id = asked.body.transactionId;

    await page.goto(url("/approvals/"));
    const row = page.getByTestId(`held-row-${id}`);
    await row.waitFor();
    assert.match(await page.getByTestId("approvals-count").innerText(), /^1\s+waiting$/);
    assert.match(await row.innerText(), new RegExp(`toAddress: ${treasury}`));
    assert.match(await row.innerText(), /0 of 1/);
    await row.getByRole("button", { name: "Approve" }).click();
    await page.getByText(`transfer ${id} approved.`).waitFor();
    await row.waitFor({ state: "detached" });
    await page.getByText("Nothing waits for approval").waitFor();

    // Recorded under the same id and sent: the token arrives.
    const deadline = Date.now() + 60_000;
    let status = "";
    while (Date.now() < deadline) {
      const read = await stack.api<{ status: string }>("GET", `/api/v1/transactions/${id}`, {
        apiKey,
      });
      status = read.body.status;
      if (status === "confirmed" || status === "failed") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status, "confirmed");
    assert.equal(await stack.ctx.engine.reader.ownerOf(BigInt(tokenId)), treasury);
  });
});
