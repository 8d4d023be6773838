import type { Request, Response } from "express";
import type { AuditOrigin } from "../audit/audit-writer.js";
import { ADMIN_ACTOR } from "../domain/audit.js";
import type { ApiKeyPrincipal } from "../auth/api-key-cache.js";
import { requestIdOf } from "./request-context.js";

/** The actor of a request that carried no credentials (public routes, sign-in). */
export const ANONYMOUS_ACTOR = "anonymous";

/**
 * Who made this request, for the audit log: `admin` after the admin token or its operator
 * session, `usr_… (email)` after a person's console session (an organization's or operator
 * staff's), the API key id after a key (a
 * console session opened with a key acts as that key),
 * else `anonymous`; its request id; and the address it came from (`req.ip`, which follows
 * Express's `trust proxy` when an operator sets it; IPv4 without the `::ffff:` prefix).
 */
export function auditOriginOf(req: Request, res: Response): AuditOrigin {
  const locals = res.locals as {
    admin?: boolean;
    auth?: ApiKeyPrincipal;
    session?: { userId: string | null; email: string | null };
  };
  // A person (console session) is named by user id and their email at the time.
  const person = locals.session?.userId ?? null;
  // An operator person is named too: only the admin token (or its session) is `admin`.
  const actor =
    person !== null
      ? `${person} (${locals.session?.email ?? ""})`
      : locals.admin === true
        ? ADMIN_ACTOR
        : (locals.auth?.keyId ?? ANONYMOUS_ACTOR);
  const ip = req.ip ?? req.socket.remoteAddress;
  return {
    actor,
    requestId: requestIdOf(res),
    sourceAddress: ip === undefined ? null : ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1"),
  };
}
