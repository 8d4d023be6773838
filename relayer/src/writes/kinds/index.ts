import type { TxRow } from "../../engine/tx-store.js";
import { batchIssue } from "./batch-issue.js";
import { buy } from "./buy.js";
import { delist } from "./delist.js";
import { issueAsset } from "./issue-asset.js";
import { list } from "./list.js";
import { redeemAsset } from "./redeem-asset.js";
import { registerAssetType } from "./register-asset-type.js";
import { transfer } from "./transfer.js";
import { writeFailure } from "../write-failure.js";
import { txHashOf, type AnyWriteKind } from "./write-kind.js";

/**
 * The registry of write kinds: one module per kind (`writes/kinds/<kind>.ts`), listed once here.
 * The write routes, their OpenAPI operations and the SDK's write methods are derived from this
 * list, in this order. To add a kind: write its module (see `write-kind.ts`), add it here, then
 * regenerate the two derived files the tests compare: the SDK's write methods
 * (`node --import tsx relayer/sdk/generate-write-methods.ts`) and the authorization matrix
 * (`UPDATE_AUTH_MATRIX=1 node --import tsx --test test/reliability/auth-matrix.test.ts`).
 */
export const WRITE_KINDS = [
  issueAsset,
  batchIssue,
  transfer,
  list,
  buy,
  delist,
  redeemAsset,
  registerAssetType,
] as const satisfies readonly AnyWriteKind[];

/** One registered write kind's module. */
export type RegisteredWriteKind = (typeof WRITE_KINDS)[number];

/** The write kinds (`transactions.kind` of a write's root row). */
export type WriteKind = RegisteredWriteKind["kind"];

const BY_KIND: ReadonlyMap<string, RegisteredWriteKind> = new Map(
  WRITE_KINDS.map((k) => [k.kind, k]),
);

/** The module of a stored row's kind, or undefined for rows that are not API writes. */
export function writeKindOf(kind: string): RegisteredWriteKind | undefined {
  return BY_KIND.get(kind);
}

/** The 200 body of a finished write: one of the kinds' responses, or a row of another kind's. */
export type WriteResponse =
  | ReturnType<RegisteredWriteKind["respond"]>
  | { success: true; txHash: string | null };

/**
 * The API body of a finished write, by its kind's module (ids as strings, amounts as decimal
 * strings). A failed or replaced write throws its `writeFailure` (`writes/write-failure.ts`).
 */
export function writeResponse(row: TxRow, children: readonly TxRow[] = []): WriteResponse {
  const kind = writeKindOf(row.kind);
  if (kind !== undefined) return kind.respond(row, children);
  const failure = writeFailure(row);
  if (failure !== undefined) throw failure;
  return { success: true, txHash: txHashOf(row) };
}
