import { isGroupRow } from "../engine/tx-rows.js";
import type { TxRow } from "../engine/tx-store.js";
import {
  TransactionFailedError,
  TransactionStateError,
  ValidationError,
  type BaseError,
} from "../errors.js";
import { CANCELLED_REASON, EXPIRED_REASON, STATE_RACE_REASONS } from "../domain/write-outcome.js";

/**
 * The error a write answers with when the chain refused it, from the reason the chain gave
 * (decoded by `chain/contracts/revert-reasons.ts`): a lost race is the 400 of its check
 * (`Listing not active`), anything else the spec's 500 `Transaction failed: <reason>`. The HTTP
 * status itself comes from the error's class (`http/error-handler.ts`).
 *
 * @param reason the API reason, e.g. `Below min stake`, `Listing not active`
 * @example
 * failedWriteError("Listing not active") // ValidationError: 400 `Listing not active`
 * failedWriteError("Price above max") // TransactionFailedError: 500 `Transaction failed: Price above max`
 */
export function failedWriteError(reason: string, cause?: unknown): BaseError {
  if (STATE_RACE_REASONS.includes(reason)) return new ValidationError(reason, { cause });
  return new TransactionFailedError(reason, { cause });
}

/**
 * The error the API shows for a write, worked out once from its row: undefined unless the row
 * ended `failed` or `replaced`, else `failedWriteError` of the reason the engine stored on it.
 * The synchronous answer throws it (so the error handler gives its status), and
 * `GET /api/v1/transactions/{id}` shows its message and that same status (`error`,
 * `errorStatus`), which the SDK's `waitForTransaction` throws: both paths say the same words.
 * A batch item shows its message.
 *
 * Nothing here asks the chain: the engine stores the decoded reason when the receipt comes in
 * (for a race lost inside one block, the reason of the call replayed on the state after that
 * block: `chain/revert-replay.ts`).
 *
 * @example
 * writeFailure(row) // for a buy that lost its race: ValidationError 400 `Listing not active`
 * writeFailure(confirmedRow) // undefined
 */
export function writeFailure(
  row: Pick<TxRow, "state" | "error" | "toAddress" | "data">,
): BaseError | undefined {
  // Cancelled before it was sent (`POST /api/v1/transactions/{id}/cancel`): a synchronous call
  // still waiting for it answers 409 with the state.
  if (row.state === "cancelled") return new TransactionStateError(CANCELLED_REASON, "cancelled");
  // Its deadline (`validForSeconds`) passed before it was sent: the same for a waiting request.
  if (row.state === "expired") return new TransactionStateError(EXPIRED_REASON, "expired");
  if (row.state !== "failed" && row.state !== "replaced") return undefined;
  // A group (a batch) answers 200 with each item's outcome even when every item failed (its row
  // then ends `failed`); the items carry the errors.
  if (isGroupRow(row)) return undefined;
  return failedWriteError(row.error ?? "unknown");
}
