import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { SMTPServer } from "smtp-server";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { accept, email, registerWithOwner, signIn, type SignedIn } from "./people-helpers.js";

/**
 * Mailed invitations (docs/people.md "Mailed invitations"): with `SMTP_URL` set, the first
 * owner's invitation and an owner's invitation of a person are mailed (nodemailer) to a real SMTP
 * server on loopback (the `smtp-server` package); the mailed link is the one answered, and it
 * works. Without `SMTP_URL` nothing is sent; a server that refuses the mail leaves the invitation
 * good.
 */

interface Mail {
  from: string;
  to: string[];
  text: string;
}

describe("mailed invitations (PostgreSQL + a loopback SMTP server)", () => {
  let stack: TestStack;
  let server: SMTPServer;
  let port: number;
  const mails: Mail[] = [];
  let refuse = false;
  let owner: SignedIn;

  before(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onRcptTo(_address, _session, callback) {
        callback(refuse ? new Error("mailbox unavailable") : undefined);
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          mails.push({
            from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address),
            text: Buffer.concat(chunks).toString("utf8"),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as AddressInfo).port;
    stack = await startTestStack({ logLevel: "warn" });
  });
  after(async () => {
    await stack?.stop();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  /** A mail's text with quoted-printable soft breaks undone. */
  const textOf = (mail: Mail) => mail.text.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  /** The link in a mail. */
  const linkIn = (mail: Mail) =>
    /(http\S+accept-invitation\?token=[A-Za-z0-9_-]+)/.exec(textOf(mail))?.[1];

  it("without SMTP_URL nothing is mailed", async () => {
    await registerWithOwner(stack, email("unmailed"));
    assert.equal(mails.length, 0);
  });

  it("with SMTP_URL the first owner's invitation is mailed, and the mailed link works", async () => {
    stack.ctx.config.smtpUrl = `smtp://127.0.0.1:${port}`;
    stack.ctx.config.smtpFrom = "Console <console@example.com>";
    const address = email("owner");
    const registered = await registerWithOwner(stack, address);
    assert.equal(mails.length, 1);
    const mail = mails[0]!;
    assert.deepEqual(mail.to, [address]);
    assert.equal(mail.from, "console@example.com");
    assert.match(textOf(mail), /Subject: You are invited to People \w+ on the RWA Console/);
    assert.match(textOf(mail), /with the role owner/);
    assert.equal(linkIn(mail), registered.invitationUrl);
    owner = await signIn(stack, await accept(stack, linkIn(mail)!, address));
  });

  it("an owner's invitation of a person is mailed; a server that refuses it leaves the invitation good", async () => {
    const address = email("dev");
    const res = await owner.api("POST", "/api/enterprise/users", {
      body: { email: address, role: "developer" },
    });
    assert.equal(res.status, 200, res.text);
    const mail = mails.find((m) => m.to.includes(address));
    assert.ok(mail !== undefined, "mailed");
    assert.match(textOf(mail), /with the role developer/);
    assert.equal(linkIn(mail), res.body.invitation.url);

    refuse = true;
    try {
      const refused = email("refused");
      const again = await owner.api("POST", "/api/enterprise/users", {
        body: { email: refused, role: "viewer" },
      });
      assert.equal(again.status, 200, again.text);
      assert.ok(!mails.some((m) => m.to.includes(refused)));
      assert.match(stack.logText(), /invitation mail not sent/);
      assert.ok(!stack.logText().includes(again.body.invitation.url), "the link is never logged");
      await accept(stack, again.body.invitation.url, refused);
    } finally {
      refuse = false;
    }
  });
});
