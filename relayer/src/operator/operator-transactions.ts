import pLimit from "p-limit";
import { isError, Transaction, type TransactionReceipt, type TransactionRequest } from "ethers";
import type { AppendedAudit } from "../audit/audit-writer.js";
import {
  appendOperatorAttempt,
  appendOperatorOutcome,
  type OperatorAct,
  type OperatorTxOutcome,
} from "../audit/operator-act-audit.js";
import type { AppContext } from "../context.js";
import { inTransaction } from "../db/client.js";
import { isAlreadyKnown, isAnswerLost, isUnavailable, withRpc } from "../chain/rpc/rpc-errors.js";
import { SentTransactionError, TransactionFailedError, UnavailableError } from "../errors.js";
import { formatCoinShort } from "../shared/coin-amount.js";

/**
 * Advisory-lock id serialising transactions of the operator account across every relayer
 * process. Any other code that sends from the operator account must hold this lock while it
 * picks a nonce and broadcasts (use `sendOperatorTransaction`).
 */
export const OPERATOR_TX_LOCK_ID = 0x7277_6f70; // "rwop"

/** Wait at most this long for an operator transaction's receipt. */
const RECEIPT_TIMEOUT_MS = 60_000;
/** How often the receipt is asked for while it is not there. */
const RECEIPT_POLL_MS = 250;

/**
 * 503: the operator account cannot pay for an operator action (the dev faucet, a role grant, an
 * asset type registered by staff). Raised before anything is sent, at once, naming the account,
 * its balance and what the action needs, so the operator knows what to fund (docs/api-decisions.md, "Operator
 * account"). Never a transaction left pending that the node will not mine.
 */
export class OperatorFundsError extends UnavailableError {
  override name = "OperatorFundsError";
  readonly balanceWei: bigint;
  readonly neededWei: bigint;
  constructor(
    ctx: AppContext,
    purpose: string,
    balanceWei: bigint,
    neededWei: bigint,
    cause?: unknown,
  ) {
    const coin = ctx.config.coinSymbol;
    super(
      `Operator account cannot pay for ${purpose}: it holds ${formatCoinShort(balanceWei)} ${coin}, ` +
        `needs ${formatCoinShort(neededWei, true)} ${coin} (operator ${ctx.operator.address})`,
      { cause, details: { balanceWei: String(balanceWei), neededWei: String(neededWei) } },
    );
    this.balanceWei = balanceWei;
    this.neededWei = neededWei;
  }
}

type OperatorRequest = Pick<TransactionRequest, "to" | "data" | "value">;

function revertOf(error: unknown): TransactionFailedError | undefined {
  // Gas estimation reverted (e.g. the operator is not the registry's admin).
  if (isError(error, "CALL_EXCEPTION")) {
    return new TransactionFailedError(error.reason ?? "execution reverted", { cause: error });
  }
  return undefined;
}

/**
 * The operator account's balance and the most `request` can cost it: value + estimated gas ×
 * the max fee per gas a node checks a sender's balance against.
 *
 * @throws TransactionFailedError when the call reverts; RpcUnavailableError
 */
export async function operatorCost(
  ctx: AppContext,
  request: OperatorRequest,
): Promise<{ balanceWei: bigint; neededWei: bigint }> {
  const from = ctx.operator.address;
  const [balanceWei, gas, fees] = await Promise.all([
    withRpc(() => ctx.provider.getBalance(from, "pending")),
    // Estimated without the value: the node refuses to estimate a value the sender lacks.
    withRpc(() => ctx.provider.estimateGas({ from, to: request.to, data: request.data })).catch(
      (error: unknown) => {
        throw revertOf(error) ?? error;
      },
    ),
    withRpc(() => ctx.provider.getFeeData()),
  ]);
  const feePerGas = fees.maxFeePerGas ?? fees.gasPrice ?? 0n;
  return { balanceWei, neededWei: BigInt(request.value ?? 0n) + gas * feePerGas };
}

/**
 * The operator sends of this process, one at a time. A send waiting for the advisory lock holds
 * a pool connection, and the lock's holder needs a second one for its audit row: with every
 * connection held by waiters, neither could go on (20 concurrent registrations answered 503
 * `Database unavailable`). One at a time, at most one connection per process waits on the lock.
 */
const operatorSends = pLimit(1);

/**
 * Sends a transaction from the operator account (dev faucet, role grants, compliance acts) and
 * waits for its receipt. Inside a PostgreSQL transaction holding
 * `pg_advisory_xact_lock(OPERATOR_TX_LOCK_ID)` it checks that the account can pay (else
 * `OperatorFundsError` at once, nothing sent), reads the account's pending nonce from the node,
 * signs with that nonce and broadcasts; the lock is released once the node has accepted the
 * transaction, so concurrent senders in any process never pick the same nonce. The receipt is
 * awaited outside the lock.
 *
 * With `act`, the act is audited around the broadcast (`audit/operator-act-audit.ts`): its
 * `operator_tx.attempted` row, naming the signed transaction's hash, is committed before the
 * broadcast (nothing is sent if it cannot be), and its outcome row follows.
 *
 * Once the transaction is handed to the node, every failure names it: a lost broadcast answer,
 * a receipt look-up that fails, a revert or a receipt that never comes throws a
 * `SentTransactionError` (its cause's status and words, plus `txHash`). A broadcast the node
 * refused throws as before.
 *
 * @param purpose what the transaction is for, in the error message (`the dev faucet`)
 * @param act the audit row of the act once mined, and who acted
 * @throws OperatorFundsError (503) when the operator account cannot pay; RpcUnavailableError when
 *   the node is unreachable before the broadcast; TransactionFailedError on a revert at gas
 *   estimation; SentTransactionError after the broadcast
 */
export async function sendOperatorTransaction(
  ctx: AppContext,
  request: OperatorRequest,
  purpose = "an operator transaction",
  act?: OperatorAct,
): Promise<TransactionReceipt> {
  // Set once signed (and, with an act, its attempt row committed): the broadcast may follow.
  let signed: { hash: string; attempt: AppendedAudit | undefined; accepted: boolean } | undefined;
  const outcome = async (
    attempt: AppendedAudit | undefined,
    hash: string,
    result: OperatorTxOutcome,
  ): Promise<void> => {
    if (act !== undefined && attempt !== undefined)
      await appendOperatorOutcome(ctx.database.db, ctx.logger, act, attempt.id, hash, result);
  };
  try {
    await operatorSends(() =>
      inTransaction(ctx.database, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock($1)", [OPERATOR_TX_LOCK_ID]);
        const { balanceWei, neededWei } = await operatorCost(ctx, request);
        if (balanceWei < neededWei) {
          throw new OperatorFundsError(ctx, purpose, balanceWei, neededWei);
        }
        const refused = (error: unknown): never => {
          // Spent between the check and the send (another process, a manual transfer).
          if (isError(error, "INSUFFICIENT_FUNDS"))
            throw new OperatorFundsError(ctx, purpose, balanceWei, neededWei, error);
          throw revertOf(error) ?? error;
        };
        const nonce = await withRpc(() =>
          ctx.provider.getTransactionCount(ctx.operator.address, "pending"),
        );
        const raw = await withRpc(async () => {
          const populated = await ctx.operator.populateTransaction({ ...request, nonce });
          return ctx.operator.signTransaction(populated);
        }).catch(refused);
        const hash = Transaction.from(raw).hash!;
        const attempt =
          act === undefined
            ? undefined
            : await appendOperatorAttempt(ctx.database.db, act, {
                hash,
                from: ctx.operator.address,
                nonce,
              });
        signed = { hash, attempt, accepted: false };
        await withRpc(() => ctx.provider.broadcastTransaction(raw)).catch(refused);
        signed.accepted = true;
      }),
    );
  } catch (error) {
    if (signed === undefined) throw error;
    // Accepted, then the lock's COMMIT failed: the transaction is sent all the same. A broadcast
    // whose answer was lost may be in the node's pool: look for it as if accepted.
    const maybeSent =
      signed.accepted || isUnavailable(error) || isAnswerLost(error) || isAlreadyKnown(error);
    if (!maybeSent) {
      await outcome(signed.attempt, signed.hash, { status: "rejected", reason: reasonOf(error) });
      throw error;
    }
  }
  const { hash, attempt } = signed!;
  let receipt: TransactionReceipt | null;
  try {
    receipt = await receiptOf(ctx, hash);
  } catch (error) {
    await outcome(attempt, hash, { status: "unconfirmed", reason: reasonOf(error) });
    throw new SentTransactionError(hash, error);
  }
  if (receipt === null) {
    await outcome(attempt, hash, { status: "unconfirmed", reason: "not mined in time" });
    throw new SentTransactionError(
      hash,
      new TransactionFailedError("operator transaction not mined", { details: { hash } }),
    );
  }
  if (receipt.status !== 1) {
    await outcome(attempt, hash, { status: "reverted", blockNumber: receipt.blockNumber });
    throw new SentTransactionError(
      hash,
      new TransactionFailedError("operator transaction reverted", { details: { hash } }),
    );
  }
  await outcome(attempt, hash, { status: "mined", blockNumber: receipt.blockNumber });
  return receipt;
}

/** A failure's words for an audit row: its message, cut at 200 characters (a node may say a lot). */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}

/**
 * The receipt of `hash`, asked for every `RECEIPT_POLL_MS` until `RECEIPT_TIMEOUT_MS`; null after
 * that. Not ethers' `waitForTransaction`: it looks again only when a new block arrives, so a
 * receipt the node did not have at the first look (anvil answers an automined send a moment
 * before its block is the head) was waited for until the next block, and a chain that mines only
 * on demand (automine, QBFT without empty blocks) has none: a 60 s hang, then a 503.
 */
async function receiptOf(ctx: AppContext, hash: string): Promise<TransactionReceipt | null> {
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  for (;;) {
    const receipt = await withRpc(() => ctx.provider.getTransactionReceipt(hash));
    if (receipt !== null || Date.now() >= deadline) return receipt;
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
}
