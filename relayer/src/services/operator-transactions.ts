import { isError, type TransactionReceipt, type TransactionRequest } from "ethers";
import type { AppContext } from "../context.js";
import { TransactionFailedError } from "../errors.js";
import { withRpc } from "./rpc-call.js";

/**
 * Advisory-lock id serialising transactions of the operator account across every relayer
 * process. Any other code that sends from the operator account must hold this lock while it
 * picks a nonce and broadcasts (use `sendOperatorTransaction`).
 */
export const OPERATOR_TX_LOCK_ID = 0x7277_6f70; // "rwop"

/** Wait at most this long for an operator transaction's receipt. */
const RECEIPT_TIMEOUT_MS = 60_000;

/**
 * Sends a transaction from the operator account (dev faucet, role grants) and waits for its
 * receipt. Inside a PostgreSQL transaction holding `pg_advisory_xact_lock(OPERATOR_TX_LOCK_ID)`
 * it reads the account's pending nonce from the node and broadcasts with that nonce; the lock is
 * released once the node has accepted the transaction, so concurrent senders in any process
 * never pick the same nonce. The receipt is awaited outside the lock.
 *
 * @throws RpcUnavailableError when the node is unreachable; TransactionFailedError on a revert
 */
export async function sendOperatorTransaction(
  ctx: AppContext,
  request: Pick<TransactionRequest, "to" | "data" | "value">,
): Promise<TransactionReceipt> {
  const client = await ctx.database.pool.connect();
  let hash: string;
  try {
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock($1)", [OPERATOR_TX_LOCK_ID]);
      const nonce = await withRpc(() =>
        ctx.provider.getTransactionCount(ctx.operator.address, "pending"),
      );
      const sent = await withRpc(() => ctx.operator.sendTransaction({ ...request, nonce })).catch(
        (error: unknown) => {
          // Gas estimation reverted (e.g. the operator is not the registry's admin).
          if (isError(error, "CALL_EXCEPTION")) {
            throw new TransactionFailedError(error.reason ?? "execution reverted", {
              cause: error,
            });
          }
          throw error;
        },
      );
      hash = sent.hash;
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
  const receipt = await withRpc(() => ctx.provider.waitForTransaction(hash, 1, RECEIPT_TIMEOUT_MS));
  if (receipt === null)
    throw new TransactionFailedError("operator transaction not mined", { details: { hash } });
  if (receipt.status !== 1)
    throw new TransactionFailedError("operator transaction reverted", { details: { hash } });
  return receipt;
}
