import type { BlockHeader } from "../chain/chain-reader.js";
import type { StoredLog } from "./stored-log.js";

/**
 * What the chain sync hands to the indexer, Ponder style: a tagged union applied in order.
 * - `block`: blocks `headers` (ascending, contiguous up to `last`) were read with their logs;
 *   apply them and move the cursor to `last`.
 * - `reorg`: the indexed chain diverged; roll back everything above `ancestor`.
 * - `finalize`: blocks up to `blockNumber` have the configured confirmations; release their
 *   webhook events.
 */
export type BlockEvent =
  | { type: "block"; last: BlockHeader; headers: BlockHeader[]; logs: StoredLog[] }
  | { type: "reorg"; ancestor: { number: number; hash: string }; depth: number }
  | { type: "finalize"; blockNumber: number };
