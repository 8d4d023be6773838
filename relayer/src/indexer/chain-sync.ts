import { BaseError } from "../errors.js";
import type { BlockEvent } from "./block-event.js";
import type { BlockHeader, ChainReader, RawLog } from "../chain/chain-reader.js";
import { decodeLog } from "./decode-log.js";
import type { StoredLog } from "./stored-log.js";

/** Knobs of the chain sync. */
export interface ChainSyncOptions {
  /** Blocks per eth_getLogs when catching up (default 2000). */
  rangeSize: number;
  /** Within this many blocks of the head, read block by block with parent-hash checks (default 12). */
  tipDistance: number;
  /**
   * Blocks that must stand above a block before its webhook events are released
   * (`config.confirmations`): 0 = as soon as the block is indexed, N = once the head is N blocks
   * past it.
   */
  confirmations: number;
  /** How far back a reorg is searched for (default 1000 blocks). */
  maxReorgDepth: number;
}

/** Read access to the block hashes the indexer has stored (`indexed_blocks`). */
export interface StoredBlockLookup {
  /** Stored hashes of blocks in [from, to], by number. */
  storedHashes(from: number, to: number): Promise<Map<number, string>>;
}

/** The chain changed under a read (a reorg in progress): try again on the next poll. */
export class ChainMovedError extends BaseError {
  override name = "ChainMovedError";
}

/** The indexed chain diverged deeper than `maxReorgDepth`: needs an operator. */
export class DeepReorgError extends BaseError {
  override name = "DeepReorgError";
}

type BlockRead = Extract<BlockEvent, { type: "block" }>;

/** The cursor: the last block applied. */
export interface Cursor {
  number: number;
  hash: string;
}

async function findAncestor(
  reader: ChainReader,
  store: StoredBlockLookup,
  cursor: Cursor,
  maxDepth: number,
): Promise<Cursor> {
  const stored = await store.storedHashes(Math.max(0, cursor.number - maxDepth), cursor.number);
  const numbers = [...stored.keys()].sort((a, b) => b - a);
  for (const n of numbers) {
    const onChain = await reader.header(n);
    // A node that does not have the block (an endpoint behind the chain) proves nothing.
    if (onChain === undefined) throw new ChainMovedError(`block ${n} unknown to the node`);
    if (onChain.hash === stored.get(n)) return { number: n, hash: onChain.hash };
  }
  throw new DeepReorgError(`No common ancestor within ${maxDepth} blocks of ${cursor.number}`);
}

function decodeAll(raw: RawLog[], timestamps: Map<string, number>): StoredLog[] {
  const logs: StoredLog[] = [];
  for (const log of raw) {
    if (log.removed === true) continue;
    const timestamp = timestamps.get(log.blockHash.toLowerCase());
    if (timestamp === undefined)
      throw new ChainMovedError("log from a block that is not the canonical one");
    const decoded = decodeLog(log, timestamp);
    if (decoded !== undefined) logs.push(decoded);
  }
  return logs.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}

async function reorgEvent(
  reader: ChainReader,
  store: StoredBlockLookup,
  cursor: Cursor,
  options: ChainSyncOptions,
) {
  const ancestor = await findAncestor(reader, store, cursor, options.maxReorgDepth);
  return { type: "reorg", ancestor, depth: cursor.number - ancestor.number } as const;
}

/** Catch-up: one eth_getLogs over [from, to]; headers only for blocks with logs and the ends. */
async function readRange(
  reader: ChainReader,
  cursor: Cursor,
  to: number,
): Promise<BlockRead | "reorg"> {
  const from = cursor.number + 1;
  const [first, lastBefore] = await Promise.all([reader.header(from), reader.header(to)]);
  if (first === undefined || lastBefore === undefined) throw new ChainMovedError("block vanished");
  if (first.parentHash !== cursor.hash) return "reorg";
  const raw = await reader.logsInRange(from, to);
  const last = await reader.header(to);
  if (last === undefined || last.hash !== lastBefore.hash)
    throw new ChainMovedError("range changed while reading");
  const withLogs = [...new Set(raw.map((l) => Number(BigInt(l.blockNumber))))].filter(
    (n) => n !== from && n !== to,
  );
  const headers = [first, ...(await Promise.all(withLogs.map((n) => reader.header(n))))];
  if (to !== from) headers.push(last);
  const known = headers.filter((h): h is BlockHeader => h !== undefined);
  const timestamps = new Map(known.map((h) => [h.hash, h.timestamp]));
  return {
    type: "block" as const,
    last,
    headers: known.sort((a, b) => a.number - b.number),
    logs: decodeAll(raw, timestamps),
  };
}

/** Near the head: block by block, each chained to its parent and its logs read by block hash. */
async function readTip(
  reader: ChainReader,
  cursor: Cursor,
  to: number,
): Promise<BlockRead | "reorg"> {
  const headers: BlockHeader[] = [];
  let parent = cursor.hash;
  for (let n = cursor.number + 1; n <= to; n++) {
    const header = await reader.header(n);
    if (header === undefined) break;
    if (header.parentHash !== parent) {
      if (headers.length === 0) return "reorg";
      break; // apply what chains; the next poll finds the reorg
    }
    headers.push(header);
    parent = header.hash;
  }
  const last = headers.at(-1);
  if (last === undefined) return "reorg";
  const raws = await Promise.all(headers.map((h) => reader.logsAtHash(h.hash)));
  const timestamps = new Map(headers.map((h) => [h.hash, h.timestamp]));
  return { type: "block" as const, last, headers, logs: decodeAll(raws.flat(), timestamps) };
}

/**
 * Reads what happened on the chain since `cursor` and returns the block events to apply, in
 * order (possibly none). Reorgs are found by parent hash (and by the cursor block's hash when
 * the head has not moved); the common ancestor is the newest stored block whose hash still
 * matches the chain.
 */
export async function nextBlockEvents(
  reader: ChainReader,
  store: StoredBlockLookup,
  cursor: Cursor,
  options: ChainSyncOptions,
): Promise<BlockEvent[]> {
  const head = await reader.head();
  if (head <= cursor.number) {
    // A head below the cursor, or no block at the cursor, is a node behind the chain (failover to
    // a lagging endpoint), not a reorg: wait. A shorter canonical chain is found once it grows
    // past the cursor (its parent hashes differ).
    if (head < cursor.number) return [];
    const atCursor = await reader.header(cursor.number);
    if (atCursor === undefined) return [];
    if (atCursor.hash !== cursor.hash) return [await reorgEvent(reader, store, cursor, options)];
    return [];
  }
  const gap = head - cursor.number;
  const result =
    gap > options.tipDistance
      ? await readRange(
          reader,
          cursor,
          Math.min(cursor.number + options.rangeSize, head - options.tipDistance),
        )
      : await readTip(reader, cursor, head);
  if (result === "reorg") return [await reorgEvent(reader, store, cursor, options)];
  const events: BlockEvent[] = [result];
  const finalized = Math.min(result.last.number, head - options.confirmations);
  if (finalized > 0) events.push({ type: "finalize", blockNumber: finalized });
  return events;
}
