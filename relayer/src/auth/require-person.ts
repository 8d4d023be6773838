import type { NextFunction, Request, Response } from "express";
import type { AppContext } from "../context.js";
import { ForbiddenError, OrgSuspendedError, UnauthorizedError } from "../errors.js";
import { hasApiKeyHeaders, sessionOf } from "./session-auth.js";
import type { ConsoleSession } from "./session-store.js";
import {
  isOperatorRole,
  type OperatorRole,
  type OrgRole,
  type PersonRole,
} from "../domain/person.js";

export type { OrgRole, PersonRole } from "../domain/person.js";

/** A signed-in person of an organization, as a `person` route sees them. */
export interface PersonPrincipal {
  orgId: string;
  userId: string;
  email: string;
  role: OrgRole;
  /** The session row's id (SHA-256 of the cookie). */
  sessionId: string;
}

/** A signed-in operator person (docs/people.md "Operator staff"). */
export interface OperatorPrincipal {
  userId: string;
  email: string;
  role: OperatorRole;
  /** The session row's id (SHA-256 of the cookie). */
  sessionId: string;
}

/** The organization's person of a request that passed `requirePerson`, if it was one. */
export function personOf(res: Response): PersonPrincipal | undefined {
  return (res.locals as { person?: PersonPrincipal }).person;
}

/**
 * The operator person of a request: one that passed `requirePerson` as operator staff, or an
 * operator route (`requireAdminToken`) called with an operator person's session; undefined for
 * the admin token and everyone else.
 */
export function operatorPersonOf(res: Response): OperatorPrincipal | undefined {
  return (res.locals as { operatorPerson?: OperatorPrincipal }).operatorPerson;
}

/** Marks the request as made by `operator` (`operatorPersonOf`). */
export function setOperatorPerson(res: Response, operator: OperatorPrincipal): void {
  (res.locals as { operatorPerson?: OperatorPrincipal }).operatorPerson = operator;
}

/** The organization's person a session belongs to (not a key's, the admin token's or staff's). */
export function sessionPerson(session: ConsoleSession): PersonPrincipal | undefined {
  if (session.userId === null || session.orgId === null || session.role === null) return undefined;
  if (isOperatorRole(session.role)) return undefined;
  return {
    orgId: session.orgId,
    userId: session.userId,
    email: session.email ?? "",
    role: session.role,
    sessionId: session.id,
  };
}

/** The operator person a session belongs to, when it is one's (not the admin token's). */
export function sessionOperator(session: ConsoleSession): OperatorPrincipal | undefined {
  if (session.kind !== "operator" || session.userId === null || session.role === null)
    return undefined;
  if (!isOperatorRole(session.role)) return undefined;
  return {
    userId: session.userId,
    email: session.email ?? "",
    role: session.role,
    sessionId: session.id,
  };
}

/**
 * Middleware for the routes only a signed-in person may use (`auth: "person"`): the request
 * carries a person's console session cookie (CSRF-checked on unsafe methods) and that person's
 * role is one of `roles` (organization roles, operator roles, or both). An API key, the admin
 * token or a console session opened with a key is 403 `Requires a signed-in <roles>` (what limits
 * a key, a key cannot loosen); no credentials at all, or an invalid or expired cookie, is 401.
 * Sets `res.locals.person` (`personOf`) for an organization's person, or the operator person
 * (`operatorPersonOf`).
 */
export function requirePerson(ctx: AppContext, roles: readonly PersonRole[]) {
  const refusal = `Requires a signed-in ${roles.join(" or ")}`;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (hasApiKeyHeaders(req) || req.get("x-admin-token") !== undefined)
      throw new ForbiddenError(refusal, { details: { reason: "machine credentials" } });
    const session = await sessionOf(ctx, req, res);
    if (session === undefined)
      throw new UnauthorizedError({ details: { reason: "no session cookie" } });
    const operator = sessionOperator(session);
    if (operator !== undefined) {
      if (!roles.includes(operator.role))
        throw new ForbiddenError(refusal, { details: { role: operator.role } });
      setOperatorPerson(res, operator);
      next();
      return;
    }
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
