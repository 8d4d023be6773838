import { formatUnits, parseUnits } from "ethers";
import type { AppContext } from "../context.js";
import type { Scope } from "../domain/scope.js";
import { TransactionStateError, ValidationError } from "../errors.js";
import { reservedFeeCap } from "../engine/fee-policy.js";
import { isFinal, type TxState } from "../engine/tx-lifecycle.js";
import { isGroupRow } from "../engine/tx-rows.js";
import { formatCoinShort } from "../shared/coin-amount.js";
import { callerWrite } from "./cancel-write.js";

/** A fee in gwei as the API takes it: a decimal with at most 9 decimals (wei). */
const GWEI = /^(0|[1-9]\d{0,17})(\.\d{1,9})?$/;

/** What a speed-up answers (202): the write, still `sent`, and its new fee cap. */
export interface SpeedUpAccepted {
  transactionId: string;
  status: "sent";
  /** The new cap, in gwei and in wei per gas. */
  maxFeePerGasGwei: string;
  maxFeePerGas: string;
}

/**
 * `POST /api/v1/transactions/{id}/speed-up` (docs/api-decisions.md "Speed-up"): raises a single
 * sent write's fee cap to `maxFeePerGasGwei` (default: the current quote's cap again, twice the
 * quote, as a new write would reserve), reserving the difference for its gas limit in the funds
 * check (400 `Insufficient funds: ...` when the wallet cannot cover it), and re-sends it at once
 * under the new cap (the wallet's sequencer, `repricer.ts` `sendSpeedUps`).
 *
 * - 400 with the field named: a malformed fee, one above `MAX_FEE_PER_GAS_GWEI`, or one not
 *   above the write's current cap.
 * - 409 with the state: a write not sent yet, mined, final, being cancelled, or a batch.
 * - 404 / 403 as for a cancel (`callerWrite`).
 */
export async function speedUpWrite(
  ctx: AppContext,
  orgId: string,
  txId: string,
  maxFeePerGasGwei: string | undefined,
  mayWrite: (scopes: readonly Scope[]) => boolean,
): Promise<SpeedUpAccepted> {
  const row = await callerWrite(ctx, orgId, txId, mayWrite);
  if (row.state !== "sent" || isGroupRow(row) || row.nonce === null)
    throw new TransactionStateError(refusal(row.state, isGroupRow(row)), row.state);
  if (row.cancelRequestedAt !== null || row.attempts.some((a) => a.cancel === true))
    throw new TransactionStateError("Transaction is being cancelled: it cannot be sped up", "sent");
  const ceiling = ctx.config.maxFeePerGasWei;
  const oldCap = BigInt(row.feeCap ?? row.maxFeePerGas ?? "0");
  let newCap: bigint;
  if (maxFeePerGasGwei !== undefined) {
    if (!GWEI.test(maxFeePerGasGwei))
      throw new ValidationError(
        'Invalid field: maxFeePerGasGwei (must be a decimal amount of gwei with at most 9 decimals, e.g. "50")',
      );
    newCap = parseUnits(maxFeePerGasGwei, 9);
    if (ceiling !== undefined && newCap > ceiling)
      throw new ValidationError(
        `Invalid field: maxFeePerGasGwei (above MAX_FEE_PER_GAS_GWEI, ${formatUnits(ceiling, 9)})`,
      );
    if (newCap <= oldCap)
      throw new ValidationError(
        `Invalid field: maxFeePerGasGwei (must be above the write's fee cap, ${formatUnits(oldCap, 9)})`,
      );
  } else {
    newCap = reservedFeeCap(await ctx.engine.fees.quote(), ceiling);
    if (newCap <= oldCap)
      throw new TransactionStateError(
        `Transaction's fee cap (${formatUnits(oldCap, 9)} gwei) is already at the current quote's: give maxFeePerGasGwei to raise it`,
        "sent",
      );
  }
  const wallet = await ctx.engine.store.walletOf(orgId);
  const balance = await ctx.engine.head.balanceAt(wallet!.address).head;
  const outcome = await ctx.engine.store.raiseFeeCap(orgId, txId, oldCap, newCap, balance);
  if (outcome.outcome === "changed") {
    const now = await ctx.engine.store.get(txId);
    const state = now?.state ?? row.state;
    throw new TransactionStateError(refusal(state, false), state);
  }
  if (outcome.outcome === "short") {
    const symbol = ctx.config.coinSymbol;
    const available =
      balance.value > outcome.reservedWei ? balance.value - outcome.reservedWei : 0n;
    throw new ValidationError(
      `Insufficient funds: need ${formatCoinShort(outcome.needWei, true)} ${symbol}, wallet has ${formatCoinShort(available)} ${symbol} (short ${formatCoinShort(outcome.needWei - available, true)})`,
    );
  }
  ctx.engine.submit(outcome.walletId);
  return {
    transactionId: txId,
    status: "sent",
    maxFeePerGasGwei: formatUnits(newCap, 9),
    maxFeePerGas: newCap.toString(),
  };
}

/** Why a write in `state` cannot be sped up, in words. */
function refusal(state: TxState, group: boolean): string {
  if (group) return "A batch cannot be sped up: its items are sent one by one";
  if (state === "queued") return "Transaction not sent yet: nothing to speed up";
  if (state === "mined") return "Transaction already mined";
  return isFinal(state) ? `Transaction already ${state}` : `Transaction is ${state}`;
}
