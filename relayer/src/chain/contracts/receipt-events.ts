import { z } from "zod";
import type { ContractAddresses } from "./bindings.js";
import { decodeEvent } from "./event-decoder.js";

/** A log as returned by `eth_getTransactionReceipt`. */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
}

/**
 * The API-relevant facts of a receipt's logs (emitted by the project's contracts only):
 * ids as decimal strings, amounts in wei as decimal strings, addresses checksummed. Every fact is
 * optional: a receipt has only those of the events it emitted. The engine stores them in a
 * confirmed row's `result`, where a write kind parses them back with this schema
 * (`writes/kinds/write-kind.ts`).
 */
export const receiptFactsSchema = z.object({
  tokenId: z.string().optional(),
  owner: z.string().optional(),
  listingId: z.string().optional(),
  priceWei: z.string().optional(),
  /** Unix seconds. */
  expiresAt: z.number().int().optional(),
  seller: z.string().optional(),
  buyer: z.string().optional(),
  typeName: z.string().optional(),
  transferFrom: z.string().optional(),
  transferTo: z.string().optional(),
  /** Stake paid out by a redeem, in wei. */
  stakeWei: z.string().optional(),
  /** `cancelled` (ListingCancelled) or `expired` (ListingReclaimed). */
  delistReason: z.enum(["cancelled", "expired"]).optional(),
});

/** The facts `receiptFacts` extracts (see `receiptFactsSchema`). */
export type ReceiptFacts = z.output<typeof receiptFactsSchema>;

/**
 * Extracts token ids, listing ids, prices and parties from a receipt's logs.
 *
 * @example
 * receiptFacts(receipt.logs, ctx.contracts).tokenId // "42" after a mint
 */
export function receiptFacts(logs: readonly RawLog[], contracts: ContractAddresses): ReceiptFacts {
  const ours = new Set(
    [contracts.assetToken, contracts.marketplace, contracts.assetTypeRegistry].map((a) =>
      a.toLowerCase(),
    ),
  );
  const facts: ReceiptFacts = {};
  for (const log of logs) {
    if (!ours.has(log.address.toLowerCase())) continue;
    const event = decodeEvent(log);
    if (event === undefined) continue;
    const { name, args: a } = event;
    switch (name) {
      case "AssetIssued":
        facts.tokenId = a.tokenId.toString();
        facts.owner = a.owner;
        break;
      case "Transfer":
        if (log.address.toLowerCase() !== contracts.assetToken.toLowerCase()) break;
        facts.tokenId ??= a.tokenId.toString();
        facts.transferFrom = a.from;
        facts.transferTo = a.to;
        break;
      case "ListingCreated":
        facts.listingId = a.listingId.toString();
        facts.tokenId = a.tokenId.toString();
        facts.seller = a.seller;
        facts.priceWei = a.price.toString();
        facts.expiresAt = Number(a.expiresAt);
        break;
      case "ListingSold":
        facts.listingId = a.listingId.toString();
        facts.tokenId = a.tokenId.toString();
        facts.seller = a.seller;
        facts.buyer = a.buyer;
        facts.priceWei = a.price.toString();
        break;
      case "ListingCancelled":
      case "ListingReclaimed":
        facts.listingId = a.listingId.toString();
        facts.tokenId = a.tokenId.toString();
        facts.seller = a.seller;
        facts.delistReason = name === "ListingCancelled" ? "cancelled" : "expired";
        break;
      case "AssetRedeemed":
        facts.tokenId = a.tokenId.toString();
        facts.owner = a.owner;
        facts.stakeWei = a.stake.toString();
        break;
      case "AssetTypeRegistered":
        facts.typeName = a.name;
        break;
      // No write kind answers with these facts (operator compliance actions answer with their
      // receipt's hash: operator/compliance.ts).
      case "ListingPriceUpdated":
      case "MetadataUpdate":
      case "BatchMetadataUpdate":
      case "BaseURIUpdated":
      case "Approval":
      case "ApprovalForAll":
      case "ProceedsCredited":
      case "ProceedsWithdrawn":
      case "TokenRescued":
      case "RoleAdminChanged":
      case "RoleGranted":
      case "RoleRevoked":
      case "Frozen":
      case "ForcedTransfer":
      case "Paused":
      case "Unpaused":
      case "AssetFrozen":
      case "AssetUnfrozen":
      case "AssetForcedTransfer":
      case "MarketPaused":
      case "MarketResumed":
      case "AssetTypeRestrictionSet":
      case "AllowlistUpdated":
      case "MarketplaceSet":
        break;
      default: {
        // A contract event with no case above is a type error here.
        const unhandled: never = name;
        void unhandled;
      }
    }
  }
  return facts;
}
