import { BaseError } from "../errors.js";
import type { RpcClient } from "./rpc/rpc-client.js";

/** The transactions root of a block without transactions (the empty trie's root). */
export const EMPTY_TRANSACTIONS_ROOT =
  "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";

/**
 * The node no longer holds a block's transactions and receipts, only its header: a node that
 * prunes history, such as the embedded anvil, which keeps the transactions of its last
 * `EMBEDDED_CHAIN_TX_BLOCKS` blocks that have any (`--transaction-block-keeper`, docs/scaling.md,
 * "A long run"). Whatever reads history from there would miss what happened in that block, so
 * the reader stops instead.
 */
export class HistoryPrunedError extends BaseError {
  constructor(
    readonly blockNumber: number,
    purpose: string,
  ) {
    super(
      `The chain node no longer holds the transactions of block ${blockNumber} (its history is pruned): ` +
        `cannot ${purpose}. Point RPC_URL at a node that keeps the chain's full history.`,
      { details: { blockNumber } },
    );
  }
}

/** A block as `eth_getBlockByNumber` answers it, the fields this check reads. */
export interface BlockBody {
  transactions: readonly unknown[];
  transactionsRoot?: string;
}

/** Whether a block's header says it has transactions but the node answered none. */
export function bodyPruned(block: BlockBody): boolean {
  return (
    block.transactions.length === 0 &&
    block.transactionsRoot !== undefined &&
    block.transactionsRoot.toLowerCase() !== EMPTY_TRANSACTIONS_ROOT
  );
}

/**
 * Checks that the node still holds block `n`'s transactions.
 *
 * @throws HistoryPrunedError naming `purpose` when it does not
 */
export async function assertHistoryAt(rpc: RpcClient, n: number, purpose: string): Promise<void> {
  const block = await rpc.call<BlockBody | null>("eth_getBlockByNumber", [
    `0x${n.toString(16)}`,
    false,
  ]);
  if (block !== null && bodyPruned(block)) throw new HistoryPrunedError(n, purpose);
}
