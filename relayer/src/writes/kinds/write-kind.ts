import { z } from "zod";
import type { Scope } from "../../domain/scope.js";
import type { TxRow } from "../../engine/tx-store.js";
import type { AppContext } from "../../context.js";
import type { AuditEntry } from "../../audit/audit-writer.js";
import type { OrgWallet } from "../wallet-of-org.js";
import { writeFailure } from "../write-failure.js";
import { MAX_VALID_FOR_SECONDS } from "../../domain/write-outcome.js";

const DEADLINE_RANGE = `must be a whole number of seconds from 1 to ${MAX_VALID_FOR_SECONDS} (7 days)`;

/**
 * The fields every write's body accepts beside its own (each kind spreads them into its
 * request): `validForSeconds`, the write's deadline (docs/api-decisions.md "Deadlines").
 */
export const WRITE_OPTIONS = {
  validForSeconds: z
    .number(DEADLINE_RANGE)
    .int(DEADLINE_RANGE)
    .min(1, DEADLINE_RANGE)
    .max(MAX_VALID_FOR_SECONDS, DEADLINE_RANGE)
    .optional()
    .describe(
      "deadline in seconds from acceptance (1 to 604800): a write not sent by then ends " +
        "`expired` without being sent",
    ),
};

/**
 * One contract call a write will make. `context` is what the response needs later that the
 * receipt does not say (e.g. `{ wallet, assetType }`); the engine copies it into the row's result
 * beside the receipt's facts.
 */
export interface PreparedCall<TContext extends object = Record<string, unknown>> {
  to: string;
  data: string;
  value: bigint;
  context: TContext;
}

/**
 * The schema of a confirmed row's `result`, as the engine stores it (`engine/settler.ts`): the
 * call's context, the receipt's facts over it, and the hash. A field both name (`tokenId`,
 * `owner`, `seller`, ...) keeps the context's schema, so it is present whenever the context
 * has it.
 *
 * @param stored the kind's context as rows of every version hold it: a field added later is made
 *   optional (`context.partial({ reason: true })`), so older rows still parse
 * @param facts `receiptFactsSchema`, with the facts the kind's own event always gives made
 *   required (`receiptFactsSchema.required({ tokenId: true })`)
 * @example
 * const transferResult = writeResult(transferContext, receiptFactsSchema);
 */
export function writeResult<TStored extends z.ZodRawShape, TFacts extends z.ZodRawShape>(
  stored: z.ZodObject<TStored>,
  facts: z.ZodObject<TFacts>,
) {
  return facts.extend(stored.shape).extend({ txHash: z.string() });
}

/**
 * Everything about one write kind, in one object (one file per kind under `writes/kinds/`):
 * its endpoint and scopes, its request schema (the input limits), how it checks the chain and
 * builds its call(s) (`prepare`; the executor then does the funds check common to all kinds),
 * the schema of its calls' context, how it turns the finished row (its stored result, parsed
 * with `confirmedResult`) into the response, the response schema and its OpenAPI description.
 * The registry (`writes/kinds/index.ts`) lists the kinds; the routes, OpenAPI document and SDK
 * are derived from it.
 */
export interface WriteKindModule<
  TKind extends string = string,
  TPath extends string = string,
  TInput = unknown,
  TContext extends object = object,
  TResponse = unknown,
> {
  /** `transactions.kind` of the write's (root) row. */
  kind: TKind;
  /** `POST` path of the endpoint. */
  path: TPath;
  /** One line for the reference page (and the SDK method's comment). */
  summary: string;
  /** The API key needs one of these (after `write:all` expansion). */
  scopes: readonly Scope[];
  /** The request body: validation and the input limits of this kind. */
  request: z.ZodType<TInput>;
  /** The 200 body. */
  response: z.ZodType<TResponse>;
  /**
   * What `prepare` puts in each call's `context`: stored on the row, and copied into its result
   * on confirmation (`writeResult` derives the result's schema from it).
   */
  context: z.ZodType<TContext>;
  /** Operation id (= SDK method name), longer text and example errors (tag: Writes). */
  docs: WriteKindDocs;
  /**
   * Validates `input` against the chain and builds the call(s): one call, or one per batch item.
   * Throws `ValidationError` (400) for anything the chain would refuse, before anything is signed.
   */
  prepare(ctx: AppContext, wallet: OrgWallet, input: TInput): Promise<PreparedCall<TContext>[]>;
  /**
   * The response of a final row (`children` for a batch). A failed row throws its
   * `writeFailure`; a stored result its kind's schema does not parse throws (500).
   */
  respond(row: TxRow, children: readonly TxRow[]): TResponse;
  /**
   * The address the write sends an asset to, when it sends one out of the custodial wallet (a
   * transfer's `toAddress`, checksummed): the organization's destination allowlist judges it
   * (`policy/policy-check.ts`). Throws `ValidationError` for a malformed address.
   */
  destinationOf?(input: TInput): string | undefined;
  /**
   * The price a marketplace write names, in wei (a listing's `priceInCOIN`, a purchase's
   * `maxPriceInCOIN`), for the policy's `priceAboveCOIN` approval rules; undefined: none named.
   */
  priceOf?(input: TInput): bigint | undefined;
  /**
   * For a management act done by a write (registering an asset type): the audit row it appends
   * once the write is recorded (`http/routes/write.ts`; the row also names the transaction).
   */
  audit?(input: TInput): Omit<AuditEntry, "orgId">;
}

/** A write kind's part of the OpenAPI document (its tag is always `Writes`). */
export interface WriteKindDocs {
  /** Also the SDK method name. */
  operationId: string;
  /** Markdown appended after the summary. */
  description?: string;
  /** Route-specific `error` strings by status, shown as examples. */
  errors?: Partial<Record<number, readonly string[]>>;
}

/** A write kind of any shape, for the registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyWriteKind = WriteKindModule<string, string, any, any, any>;

/**
 * Identity helper that infers a kind's types (path literal, input, context, response).
 *
 * @example
 * export const transfer = defineWriteKind({ kind: "transfer", path: "/api/v1/write/transfer", ... });
 */
export function defineWriteKind<
  TKind extends string,
  TPath extends string,
  TInput,
  TContext extends object,
  TResponse,
>(
  module: WriteKindModule<TKind, TPath, TInput, TContext, TResponse>,
): WriteKindModule<TKind, TPath, TInput, TContext, TResponse> {
  return module;
}

/**
 * The result of a final, successful row, parsed with its kind's `schema` (`writeResult`) where it
 * leaves the database, and its hash. A failed or replaced row throws its `writeFailure`
 * (500 `Transaction failed: <reason>`, or the 400 of a lost race); a result that does not parse
 * throws a plain `Error` (500 `Internal error`) naming the row.
 */
export function confirmedResult<TResult extends { txHash: string }>(
  row: TxRow,
  schema: z.ZodType<TResult>,
): { result: TResult; txHash: string } {
  const failure = writeFailure(row);
  if (failure !== undefined) throw failure;
  const result = parseStored(row, "result", row.result, schema);
  // The receipt's hash, as before; the result holds the same hash (the engine writes both at once).
  return { result, txHash: txHashOf(row) ?? result.txHash };
}

/**
 * `value` (a JSON column of `row`) parsed with `schema`. What the engine stored not matching its
 * schema is a bug, not a client's mistake: a plain `Error` (500 `Internal error`) naming the row.
 */
export function parseStored<T>(
  row: Pick<TxRow, "id" | "kind">,
  column: "result" | "context",
  value: unknown,
  schema: z.ZodType<T>,
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(
    `Stored ${column} of ${row.kind} row ${row.id} does not parse: ${z.prettifyError(parsed.error)}`,
    { cause: parsed.error },
  );
}

/** The hash of the mined attempt, or of the latest one sent. */
export function txHashOf(row: TxRow): string | null {
  return row.receipt?.hash ?? row.attempts.at(-1)?.hash ?? null;
}
