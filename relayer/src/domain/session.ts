import type { PersonRole } from "./person.ts";

/**
 * A console session as `GET`/`POST /api/console/session` describe it (console/README.md "Sign-in
 * and sessions"). The session itself is an httpOnly cookie; this is what the page may know.
 */

/** Who a console session belongs to: an organization's admin or the operator's staff. */
export type SessionKind = "org" | "operator";

/** A console session: its owner, scopes, expiry and the CSRF token for unsafe requests. */
export interface SessionInfo {
  kind: SessionKind;
  /** The organization's fields are null for operator sessions. */
  orgId: string | null;
  orgName: string | null;
  plan: string | null;
  walletAddress: string | null;
  scopes: string[];
  expiresAt: string;
  /** The signed-in person; null for a session opened with an API key or the admin token. */
  person: { userId: string; email: string; role: PersonRole } | null;
  /** Sent back as `X-CSRF-Token` on POST, PUT, PATCH and DELETE. */
  csrfToken: string;
}
