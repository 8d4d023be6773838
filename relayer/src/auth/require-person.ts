import type { NextFunction, Request, Response } from "express";
import type { AppContext } from "../context.js";
import { ForbiddenError, OrgSuspendedError, UnauthorizedError } from "../errors.js";
import { hasApiKeyHeaders, sessionOf } from "./session-auth.js";
import type { ConsoleSession } from "./session-store.js";
import type { OrgRole } from "../domain/person.js";

export type { OrgRole } from "../domain/person.js";

/** A signed-in person of an organization, as a `person` route sees them. */
export interface PersonPrincipal {
  orgId: string;
  userId: string;
  email: string;
  role: OrgRole;
  /** The session row's id (SHA-256 of the cookie). */
  sessionId: string;
}

/** The person of a request that passed `requirePerson`. */
export function personOf(res: Response): PersonPrincipal {
  const person = (res.locals as { person?: PersonPrincipal }).person;
  if (person === undefined)
    throw new UnauthorizedError({ details: { reason: "route is missing requirePerson" } });
  return person;
}

/** The person a session belongs to, when it is a person's (not a key's or the admin token's). */
export function sessionPerson(session: ConsoleSession): PersonPrincipal | undefined {
  if (session.userId === null || session.orgId === null || session.role === null) return undefined;
  return {
    orgId: session.orgId,
    userId: session.userId,
    email: session.email ?? "",
    role: session.role,
    sessionId: session.id,
  };
}

/**
 * Middleware for the routes only a signed-in person may use (`auth: "person"`): the request
 * carries a person's console session cookie (CSRF-checked on unsafe methods) and that person's
 * role is one of `roles`. An API key, the admin token or a console session opened with a key is
 * 403 `Requires a signed-in <roles>` (what limits a key, a key cannot loosen); no credentials at
 * all, or an invalid or expired cookie, is 401. Sets `res.locals.person` (`personOf`).
 */
export function requirePerson(ctx: AppContext, roles: readonly OrgRole[]) {
  const refusal = `Requires a signed-in ${roles.join(" or ")}`;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (hasApiKeyHeaders(req) || req.get("x-admin-token") !== undefined)
      throw new ForbiddenError(refusal, { details: { reason: "machine credentials" } });
    const session = await sessionOf(ctx, req, res);
    if (session === undefined)
      throw new UnauthorizedError({ details: { reason: "no session cookie" } });
    const person = sessionPerson(session);
    if (person === undefined)
      throw new ForbiddenError(refusal, { details: { reason: `a ${session.kind} key session` } });
    if (session.suspended) throw new OrgSuspendedError({ details: { orgId: person.orgId } });
    if (!roles.includes(person.role))
      throw new ForbiddenError(refusal, { details: { role: person.role } });
    (res.locals as { person?: PersonPrincipal }).person = person;
    next();
  };
}
