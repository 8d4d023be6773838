import { z } from "zod";
import type { TxRow } from "../../engine/tx-store.js";
import { ValidationError } from "../../errors.js";
import { address } from "../../domain/address.js";
import { WRITE_LIMITS as L } from "../limits.js";
import { requireMintAllowed } from "../chain-checks.js";
import { failedWriteError, writeFailure } from "../write-failure.js";
import {
  issueAssetContext,
  issueAssetRequest,
  issueAssetResult,
  prepareIssue,
} from "./issue-asset.js";
import { defineWriteKind, parseStored, txHashOf, WRITE_OPTIONS } from "./write-kind.js";

/** Body of batch-issue: 1 to 50 assets. */
export const batchIssueRequest = z.preprocess(
  (input) => {
    const assets =
      typeof input === "object" && input !== null && "assets" in input ? input.assets : undefined;
    if (
      typeof input === "object" &&
      input !== null &&
      (!Array.isArray(assets) || assets.length === 0)
    ) {
      throw new ValidationError("assets must be a non-empty array");
    }
    if (Array.isArray(assets) && assets.length > L.batchMax) {
      throw new ValidationError(
        `assets must contain at most ${L.batchMax} items (got ${assets.length})`,
      );
    }
    return input;
  },
  z.strictObject({ assets: z.array(issueAssetRequest).min(1).max(L.batchMax), ...WRITE_OPTIONS }),
);

/** One item's outcome in a batch-issue answer. */
export const batchItemResult = z.object({
  index: z.number().int(),
  success: z.boolean(),
  tokenId: z.string().nullable(),
  txHash: z.string().nullable(),
  error: z.string().optional(),
});

/** Success body of batch-issue (per-item results; a failed item has `error`). */
export const batchIssueResponse = z.object({
  success: z.boolean().describe("true when every item was issued"),
  issued: z.number().int(),
  failed: z.number().int(),
  results: z.array(batchItemResult),
  wallet: address,
  owner: address,
});

type BatchItemResult = z.output<typeof batchItemResult>;
type BatchIssueResponse = z.output<typeof batchIssueResponse>;

/**
 * The context of a batch's own row (`writes/write-executor.ts` writes `{ wallet, owner }`; its
 * items' rows hold the issue-asset context). Read leniently: the sender's address stands in.
 */
const batchRootContext = z.object({ wallet: z.string().optional() });

/**
 * The outcome of one batch item from its (final) child row, an issue-asset row whose result is
 * parsed with issue-asset's schema; a failed item's `error` is its `writeFailure` message, the
 * words a single write would answer with.
 */
export function batchItemOf(child: TxRow): BatchItemResult {
  const txHash = txHashOf(child);
  if (child.state === "confirmed") {
    const { tokenId } = parseStored(child, "result", child.result, issueAssetResult);
    return { index: child.itemIndex ?? 0, success: true, tokenId, txHash };
  }
  return {
    index: child.itemIndex ?? 0,
    success: false,
    tokenId: null,
    txHash,
    error: (writeFailure(child) ?? failedWriteError(child.error ?? "unknown")).message,
  };
}

/** The batch-issue answer: one result per child row, in item order. */
export function batchResponse(root: TxRow, children: readonly TxRow[]): BatchIssueResponse {
  const results = children.map(batchItemOf);
  const issued = results.filter((r) => r.success).length;
  const wallet =
    parseStored(root, "context", root.context, batchRootContext).wallet ?? root.fromAddress;
  return {
    success: issued === results.length,
    issued,
    failed: results.length - issued,
    results,
    wallet,
    owner: wallet,
  };
}

/**
 * `POST /api/v1/write/batch-issue`: one mint per item (validating all first: one bad item fails
 * the request with 400); an item that reverts fails alone.
 */
export const batchIssue = defineWriteKind({
  kind: "batch-issue",
  path: "/api/v1/write/batch-issue",
  summary: "Issue 1 to 50 assets (one transaction each, partial failure possible)",
  scopes: ["write:issue"],
  request: batchIssueRequest,
  response: batchIssueResponse,
  context: issueAssetContext,
  docs: {
    operationId: "batchIssue",
    description:
      "Issues 1 to 50 assets in order, one transaction each; an item that fails has " +
      "`success: false` and `error`, and the others still go through. Counts as one request.",
    errors: {
      400: [
        "assets must be a non-empty array",
        "Missing required field: assets.0.name",
        "assets.2.stakedAmount minimum is 0.1 COIN",
        "Transfers are paused",
        "Recipient is not allowed to hold this asset type",
      ],
    },
  },
  async prepare(ctx, wallet, input) {
    const prepared = await Promise.all(
      input.assets.map((asset, i) => prepareIssue(ctx, wallet, asset, `assets.${i}.`)),
    );
    await requireMintAllowed(
      ctx,
      wallet.address,
      input.assets.map((asset) => asset.assetType),
    );
    return prepared.map((p) => p.call);
  },
  respond: batchResponse,
});
