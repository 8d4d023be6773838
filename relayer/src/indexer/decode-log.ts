import type { RawLog } from "../chain/chain-reader.js";
import { decodeEvent, eventTopic } from "../chain/contracts/event-decoder.js";
import { INDEXED_EVENTS, isIndexed, type StoredLog } from "./stored-log.js";

/** topic0 of every indexed event (the `topics[0]` filter of eth_getLogs). */
export const INDEXED_TOPICS: readonly string[] = INDEXED_EVENTS.map(eventTopic);

function argText(value: unknown, type: string): string {
  if (typeof value === "bigint") return value.toString();
  // addresses and bytes lower-case (one spelling for lookups); strings (type names) exactly as emitted
  if (typeof value === "string") return type === "string" ? value : value.toLowerCase();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new TypeError(`unsupported event argument ${String(value)}`);
}

/**
 * Decodes a raw log of one of the indexed contracts; undefined for an event the indexer does
 * not read (ProceedsCredited, role events, ...: `INDEXED` in stored-log.ts).
 */
export function decodeLog(raw: RawLog, blockTimestamp: number): StoredLog | undefined {
  const event = decodeEvent(raw);
  if (event === undefined || !isIndexed(event.name)) return undefined;
  const types: Readonly<Record<string, string>> = event.types;
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(event.args))
    args[key] = argText(value, types[key] ?? "");
  // The one unchecked step: `args` holds exactly the decoded event's keys, each as text
  // (`StoredEventArgs`), and `kind` is its name.
  return {
    blockNumber: Number(BigInt(raw.blockNumber)),
    blockHash: raw.blockHash.toLowerCase(),
    logIndex: Number(BigInt(raw.logIndex)),
    txHash: raw.transactionHash.toLowerCase(),
    blockTimestamp,
    kind: event.name,
    tokenId: args.tokenId ?? null,
    listingId: args.listingId ?? null,
    args,
  } as StoredLog;
}
