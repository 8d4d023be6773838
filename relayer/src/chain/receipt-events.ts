import { getAddress } from "ethers";
import type { ContractAddresses } from "../context.js";
import { combinedInterface } from "./abis.js";

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
    let parsed;
    try {
      parsed = combinedInterface.parseLog(log);
    } catch {
      continue;
    }
    if (parsed === null) continue;
    const a = parsed.args;
    switch (parsed.name) {
      case "AssetIssued":
        facts.tokenId = (a.getValue("tokenId") as bigint).toString();
        facts.owner = getAddress(a.getValue("owner") as string);
        break;
      case "Transfer":
        if (log.address.toLowerCase() !== contracts.assetToken.toLowerCase()) break;
        facts.tokenId ??= (a.getValue("tokenId") as bigint).toString();
        facts.transferFrom = getAddress(a.getValue("from") as string);
        facts.transferTo = getAddress(a.getValue("to") as string);
        break;
      case "ListingCreated":
        facts.listingId = (a.getValue("listingId") as bigint).toString();
        facts.tokenId = (a.getValue("tokenId") as bigint).toString();
        facts.seller = getAddress(a.getValue("seller") as string);
        facts.priceWei = (a.getValue("price") as bigint).toString();
        facts.expiresAt = Number(a.getValue("expiresAt") as bigint);
        break;
      case "ListingSold":
        facts.listingId = (a.getValue("listingId") as bigint).toString();
        facts.tokenId = (a.getValue("tokenId") as bigint).toString();
        facts.seller = getAddress(a.getValue("seller") as string);
        facts.buyer = getAddress(a.getValue("buyer") as string);
        facts.priceWei = (a.getValue("price") as bigint).toString();
        break;
      case "ListingCancelled":
        facts.listingId = (a.getValue("listingId") as bigint).toString();
        facts.tokenId = (a.getValue("tokenId") as bigint).toString();
        facts.seller = getAddress(a.getValue("seller") as string);
        break;
      case "AssetTypeRegistered":
        facts.typeName = a.getValue("name") as string;
        break;
      default:
        break;
    }
  }
  return facts;
}
