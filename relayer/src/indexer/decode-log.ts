import { indexedEventsInterface, type IndexedEventName } from "./abi.js";
import type { StoredLog } from "./stored-log.js";

/** A log as eth_getLogs returns it (hex quantities). */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

function argText(value: unknown, type: string): string {
  if (typeof value === "bigint") return value.toString();
  // addresses and bytes lower-case (one spelling for lookups); strings (type names) exactly as emitted
  if (typeof value === "string") return type === "string" ? value : value.toLowerCase();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new TypeError(`unsupported event argument ${String(value)}`);
}

/**
 * Decodes a raw log of one of the indexed contracts; undefined for an event the indexer does
 * not know (ProceedsCredited, role events, ...).
 */
export function decodeLog(raw: RawLog, blockTimestamp: number): StoredLog | undefined {
  const parsed = indexedEventsInterface.parseLog({ topics: raw.topics, data: raw.data });
  if (parsed === null) return undefined;
  const args: Record<string, string> = {};
  parsed.fragment.inputs.forEach((input, i) => {
    args[input.name.replace(/^_/, "")] = argText(parsed.args[i], input.type);
  });
  return {
    blockNumber: Number(BigInt(raw.blockNumber)),
    blockHash: raw.blockHash.toLowerCase(),
    logIndex: Number(BigInt(raw.logIndex)),
    txHash: raw.transactionHash.toLowerCase(),
    blockTimestamp,
    kind: parsed.name as IndexedEventName,
    tokenId: args.tokenId ?? null,
    listingId: args.listingId ?? null,
    args,
  };
}
