import type { z } from "zod";
import type { Scope } from "../../domain/scope.js";
import type { ReceiptFacts } from "../../chain/contracts/receipt-events.js";
import type { TxRow } from "../../engine/tx-store.js";
import type { AppContext } from "../../context.js";
import type { AuditEntry } from "../../audit/audit-writer.js";
import type { OrgWallet } from "../wallet-of-org.js";
import { writeFailure } from "../write-failure.js";

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

/** What a finished row's `result` holds: the call's context, the receipt's facts, the hash. */
export type WriteResultOf<TContext extends object> = Partial<TContext> &
  ReceiptFacts & { txHash?: string };

/**
 * Everything about one write kind, in one object (one file per kind under `writes/kinds/`):
 * its endpoint and scopes, its request schema (the input limits), how it checks the chain and
 * builds its call(s) (`prepare`; the executor then does the funds check common to all kinds),
 * how it turns the finished row (its receipt's facts) into the response, the response schema and
 * its OpenAPI description. The registry (`writes/kinds/index.ts`) lists the kinds; the routes,
 * OpenAPI document and SDK are derived from it.
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
  /** Operation id (= SDK method name), longer text and example errors (tag: Writes). */
  docs: WriteKindDocs;
  /**
   * Validates `input` against the chain and builds the call(s): one call, or one per batch item.
   * Throws `ValidationError` (400) for anything the chain would refuse, before anything is signed.
   */
  prepare(ctx: AppContext, wallet: OrgWallet, input: TInput): Promise<PreparedCall<TContext>[]>;
  /** The response of a final row (`children` for a batch). A failed row throws (500). */
  respond(row: TxRow, children: readonly TxRow[]): TResponse;
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
 * The typed result of a final, successful row: its context plus its receipt's facts (what the
 * engine stores on confirmation). A failed or replaced row throws its `writeFailure`
 * (500 `Transaction failed: <reason>`, or the 400 of a lost race).
 */
export function confirmedResult<TContext extends object>(
  row: TxRow,
): { result: WriteResultOf<TContext>; txHash: string | null } {
  const failure = writeFailure(row);
  if (failure !== undefined) throw failure;
  return { result: (row.result ?? {}) as WriteResultOf<TContext>, txHash: txHashOf(row) };
}

/** The hash of the mined attempt, or of the latest one sent. */
export function txHashOf(row: TxRow): string | null {
  return row.receipt?.hash ?? row.attempts.at(-1)?.hash ?? null;
}

/** An id (string, number or bigint) as a decimal string, or null. */
export function idText(value: unknown): string | null {
  return typeof value === "string" || typeof value === "number" || typeof value === "bigint"
    ? String(value)
    : null;
}
