import { createHmac } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { idempotencyKeys, recoveredIdempotencyKeys } from "../db/schema/index.js";
import { KEY_TAG_HEX } from "../engine/write-tag.js";
import { ConflictError, ValidationError } from "../errors.js";
import { canonicalJson } from "../shared/canonical-json.js";
import { WRITE_LIMITS } from "./limits.js";

/** The 409 message of the spec decision for a reused key. */
export const IDEMPOTENCY_CONFLICT = "Idempotency-Key reused with a different request body";

/** The HMAC key of request hashes, derived from the master key (never the master key itself). */
function requestHashKey(masterKey: string): Buffer {
  return createHmac("sha256", Buffer.from(masterKey, "hex"))
    .update("rwa-idempotency-request-hash-v1")
    .digest();
}

/**
 * The fingerprint of a write request kept in its idempotency record: HMAC-SHA256, under a key
 * derived from the server's master key, of the endpoint kind and the canonical JSON of the body.
 * Keyed because a body may hold a token password: a plain hash of it in a database dump could be
 * tested against guessed passwords offline; without the master key it cannot.
 *
 * @param masterKey the service master key (64 hex characters, `config.masterKey`)
 * @example
 * requestHash("transfer", { tokenId: "1", toAddress }, ctx.config.masterKey)
 */
export function requestHash(kind: string, body: unknown, masterKey: string): string {
  return createHmac("sha256", requestHashKey(masterKey))
    .update(kind)
    .update("\n")
    .update(canonicalJson(body))
    .digest("hex");
}

/**
 * The request's hash under the current master key (the one recorded) and every hash an earlier
 * record of the same request may carry: during a master-key rotation (MASTER_KEY_PREVIOUS set)
 * also the hash under the previous key, so a retry of a request first made before the rotation
 * is still recognised. After the rotation such a retry (within the 24 h of its record) answers
 * 409, like any other body: the retired key is gone.
 *
 * @example
 * const { hash, accepted } = requestHashes("transfer", body, ctx.config);
 */
export function requestHashes(
  kind: string,
  body: unknown,
  keys: { masterKey: string; masterKeyPrevious?: string | undefined },
): { hash: string; accepted: string[] } {
  const hash = requestHash(kind, body, keys.masterKey);
  const accepted = [hash];
  if (keys.masterKeyPrevious !== undefined)
    accepted.push(requestHash(kind, body, keys.masterKeyPrevious));
  return { hash, accepted };
}

/** Validates an `Idempotency-Key` header value (1-255 visible ASCII characters). */
export function checkIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (
    key.length === 0 ||
    key.length > WRITE_LIMITS.idempotencyKeyMax ||
    !/^[\x21-\x7e]+$/.test(key)
  ) {
    throw new ValidationError(
      "Invalid header: Idempotency-Key (1 to 255 visible ASCII characters)",
    );
  }
  return key;
}

/**
 * The transaction an earlier request with this key created, if any (unexpired).
 *
 * @param accepted the hashes that count as the same request (`requestHashes(...).accepted`)
 * @throws ConflictError when the key was used with another body
 */
export async function findIdempotent(
  database: Database,
  orgId: string,
  key: string,
  accepted: readonly string[],
): Promise<string | undefined> {
  const [row] = await database.db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.orgId, orgId),
        eq(idempotencyKeys.key, key),
        sql`${idempotencyKeys.expiresAt} > now()`,
      ),
    );
  if (row === undefined) return undefined;
  if (!accepted.includes(row.requestHash)) throw new ConflictError(IDEMPOTENCY_CONFLICT);
  return row.transactionId;
}

/** The HMAC key of idempotency key tags, derived from the master key. */
function keyTagKey(masterKey: string): Buffer {
  return createHmac("sha256", Buffer.from(masterKey, "hex"))
    .update("rwa-idempotency-key-tag-v1")
    .digest();
}

/**
 * What a write's tag on chain carries of its `Idempotency-Key` (`engine/write-tag.ts`): the first
 * 12 bytes of an HMAC of the organization and the key, under a key derived from the master key
 * (a client's keys are not readable on chain, and cannot be tested offline without the master
 * key). Hex.
 */
export function idempotencyKeyTag(orgId: string, key: string, masterKey: string): string {
  return createHmac("sha256", keyTagKey(masterKey))
    .update(orgId)
    .update("\n")
    .update(key)
    .digest("hex")
    .slice(0, KEY_TAG_HEX);
}

/** The key tags a retry of `key` may match: under the master key, and the previous one while rotating. */
export function idempotencyKeyTags(
  orgId: string,
  key: string,
  keys: { masterKey: string; masterKeyPrevious?: string | undefined },
): string[] {
  const tags = [idempotencyKeyTag(orgId, key, keys.masterKey)];
  if (keys.masterKeyPrevious !== undefined)
    tags.push(idempotencyKeyTag(orgId, key, keys.masterKeyPrevious));
  return tags;
}

/**
 * The write an idempotency record rebuilt from the chain names for `key`
 * (`recovered_idempotency_keys`, written by `engine/chain-reconciler.ts` after a restore), if
 * any. The record holds the first bytes of the request hash: a retry with another body is 409.
 *
 * @throws ConflictError when the recovered write was made with another body
 */
export async function findRecoveredIdempotent(
  database: Database,
  orgId: string,
  keyTags: readonly string[],
  accepted: readonly string[],
): Promise<string | undefined> {
  const [row] = await database.db
    .select()
    .from(recoveredIdempotencyKeys)
    .where(
      and(
        eq(recoveredIdempotencyKeys.orgId, orgId),
        inArray(recoveredIdempotencyKeys.keyTag, [...keyTags]),
        sql`${recoveredIdempotencyKeys.expiresAt} > now()`,
      ),
    )
    .limit(1);
  if (row === undefined) return undefined;
  if (!accepted.some((hash) => hash.startsWith(row.requestTag)))
    throw new ConflictError(IDEMPOTENCY_CONFLICT);
  return row.transactionId;
}
