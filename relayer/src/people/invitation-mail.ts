import nodemailer from "nodemailer";
import type { AppContext } from "../context.js";
import { isOperatorRole, type PersonRole } from "../domain/person.js";

/**
 * Mailed invitations (docs/people.md "Mailed invitations"): when `SMTP_URL` is set, an
 * invitation's link is also mailed to the person invited (nodemailer). The inviter is still
 * answered the link once, so a mail that does not go out is not a failed invitation: it is
 * logged (never with the link, which is a credential) and answered `false`.
 */

/** What the mail says: who is invited, as what, the link and until when it works. */
export interface InvitationMail {
  email: string;
  role: PersonRole;
  url: string;
  expiresAt: string;
  /** The organization's name when known (operator staff have none). */
  orgName?: string | undefined;
}

/**
 * Mails an invitation through `SMTP_URL`. Returns whether the server accepted it; false (and
 * nothing sent) without `SMTP_URL`.
 */
export async function mailInvitation(ctx: AppContext, mail: InvitationMail): Promise<boolean> {
  const smtpUrl = ctx.config.smtpUrl;
  if (smtpUrl === undefined) return false;
  const where = isOperatorRole(mail.role)
    ? "the RWA service's operator staff"
    : (mail.orgName ?? "your organization");
  const transport = nodemailer.createTransport(smtpUrl);
  try {
    await transport.sendMail({
      from: ctx.config.smtpFrom ?? "RWA Console <no-reply@localhost>",
      to: mail.email,
      subject: `You are invited to ${where} on the RWA Console`,
      text: [
        `You are invited to ${where} on the RWA Console, with the role ${mail.role}.`,
        "",
        "Open this link to choose your password and set up your authenticator app:",
        mail.url,
        "",
        `The link works once, until ${mail.expiresAt}. If you did not expect it, ignore this mail.`,
      ].join("\n"),
    });
    return true;
  } catch (error) {
    ctx.logger.warn(
      { to: mail.email, error: error instanceof Error ? error.message : String(error) },
      "invitation mail not sent",
    );
    return false;
  } finally {
    transport.close();
  }
}
