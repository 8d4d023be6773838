import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../relayer/src/console/build-console.js";
import { totpCode } from "../../relayer/src/people/totp.js";
import { launchChromium } from "../support/browser.js";
import { findChromium, missingChromiumMessage } from "../support/chromium.js";
import { startTestStack, type TestStack } from "../support/stack.js";
import { accept, email, registerWithOwner } from "../relayer/people/people-helpers.js";

/**
 * Passkeys in the console (docs/people.md "Passkeys"), in a real browser (Debian's chromium
 * through playwright-core) with Chromium's virtual authenticator (CDP `WebAuthn.enable`,
 * `WebAuthn.addVirtualAuthenticator`: resident keys, user verification): an owner signed in with
 * password and TOTP adds a passkey on the Account screen, signs out, signs in with the passkey
 * alone, sees their sessions, removes the passkey, and it no longer signs in. The console is
 * opened at `localhost` (an IP address cannot be a WebAuthn relying party).
 */

const CHROMIUM = findChromium();
const WIDE = { width: 1280, height: 900 };

describe("passkeys in the console", { timeout: 300_000 }, () => {
  let stack: TestStack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  const owner = email("owner");
  let enrolled: { email: string; password: string; secret: string };

  const origin = () => stack.baseUrl.replace("127.0.0.1", "localhost");
  const url = (route: string) => `${origin()}/console${route}`;
  const credentials = async () =>
    (
      (await cdp.send("WebAuthn.getCredentials", { authenticatorId })) as {
        credentials: Array<{ isResidentCredential: boolean; signCount: number }>;
      }
    ).credentials;

  before(async () => {
    if (CHROMIUM === undefined) throw new Error(missingChromiumMessage());
    const build = await ensureConsoleBuilt({ print: (line) => process.stderr.write(`${line}\n`) });
    assert.notEqual(build.status, "failed", build.status === "failed" ? build.message : "");
    stack = await startTestStack({ logLevel: "warn" });
    const { invitationUrl } = await registerWithOwner(stack, owner);
    enrolled = await accept(stack, invitationUrl, owner);
    browser = await launchChromium(CHROMIUM);
    context = await browser.newContext({ viewport: WIDE });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    ({ authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("a person signed in with password and TOTP adds a passkey on the Account screen", async () => {
    await page.goto(url("/"));
    await page.locator("#email").fill(owner);
    await page.locator("#password").fill(enrolled.password);
    await page.locator("#totp").fill(totpCode(enrolled.secret, owner));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(url("/wallet/"));
    await page.getByRole("link", { name: "Account" }).click();
    await page.waitForURL(url("/account/"));
    await page.getByTestId("own-session-row").first().waitFor();
    assert.equal(await page.getByTestId("own-session-row").count(), 1);
    await page.getByText("No passkey yet").waitFor();
    await page.locator("#passkey-name").fill("Laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByText("Passkey “Laptop” added.").waitFor();
    await page.getByTestId("passkey-row").filter({ hasText: "Laptop" }).waitFor();
    const held = await credentials();
    assert.equal(held.length, 1);
    assert.equal(held[0]!.isResidentCredential, true, "a discoverable credential");
  });

  it("signed out, the person signs in with the passkey alone; the ended session is gone from the list", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in with a passkey" }).waitFor();
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(url("/wallet/"));
    assert.match(await page.getByTestId("person").innerText(), new RegExp(owner));
    assert.ok((await credentials())[0]!.signCount >= 1, "the authenticator signed");
    const res = await stack.api<{ data: Array<{ actor: string }> }>(
      "GET",
      "/api/enterprise/audit-log?action=user.passkey_added",
      { adminToken: stack.adminToken },
    );
    assert.equal(res.body.data[0]?.actor.endsWith(`(${owner})`), true, res.text);
    await page.getByRole("link", { name: "Account" }).click();
    await page.getByTestId("passkey-row").filter({ hasText: "Laptop" }).waitFor();
    // The first session was ended by signing out: only this one is active.
    assert.equal(await page.getByTestId("own-session-row").count(), 1);
  });

  it("a removed passkey no longer signs in", async () => {
    await page.getByRole("button", { name: "Remove" }).click();
    await page.getByRole("button", { name: "Yes, remove" }).click();
    await page.getByText("Passkey “Laptop” removed.").waitFor();
    await page.getByText("No passkey yet").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByText("That passkey was not accepted.").waitFor();
    assert.equal(page.url(), url("/"));
  });
});
