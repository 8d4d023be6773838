import type { TxRow } from "../chain/tx-store.js";
import { TransactionFailedError } from "../errors.js";
import { formatCoin } from "./amounts.js";

/**
 * The API body of a finished write, by kind (spec 4.2 fields; ids as strings, amounts as
 * decimal strings). A failed write throws `TransactionFailedError` (500 `Transaction failed: <reason>`).
 */
export function writeResponse(
  row: TxRow,
  children: readonly TxRow[] = [],
): Record<string, unknown> {
  if (row.kind === "batch-issue") return batchResponse(row, children);
  if (row.state === "failed" || row.state === "replaced")
    throw new TransactionFailedError(row.error ?? "unknown");
  const r = row.result ?? {};
  const txHash = row.receipt?.hash ?? row.attempts.at(-1)?.hash ?? null;
  const s = (v: unknown) =>
    typeof v === "string" || typeof v === "number" || typeof v === "bigint" ? String(v) : null;
  switch (row.kind) {
    case "issue-asset":
      return {
        success: true,
        tokenId: s(r.tokenId),
        txHash,
        wallet: r.wallet,
        owner: r.owner,
        assetType: r.assetType,
        stakedAmount: r.stakedAmount,
        ipfsHash: r.ipfsHash,
      };
    case "transfer":
      return { success: true, txHash, from: r.from, to: r.to, tokenId: s(r.tokenId) };
    case "list":
      return {
        success: true,
        listingId: s(r.listingId),
        txHash,
        tokenId: s(r.tokenId),
        priceInCOIN: r.priceInCOIN,
        durationDays: r.durationDays,
        expiresAt:
          typeof r.expiresAt === "number" ? new Date(r.expiresAt * 1000).toISOString() : null,
      };
    case "buy":
      return {
        success: true,
        txHash,
        listingId: s(r.listingId),
        tokenId: s(r.tokenId),
        pricePaid: typeof r.priceWei === "string" ? formatCoin(BigInt(r.priceWei)) : null,
        buyer: r.buyer,
        seller: r.seller ?? null,
      };
    case "delist":
      return { success: true, txHash, listingId: s(r.listingId), tokenId: s(r.tokenId) };
    case "register-asset-type":
      return { success: true, typeName: r.typeName, txHash };
    default:
      return { success: true, txHash };
  }
}

function batchResponse(row: TxRow, children: readonly TxRow[]): Record<string, unknown> {
  const results = children.map((c) => {
    const txHash = c.receipt?.hash ?? c.attempts.at(-1)?.hash ?? null;
    if (c.state === "confirmed" || c.state === "mined") {
      return {
        index: c.itemIndex ?? 0,
        success: true,
        tokenId: typeof c.result?.tokenId === "string" ? c.result.tokenId : "",
        txHash,
      };
    }
    return {
      index: c.itemIndex ?? 0,
      success: false,
      tokenId: null,
      txHash,
      error: `Transaction failed: ${c.error ?? "unknown"}`,
    };
  });
  const issued = results.filter((r) => r.success).length;
  const wallet = (row.context as { wallet?: string }).wallet ?? row.fromAddress;
  return {
    success: issued === results.length,
    issued,
    failed: results.length - issued,
    results,
    wallet,
    owner: wallet,
  };
}
