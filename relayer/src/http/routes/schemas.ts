import { isAddress } from "ethers";
import { z } from "zod";
import { SCOPES } from "../../domain/scope.js";

/** `{ "error": "..." }`: the body of every error response (docs/sdk.md "Errors and retries"). */
export const errorBody = z.object({ error: z.string() });

/** A scope name (README "Decisions": keys and scopes). */
export const scopeSchema = z.enum(SCOPES, { error: `must be one of ${SCOPES.join(", ")}` });

/** A checksummed or lowercase 0x address. */
export const addressSchema = z.string().refine((value) => isAddress(value), "not a 0x address");

/** An ISO 8601 timestamp string (the domain's). */
export { timestamp as timestampSchema } from "../../domain/timestamp.js";

/** Standard error responses of an API-key route. */
export const apiKeyErrors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  429: errorBody,
} as const;
