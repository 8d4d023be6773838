import etag from "etag";
import type { Request, Response } from "express";
import { hasApiKeyHeaders, sessionTokenOf } from "../auth/session-auth.js";

/**
 * A body serialised once, with its ETag. Kept as UTF-8 bytes: a page of 50 assets is about
 * 45 KB, and a string sent to a burst of requests was encoded again for each of them.
 */
interface Serialised {
  body: Buffer;
  etag: string;
}

/**
 * Serialisations by result object. A read shared by a burst of identical requests
 * (`reads/coalesced-read.ts`) returns one object to all of them: it is stringified and hashed
 * once, not once per request.
 */
const serialised = new WeakMap<object, Serialised>();

function serialise(body: unknown): Serialised {
  if (body === null || typeof body !== "object") return encode(JSON.stringify(body) ?? "null");
  let known = serialised.get(body);
  if (known === undefined) {
    known = encode(JSON.stringify(body));
    serialised.set(body, known);
  }
  return known;
}

/** What Express sets for a JSON string (a Buffer gets no charset of its own). */
const JSON_TYPE = "application/json; charset=utf-8";

function encode(json: string): Serialised {
  const bytes = Buffer.from(json, "utf8");
  return { body: bytes, etag: etag(bytes, { weak: true }) };
}

/** The opaque part of an entity tag (`W/"x"` and `"x"` compare equal: weak comparison). */
const opaqueTag = (tag: string) => (tag.startsWith("W/") ? tag.slice(2) : tag);

/**
 * Whether `If-None-Match` names `tag` (or is `*`), by weak comparison. The origin evaluates the
 * condition whatever the request's `Cache-Control` says: `fetch` adds `Cache-Control: no-cache`
 * to every request that carries `If-None-Match`, and Express's `req.fresh` would then never
 * answer 304 to it.
 */
function noneMatchHits(req: Request, tag: string): boolean {
  const header = req.get("if-none-match");
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const wanted = opaqueTag(tag);
  return header.split(",").some((candidate) => opaqueTag(candidate.trim()) === wanted);
}

/** The request headers an authenticated answer depends on. */
const CREDENTIAL_HEADERS = "Authorization, X-API-Key, X-Admin-Token, Cookie";

/**
 * Sends the JSON answer of a GET with an ETag, and 304 Not Modified (no body) when the request's
 * `If-None-Match` names it (docs/read-api.md, "Conditional requests"):
 * - the ETag is weak (`W/"<length>-<SHA-1>"` of the JSON text, the `etag` package's form): equal
 *   JSON text, equal ETag, whatever process answered;
 * - `Cache-Control: no-cache`: any cache may keep the answer but must revalidate it each time,
 *   since the indexed data changes with every block;
 * - answers to an authenticated caller (`authenticated`: API key, session cookie or admin token)
 *   are `Cache-Control: private, no-cache` with `Vary` on the credential headers, so no shared
 *   cache serves one organization's answer to another;
 * - cookie-bound reads (a console session cookie and no API key: `GET /api/console/session`,
 *   whose body holds the CSRF token, and every read the console makes) are
 *   `Cache-Control: no-store` with `Vary` on the credential headers (Cookie among them), and
 *   carry no ETag: a browser must not keep them on disk, nor show them after sign-out.
 */
export function sendCacheableJson(
  req: Request,
  res: Response,
  status: number,
  body: unknown,
  authenticated: boolean,
): void {
  const { body: bytes, etag: tag } = serialise(body);
  if (sessionTokenOf(req) !== undefined && !hasApiKeyHeaders(req)) {
    res.setHeader("Cache-Control", "no-store");
    res.vary(CREDENTIAL_HEADERS);
    res.status(status).type(JSON_TYPE).send(bytes);
    return;
  }
  if (!authenticated) {
    res.setHeader("Cache-Control", "no-cache");
  } else {
    res.setHeader("Cache-Control", "private, no-cache");
    res.vary(CREDENTIAL_HEADERS);
  }
  res.setHeader("ETag", tag);
  if (noneMatchHits(req, tag)) {
    res.status(304).end();
    return;
  }
  res.status(status).type(JSON_TYPE).send(bytes);
}
