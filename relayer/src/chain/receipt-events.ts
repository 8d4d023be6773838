import { getAddress } from "ethers";
import type { ContractAddresses } from "./contracts.js";
import { decodeEvent } from "./event-decoder.js";

/** A log as returned by `eth_getTransactionReceipt`. */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
}

/**
 * The API-relevant facts of a receipt's logs (emitted by the project's contracts only):
 * ids as decimal strings, amounts in wei as decimal strings, addresses checksummed.
 */
export interface ReceiptFacts {
  tokenId?: string;
  owner?: string;
  listingId?: string;
  priceWei?: string;
  expiresAt?: number;
  seller?: string;
  buyer?: string;
  typeName?: string;
  transferFrom?: string;
  transferTo?: string;
  /** Stake paid out by a redeem, in wei. */
  stakeWei?: string;
  /** `cancelled` (ListingCancelled) or `expired` (ListingReclaimed). */
  delistReason?: "cancelled" | "expired";
}

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
    const a = event.args;
    switch (event.name) {
      case "AssetIssued":
        facts.tokenId = (a.tokenId as bigint).toString();
        facts.owner = getAddress(a.owner as string);
        break;
      case "Transfer":
        if (log.address.toLowerCase() !== contracts.assetToken.toLowerCase()) break;
        facts.tokenId ??= (a.tokenId as bigint).toString();
        facts.transferFrom = getAddress(a.from as string);
        facts.transferTo = getAddress(a.to as string);
        break;
      case "ListingCreated":
        facts.listingId = (a.listingId as bigint).toString();
        facts.tokenId = (a.tokenId as bigint).toString();
        facts.seller = getAddress(a.seller as string);
        facts.priceWei = (a.price as bigint).toString();
        facts.expiresAt = Number(a.expiresAt);
        break;
      case "ListingSold":
        facts.listingId = (a.listingId as bigint).toString();
        facts.tokenId = (a.tokenId as bigint).toString();
        facts.seller = getAddress(a.seller as string);
        facts.buyer = getAddress(a.buyer as string);
        facts.priceWei = (a.price as bigint).toString();
        break;
      case "ListingCancelled":
      case "ListingReclaimed":
        facts.listingId = (a.listingId as bigint).toString();
        facts.tokenId = (a.tokenId as bigint).toString();
        facts.seller = getAddress(a.seller as string);
        facts.delistReason = event.name === "ListingCancelled" ? "cancelled" : "expired";
        break;
      case "AssetRedeemed":
        facts.tokenId = (a.tokenId as bigint).toString();
        facts.owner = getAddress(a.owner as string);
        facts.stakeWei = (a.stake as bigint).toString();
        break;
      case "AssetTypeRegistered":
        facts.typeName = a.name as string;
        break;
      default:
        break;
    }
  }
  return facts;
}
