import { Router, type NextFunction, type Request, type Response } from "express";
import type { z } from "zod";
import type { AppContext } from "../context.js";
import type { AuditOrigin } from "../audit/audit-writer.js";
import { adminIfPresented, requireAdminToken } from "../auth/require-admin-token.js";
import { principalOf, requireApiKey } from "../auth/require-api-key.js";
import { requireScope } from "../auth/require-scope.js";
import {
  operatorPersonOf,
  personOf,
  requirePerson,
  type OperatorPrincipal,
  type PersonPrincipal,
  type PersonRole,
} from "../auth/require-person.js";
import type { Scope } from "../domain/scope.js";
import type { OperationMetadata } from "./openapi/operation-metadata.js";
import type { ApiKeyPrincipal } from "../auth/api-key-cache.js";
import { auditOriginOf } from "./audit-origin.js";
import { sendCacheableJson } from "./cacheable-json.js";
import { rateLimit } from "./rate-limit.js";
import type { RequestLocals } from "./request-context.js";
import { requestIdOf } from "./request-context.js";
import { parseOrThrow } from "./validation.js";

/**
 * How a route authenticates: an API key (with scopes), the admin token, either of the two
 * (`apiKeyOrAdmin`: the admin token when `X-Admin-Token` or an operator session is presented,
 * else an API key with the route's scopes), a signed-in person with one of the route's `roles`
 * (`person`: a console session cookie; any key or the admin token is 403), or nothing.
 */
export type RouteAuth = "apiKey" | "admin" | "apiKeyOrAdmin" | "person" | "none";

/** What a handler receives: validated input, the caller and the context. */
export interface RouteInput<TBody, TParams, TQuery> {
  body: TBody;
  params: TParams;
  query: TQuery;
  /**
   * Set for `auth: "apiKey"` routes, and for `apiKeyOrAdmin` routes called with an API key
   * (undefined there means the admin token).
   */
  principal: ApiKeyPrincipal | undefined;
  /** Set for `auth: "person"` routes signed in to by an organization's person. */
  person: PersonPrincipal | undefined;
  /**
   * The signed-in operator person: on `auth: "person"` routes whose roles include operator
   * roles, and on operator routes (`admin`, `apiKeyOrAdmin`) called with an operator person's
   * session; undefined for the admin token.
   */
  operator: OperatorPrincipal | undefined;
  /** Who made the request and from where, for the audit log (`appendAudit`). */
  origin: AuditOrigin;
  ctx: AppContext;
  requestId: string;
  req: Request;
  res: Response;
}

/**
 * One endpoint, declared once: method, path, auth, scopes and the zod schemas of its request and
 * responses. The same objects drive validation here and (later) the OpenAPI document, the
 * Postman collection and the SDK types, so keep every schema in the definition.
 */
export interface RouteDefinition<
  TBody = unknown,
  TParams = unknown,
  TQuery = unknown,
  TResponse = unknown,
> {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Express path (`/api/enterprise/keys/:keyId`). */
  path: string;
  summary: string;
  /**
   * Operation id (also the SDK method name), tag, longer text and example errors for the
   * OpenAPI document. Every route of `ROUTES` has it (the OpenAPI test insists); a route without
   * it (the benchmarks' ceiling routes) gets an id derived from its method and path.
   */
  docs?: OperationMetadata;
  auth: RouteAuth;
  /** With `auth: "apiKey"`: the key needs at least one of these (after `write:all` expansion). */
  scopes: readonly Scope[];
  /** With `auth: "person"`: the signed-in person's role must be one of these. */
  roles?: readonly PersonRole[];
  /**
   * A write: the request takes its place in the accept path on arrival, before it is
   * authenticated, or is refused with 429 at once (`WriteAdmission.arrive`).
   */
  admitsWrite?: boolean;
  request: {
    body?: z.ZodType<TBody>;
    params?: z.ZodType<TParams>;
    query?: z.ZodType<TQuery>;
  };
  /** Success and error bodies by status; the success status is the lowest key (200 by default). */
  responses: Record<number, z.ZodType>;
  /** Returns the success body. Throws the errors of `errors.ts`. */
  handler(input: RouteInput<TBody, TParams, TQuery>): Promise<TResponse>;
}

/** A route of any shape, for registries. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRouteDefinition = RouteDefinition<any, any, any, any>;

/** Whether the request passed as operator staff (admin token or operator session). */
function isAdmin(res: Response): boolean {
  return (res.locals as { admin?: boolean }).admin === true;
}

/**
 * A write's place in the accept path from its arrival (`WriteAdmission.arrive`): over the bound,
 * 429 before the key is looked up; else the place is kept in `res.locals.arrival` for the
 * executor to take over, and given back when the answer is done (or the client went away).
 */
function admitWrite(ctx: AppContext) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const arrival = ctx.admission.arrive();
    (res.locals as RequestLocals).arrival = arrival;
    res.once("close", arrival.release);
    next();
  };
}

/** Identity helper that infers the generic parameters from the schemas. */
export function defineRoute<TBody, TParams, TQuery, TResponse>(
  definition: RouteDefinition<TBody, TParams, TQuery, TResponse>,
): RouteDefinition<TBody, TParams, TQuery, TResponse> {
  return definition;
}

/** The status a successful call of `definition` answers with. */
export function successStatus(definition: AnyRouteDefinition): number {
  const codes = Object.keys(definition.responses)
    .map(Number)
    .filter((code) => code >= 200 && code < 300);
  return codes.length === 0 ? 200 : Math.min(...codes);
}

/**
 * Builds a router serving `definitions`: for each route, in order, it records the route template
 * (logs, metrics), authenticates (API key or admin token), counts the request against the rate
 * limits (API keys only), checks scopes, validates params/query/body and runs the handler. GET
 * answers carry an ETag and honour `If-None-Match` (`cacheable-json.ts`).
 *
 * @example
 * app.use(mountRoutes(ctx, WRITE_ROUTES)); // one line in app.ts
 */
export function mountRoutes(ctx: AppContext, definitions: readonly AnyRouteDefinition[]): Router {
  const router = Router();
  for (const definition of definitions) {
    const chain: Array<(req: Request, res: Response, next: NextFunction) => void | Promise<void>> =
      [
        (_req, res, next) => {
          (res.locals as RequestLocals).routeTemplate = definition.path;
          next();
        },
      ];
    if (definition.admitsWrite === true) chain.push(admitWrite(ctx));
    if (definition.auth === "apiKey") {
      chain.push(requireApiKey(ctx), rateLimit(ctx));
      if (definition.scopes.length > 0) chain.push(requireScope(...definition.scopes));
    } else if (definition.auth === "admin") {
      chain.push(requireAdminToken(ctx));
    } else if (definition.auth === "person") {
      chain.push(requirePerson(ctx, definition.roles ?? []));
    } else if (definition.auth === "apiKeyOrAdmin") {
      const unlessAdmin =
        (middleware: (req: Request, res: Response, next: NextFunction) => void | Promise<void>) =>
        (req: Request, res: Response, next: NextFunction): void | Promise<void> =>
          isAdmin(res) ? next() : middleware(req, res, next);
      chain.push(
        adminIfPresented(ctx),
        unlessAdmin(requireApiKey(ctx)),
        unlessAdmin(rateLimit(ctx)),
      );
      if (definition.scopes.length > 0) chain.push(unlessAdmin(requireScope(...definition.scopes)));
    }
    const status = successStatus(definition);
    chain.push(async (req, res) => {
      const { body, params, query } = definition.request;
      const parsedBody: unknown =
        body === undefined ? undefined : parseOrThrow<unknown>(body, req.body);
      const parsedParams: unknown =
        params === undefined ? req.params : parseOrThrow<unknown>(params, req.params);
      const parsedQuery: unknown =
        query === undefined ? undefined : parseOrThrow<unknown>(query, req.query);
      const result: unknown = await definition.handler({
        body: parsedBody,
        params: parsedParams,
        query: parsedQuery,
        principal:
          definition.auth === "apiKey" || (definition.auth === "apiKeyOrAdmin" && !isAdmin(res))
            ? principalOf(res)
            : undefined,
        person: definition.auth === "person" ? personOf(res) : undefined,
        operator: operatorPersonOf(res),
        origin: auditOriginOf(req, res),
        ctx,
        requestId: requestIdOf(res),
        req,
        res,
      });
      if (res.headersSent) return;
      if (definition.method === "get")
        sendCacheableJson(req, res, status, result, definition.auth !== "none");
      else res.status(status).json(result);
    });
    router[definition.method](definition.path, ...chain);
  }
  return router;
}
