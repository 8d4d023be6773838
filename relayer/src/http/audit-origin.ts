import type { Request, Response } from "express";
import type { AuditOrigin } from "../audit/audit-writer.js";
import { ADMIN_ACTOR } from "../domain/audit.js";
import type { ApiKeyPrincipal } from "../auth/api-key-cache.js";
import { requestIdOf } from "./request-context.js";

/** The actor of a request that carried no credentials (public routes, sign-in). */
export const ANONYMOUS_ACTOR = "anonymous";

/**
 * Who made this request, for the audit log: `admin` after the admin token or an operator
 * session, the API key id after a key (a console session acts as the key it was opened with),
 * else `anonymous`; its request id; and the address it came from (`req.ip`, which follows
 * Express's `trust proxy` when an operator sets it; IPv4 without the `::ffff:` prefix).
 */
export function auditOriginOf(req: Request, res: Response): AuditOrigin {
  const locals = res.locals as { admin?: boolean; auth?: ApiKeyPrincipal };
  const actor = locals.admin === true ? ADMIN_ACTOR : (locals.auth?.keyId ?? ANONYMOUS_ACTOR);
  const ip = req.ip ?? req.socket.remoteAddress;
  return {
    actor,
    requestId: requestIdOf(res),
    sourceAddress: ip === undefined ? null : ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1"),
  };
}
