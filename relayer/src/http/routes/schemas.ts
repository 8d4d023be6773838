import { isAddress } from "ethers";
import { z } from "zod";
import { SCOPES } from "../../domain/scope.js";

/** `{ "error": "..." }`: the body of every error response (docs/sdk.md "Errors and retries"). */
export const errorBody = z.object({ error: z.string() });

/**
 * The 500 and 503 body of an operator act sent on chain: once its transaction was handed to the
 * node (the receipt look-up failed, it reverted, it was not mined in time), `txHash` names it, as
 * the `X-Transaction-Hash` header does (`SentTransactionError`).
 */
export const sentErrorBody = errorBody.extend({
  txHash: z
    .string()
    .optional()
    .describe("the operator transaction, when it was sent: it may be on chain; look it up"),
});

/** A scope name (docs/api-decisions.md). */
export const scopeSchema = z.enum(SCOPES, { error: `must be one of ${SCOPES.join(", ")}` });

/** A checksummed or lowercase 0x address. */
export const addressSchema = z.string().refine((value) => isAddress(value), "not a 0x address");

/** An email address as people are invited and sign in with it (stored lower-case). */
export const emailSchema = z
  .string()
  .trim()
  .max(254, "must be an email address")
  .pipe(z.email({ error: "must be an email address" }));

/** An ISO 8601 timestamp string (the domain's). */
export { timestamp as timestampSchema } from "../../domain/timestamp.js";

/** Standard error responses of an API-key route. */
export const apiKeyErrors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  429: errorBody,
} as const;
