import { revertReason } from "./contracts/revert-reasons.js";
import type { RpcClient } from "./rpc/rpc-client.js";
import { RpcResponseError } from "./rpc/rpc-errors.js";

/** The call of a transaction that reverted on chain, as its row records it. */
export interface RevertedCall {
  from: string;
  to: string;
  data: string;
  value: bigint;
  /** The transaction's gas limit, so an out-of-gas call replays as one; omitted: the node's. */
  gas?: bigint | undefined;
}

/** What `revertReason` answers for a revert without data: nothing the API could name. */
const UNNAMED = "execution reverted";

/**
 * The API reason (`chain/contracts/revert-reasons.ts`) of a transaction that reverted in block
 * `blockNumber`, found by replaying its call with `eth_call`; the one replay of a revert, for
 * the transaction engine to store on the failed row (`transactions.error`), from where every
 * API answer takes it (`writes/write-failure.ts`).
 *
 * 1. On the parent block's state: what the transaction met, unless a transaction ahead of it in
 *    the same block changed that state.
 * 2. When that replay passes or names nothing, on the state after the block: a race lost inside
 *    the block (another buyer, ahead of it, took the listing), which then names
 *    `Listing not active`.
 *
 * @returns e.g. `Below min stake`, `Listing not active`; `execution reverted` when neither
 *   replay names a reason
 * @throws what `rpc.call` throws when the node does not answer (`isUnavailable`): the reason is
 *   then unknown rather than unnamed; retry, or store `execution reverted` as before
 * @example
 * const reason = await replayRevertReason(rpc, { from, to, data, value, gas }, receipt.blockNumber);
 */
export async function replayRevertReason(
  rpc: RpcClient,
  call: RevertedCall,
  blockNumber: number,
): Promise<string> {
  const onParent = await replay(rpc, call, blockNumber - 1);
  if (onParent !== undefined && onParent !== UNNAMED) return onParent;
  const afterBlock = await replay(rpc, call, blockNumber);
  return afterBlock ?? onParent ?? UNNAMED;
}

/** The decoded reason of `call` run on the state at the end of block `at`; undefined if it passes. */
async function replay(rpc: RpcClient, call: RevertedCall, at: number): Promise<string | undefined> {
  try {
    await rpc.call<string>("eth_call", [
      {
        from: call.from,
        to: call.to,
        data: call.data,
        value: toHex(call.value),
        ...(call.gas === undefined ? {} : { gas: toHex(call.gas) }),
      },
      toHex(BigInt(Math.max(0, at))),
    ]);
    return undefined;
  } catch (error) {
    // The node answered and refused the call: a revert (with or without data), or a refusal such
    // as out of gas at this gas limit, which names nothing either.
    if (error instanceof RpcResponseError) return revertReason(error.data);
    throw error;
  }
}

function toHex(value: bigint): string {
  return "0x" + value.toString(16);
}
