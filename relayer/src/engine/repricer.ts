import pLimit from "p-limit";
import { classifyRpcFailure } from "../chain/rpc/rpc-errors.js";
import { newTxId } from "./tx-ids.js";
import { isLiveAttempt, mayBeMined, newestLiveAttempt, type TxAttempt } from "./tx-lifecycle.js";
import type { TxRow } from "./tx-rows.js";
import type { FeeQuote } from "./fee-oracle.js";
import type { TxSigner } from "../wallets/signer-backend.js";
import { attemptToRebroadcast, broadcastVerdict, type BroadcastVerdict } from "./decisions.js";
import type { EngineContext } from "./engine-context.js";
import {
  attemptOf,
  cancelFees,
  cancelTx,
  capFees,
  feeCapOf,
  feesOf,
  nextFees,
  SELF_TRANSFER_GAS,
  unsignedTx,
} from "./fee-policy.js";
import { isSentRow } from "./tx-rows.js";
import type { WalletState } from "./wallet-book.js";

/**
 * Re-pricing, re-broadcasting and gap filling: what the engine does for a write that is open but
 * not getting mined (docs/transactions.md).
 */

/**
 * Sends rows' bytes again as they are (the attempt a reorg dropped, else the newest that may be
 * mined): harmless when the node already has them. Rows from before attempts kept their bytes
 * are signed again (the local key's signatures are deterministic).
 */
export async function rebroadcast(
  e: EngineContext,
  state: WalletState,
  rows: readonly TxRow[],
  sign: TxSigner,
): Promise<void> {
  const raws: string[] = [];
  const sentIds: string[] = [];
  for (const row of rows) {
    const attempt = attemptToRebroadcast(row.attempts);
    if (attempt === undefined || row.nonce === null) continue;
    const tx =
      attempt.cancel === true
        ? cancelTx(row, row.nonce, feesOf(attempt), e.d.chainId)
        : unsignedTx(row, row.nonce, feesOf(attempt), e.d.chainId);
    const raw = attempt.raw ?? (await sign(tx)).raw;
    raws.push(raw);
    sentIds.push(row.id);
  }
  if (raws.length === 0) return;
  let answers: unknown[];
  try {
    answers = await e.d.rpc.batch(
      raws.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })),
    );
  } catch (error) {
    // No answer at all (a timeout, the node unreachable): every one may be in a pool, and is
    // sent again at the next check. The step goes on: a wallet whose broadcast answers are lost
    // failed its step here, each time, and never sent its queued writes.
    if (classifyRpcFailure(error) !== "unavailable") throw error;
    answers = raws.map(() => error);
  }
  const now = Date.now();
  sentIds.forEach((id, i) => {
    if (broadcastVerdict(answers[i]).kind === "maybe-in-pool") state.broadcastAt.delete(id);
    else state.broadcastAt.set(id, now);
  });
}

/**
 * A replacement on the same nonce with both fee caps raised by at least 12.5%, never above the
 * row's fee cap or the operator ceiling; at the cap, the last attempt is sent again as it is.
 * A refused replacement is noted on the attempt and the row stays `sent`.
 */
export async function reprice(
  e: EngineContext,
  state: WalletState,
  row: TxRow,
  sign: TxSigner,
  quote: FeeQuote,
  immediate: boolean,
): Promise<void> {
  const last = newestLiveAttempt(row.attempts) ?? row.attempts.at(-1);
  if (last === undefined || row.nonce === null) return;
  // A write being cancelled is re-priced as its cancelling self-transfer, never as the call
  // itself (which would race the cancel).
  const cancelling = row.attempts.some((a) => a.cancel === true && isLiveAttempt(a));
  const cap = cancelling
    ? cancelCap(row, e.options.maxFeePerGasWei)
    : feeCapOf(row, e.options.maxFeePerGasWei);
  const next = nextFees(feesOf(last), quote, cap);
  e.repriceCounter.inc({ outcome: next.kind === "at-cap" ? "at-cap" : "bumped" });
  if (next.kind === "at-cap") {
    if (!state.capLogged.has(row.id)) {
      state.capLogged.add(row.id);
      e.d.logger.warn(
        { txId: row.id, nonce: row.nonce, feeCap: cap.toString() },
        "stuck transaction is at its fee cap; re-sending it without a bump",
      );
      // The write says so (`stuck` on GET, `transaction.stuck` once), counted once per write.
      if (await e.writes.markStuck(row.id, "fee-cap")) e.stuckCounter.inc({ reason: "fee-cap" });
    }
    await rebroadcast(e, state, [row], sign);
    return;
  }
  const signed = await sign(
    cancelling
      ? cancelTx(row, row.nonce, next.fees, e.d.chainId)
      : unsignedTx(row, row.nonce, next.fees, e.d.chainId),
  );
  const deadline = row.attempts.some((a) => a.cancel === true && a.deadline === true);
  const attempt: TxAttempt = {
    ...attemptOf(signed, next.fees, row.nonce),
    ...(cancelling ? { cancel: true as const } : {}),
    ...(cancelling && deadline ? { deadline: true as const } : {}),
  };
  e.d.logger.info(
    {
      txId: row.id,
      nonce: row.nonce,
      maxFeePerGas: next.fees.maxFeePerGas.toString(),
      immediate,
    },
    "re-pricing stuck transaction",
  );
  await e.writes.addAttempts([{ id: row.id, attempt }]);
  const updated: TxRow = { ...row, attempts: [...row.attempts, attempt] };
  e.book.noteRow(state, updated);
  const verdict = await broadcastAttempt(e, state, row.id, signed.raw);
  if (verdict.kind !== "refused") return;
  e.d.logger.warn(
    { txId: row.id, nonce: row.nonce, reason: verdict.reason },
    "re-pricing refused; earlier attempts may still be mined, the write stays open",
  );
  await refuse(e, state, updated, signed.hash, verdict.reason, sign);
}

/**
 * The node refused an attempt for good (insufficient funds, malformed...). When no other attempt
 * of the row can be mined, the write failed: its nonce is rewound when it was the last one
 * handed out, or else given to a self-transfer so later nonces are not stuck behind it.
 */
export async function refuse(
  e: EngineContext,
  state: WalletState,
  row: TxRow,
  hash: string,
  reason: string,
  sign: TxSigner,
): Promise<void> {
  e.d.logger.warn({ txId: row.id, nonce: row.nonce, reason }, "the node refused a transaction");
  await e.writes.refuseAttempt(row.id, hash, reason);
  const updated: TxRow = {
    ...row,
    attempts: row.attempts.map((a) => (a.hash === hash ? { ...a, refused: reason } : a)),
  };
  e.book.noteRow(state, updated);
  if (mayBeMined(updated.attempts) || updated.nonce === null) return;
  if (state.wallet.nextNonce === updated.nonce + 1) {
    await e.writes.setNextNonce(state.wallet.id, updated.nonce);
    state.wallet.nextNonce = updated.nonce;
    const ended = await e.writes.failUnsent([{ id: row.id, reason, errorKind: "rejected" }]);
    e.afterFinal(state, ended, [row.id]);
    return;
  }
  await fillGap(e, state, updated, reason, sign);
}

/** Gives a refused row's nonce to a self-transfer, within the wallet's hourly cap. */
async function fillGap(
  e: EngineContext,
  state: WalletState,
  row: TxRow,
  reason: string,
  sign: TxSigner,
): Promise<void> {
  const nonce = row.nonce;
  if (nonce === null) return;
  const hourAgo = Date.now() - 3_600_000;
  const fills = (e.fills.get(state.wallet.id) ?? []).filter((t) => t > hourAgo);
  e.fills.set(state.wallet.id, fills);
  if (fills.length >= e.options.maxFillsPerHour) {
    // The row stays sent: its re-pricings (refused too while the wallet cannot pay) and, at
    // its fee cap, the re-sending of its last attempt go on, so it is mined once an operator
    // funds the wallet. Its gap is counted and logged once, not at every refused re-pricing.
    if (!state.unfilled.has(row.id)) {
      state.unfilled.add(row.id);
      e.d.logger.error(
        { txId: row.id, nonce, walletId: state.wallet.id, fills: fills.length },
        "nonce gap filler limit reached for this wallet; later writes wait for an operator",
      );
      e.fillCounter.inc({ reason: "limit" });
    }
    return;
  }
  fills.push(Date.now());
  const fees = capFees(await e.d.fees.quote(), feeCapOf(row, e.options.maxFeePerGasWei));
  const filler = await sign(
    unsignedTx(
      {
        toAddress: state.wallet.address,
        fromAddress: state.wallet.address,
        data: "0x",
        value: "0",
        gasLimit: "21000",
      },
      nonce,
      fees,
      e.d.chainId,
    ),
  );
  const fillerId = newTxId();
  await e.writes.replaceWithFiller(row, reason, {
    id: fillerId,
    attempt: attemptOf(filler, fees, nonce),
  });
  e.fillCounter.inc({ reason: "refused" });
  e.d.logger.warn({ txId: row.id, nonce, fillerId }, "filling nonce gap with a self-transfer");
  e.afterFinal(state, [row.id], [row.id]);
  e.kick(state.wallet.id); // the filler row is loaded (and indexed) on the next step
  try {
    await e.d.rpc.call("eth_sendRawTransaction", [filler.raw]);
  } catch (err) {
    if (broadcastVerdict(err).kind === "maybe-in-pool") throw err;
    e.d.logger.warn({ err, fillerId }, "the gap filler was refused; it is re-sent when stuck");
  }
}

/**
 * The highest fee per gas a cancelling self-transfer of `row` may pay: the operator ceiling
 * (`MAX_FEE_PER_GAS_GWEI`) when set, else what the write reserved at acceptance for its whole
 * gas limit, spent on 21,000 gas (the funds check promised no more).
 */
function cancelCap(row: TxRow, ceiling: bigint | undefined): bigint {
  if (ceiling !== undefined) return ceiling;
  const reserved = feeCapOf(row, undefined) * BigInt(row.gasLimit ?? SELF_TRANSFER_GAS.toString());
  return reserved / SELF_TRANSFER_GAS;
}

/**
 * Writes the caller asked to cancel once sent (`cancel_requested_at`, `TxStore.requestCancel`):
 * each is raced by a zero-value self-transfer on its nonce (docs/transactions.md "Cancelling a
 * sent write"), priced at least the pool's replacement bump over its newest attempt and at the
 * current quote (mined in the next block), within `MAX_FEE_PER_GAS_GWEI` (`cancelFees`). Like
 * every attempt it is recorded with its signed bytes before it is broadcast, and only then; the
 * write stays `sent` until the chain shows its nonce used, and ends `cancelled` when the
 * self-transfer was mined, or as it would have when the original was (`settler.ts`). Sent once
 * per write: then re-broadcast and re-priced as the write's newest attempt. A cancel that
 * cannot be priced (no room under the ceiling, a chain without fees) or that the node refuses
 * for good is noted on the row (`lastError`) and the write goes on; one the pool refuses as
 * underpriced (a quote read before a spike, a pool wanting more) is noted on its attempt and
 * signed again once the quote prices it higher.
 */
export async function sendCancels(
  e: EngineContext,
  state: WalletState,
  sign: TxSigner,
): Promise<void> {
  const now = Date.now();
  // Past its deadline (`validForSeconds`) and not mined: raced the same way, and, if the
  // self-transfer wins, the write ends `expired` (`deadline`). A caller's cancel comes first.
  const overdue = (r: TxRow) => r.validUntil !== null && r.validUntil.getTime() <= now;
  const asked = [...state.rows.values()].filter(
    (r) =>
      isSentRow(r) &&
      (r.cancelRequestedAt !== null || overdue(r)) &&
      // A self-transfer that may be mined is out already (re-broadcast and re-priced as the
      // write's newest attempt); one the node refused as underpriced is tried again below.
      !r.attempts.some((a) => a.cancel === true && isLiveAttempt(a)) &&
      // Tried already and noted (no room to outbid, refused by the node): not again. A transient
      // note (`RPC unavailable`) does not hold a cancel back.
      !isCancelNote(r.lastError),
  );
  if (asked.length === 0) return;
  const quote = await e.d.fees.quote();
  const unpriced: TxRow[] = [];
  const planned: Array<{ row: TxRow; attempt: TxAttempt; raw: string }> = [];
  for (const row of asked) {
    if (row.nonce === null) continue;
    const last = newestLiveAttempt(row.attempts);
    if (last === undefined) continue;
    const fees = cancelFees(feesOf(last), quote, cancelCap(row, e.options.maxFeePerGasWei));
    if (fees === undefined) {
      unpriced.push(row);
      continue;
    }
    // Refused as underpriced before (the pool wanted more, or the quote it was priced at was a
    // block old): again only at a higher price than that one.
    const refused = row.attempts.filter((a) => a.cancel === true && !isLiveAttempt(a)).at(-1);
    if (refused !== undefined && fees.maxFeePerGas <= BigInt(refused.maxFeePerGas)) continue;
    const signed = await sign(cancelTx(row, row.nonce, fees, e.d.chainId));
    const attempt: TxAttempt = {
      ...attemptOf(signed, fees, row.nonce),
      cancel: true,
      ...(row.cancelRequestedAt === null ? { deadline: true as const } : {}),
    };
    planned.push({ row, attempt, raw: signed.raw });
  }
  if (unpriced.length > 0) {
    await e.d.store.setLastError(
      unpriced.map((r) => r.id),
      CANCEL_UNPRICED,
    );
    for (const row of unpriced) e.book.noteRow(state, { ...row, lastError: CANCEL_UNPRICED });
  }
  if (planned.length === 0) return;
  // Every self-transfer recorded in one statement, and only what was recorded is broadcast (a
  // row settled meanwhile, or a lost lease, records nothing and sends nothing).
  const recorded = new Set(
    await e.writes.addAttempts(planned.map((p) => ({ id: p.row.id, attempt: p.attempt }))),
  );
  const toSend = planned.filter((p) => recorded.has(p.row.id));
  for (const { row, attempt } of toSend) {
    e.d.logger.info(
      { txId: row.id, nonce: row.nonce, maxFeePerGas: attempt.maxFeePerGas },
      attempt.deadline === true
        ? "a sent write passed its deadline: racing it with a self-transfer on its nonce"
        : "cancelling a sent write with a self-transfer on its nonce",
    );
    e.book.noteRow(state, { ...row, attempts: [...row.attempts, attempt] });
  }
  // Side by side, each on its own call: a lost answer costs one RPC timeout for all of them,
  // not one per cancel (a batch whose every answer is lost reads as refused and falls back to
  // single calls one after the other). The nonces are already in the pool, so order is moot.
  const lanes = pLimit(CANCEL_BROADCASTS_AT_ONCE);
  const verdicts = await Promise.all(
    toSend.map((p) => lanes(() => broadcastAttempt(e, state, p.row.id, p.raw))),
  );
  for (const [i, { row, attempt }] of toSend.entries()) {
    const verdict = verdicts[i]!;
    if (verdict.kind === "underpriced") {
      // Not in the pool: noted on the attempt, and tried again at a higher price (above).
      e.d.logger.warn(
        { txId: row.id, nonce: row.nonce, maxFeePerGas: attempt.maxFeePerGas },
        "the cancelling self-transfer was refused as underpriced; it is tried again at a higher price",
      );
      await e.writes.refuseAttempt(row.id, attempt.hash, "replacement underpriced");
      const current = state.rows.get(row.id) ?? row;
      e.book.noteRow(state, {
        ...current,
        attempts: current.attempts.map((a) =>
          a.hash === attempt.hash ? { ...a, refused: "replacement underpriced" } : a,
        ),
      });
      continue;
    }
    if (verdict.kind !== "refused") continue;
    const reason = verdict.reason;
    e.d.logger.warn(
      { txId: row.id, nonce: row.nonce, reason },
      "the cancelling self-transfer was refused; the write goes on",
    );
    await e.writes.refuseAttempt(row.id, attempt.hash, reason);
    const note = `${CANCEL_NOTE_PREFIX}the node refused: ${reason}`;
    await e.d.store.setLastError([row.id], note);
    const current = state.rows.get(row.id) ?? row;
    e.book.noteRow(state, {
      ...current,
      attempts: current.attempts.map((a) =>
        a.hash === attempt.hash ? { ...a, refused: reason } : a,
      ),
      lastError: note,
    });
  }
}

/** How many cancelling self-transfers one wallet's step broadcasts at once. */
const CANCEL_BROADCASTS_AT_ONCE = 16;

/**
 * Sends one recorded attempt of a row alone and reads the node's answer (`broadcastVerdict`): a
 * lost answer leaves the row due to be sent again at once (`broadcastAt` cleared), a node that
 * does not take the transaction type has its fee model detected again. What a refusal means
 * is the caller's to decide.
 */
async function broadcastAttempt(
  e: EngineContext,
  state: WalletState,
  rowId: string,
  raw: string,
): Promise<BroadcastVerdict> {
  state.broadcastAt.set(rowId, Date.now());
  let answer: unknown;
  try {
    answer = await e.d.rpc.call("eth_sendRawTransaction", [raw]);
  } catch (error) {
    answer = error instanceof Error ? error : new Error(String(error));
  }
  const verdict = broadcastVerdict(answer);
  if (verdict.kind === "maybe-in-pool") state.broadcastAt.delete(rowId);
  if (verdict.kind === "wrong-type") e.d.fees.redetect(); // re-priced in the new model when stuck
  return verdict;
}

/** Whether `lastError` is `sendCancels`' own note of a cancel it gave up on. */
function isCancelNote(lastError: string | null): boolean {
  return lastError !== null && lastError.startsWith(CANCEL_NOTE_PREFIX);
}

/** What every note of a cancel given up on starts with. */
const CANCEL_NOTE_PREFIX = "cannot cancel: ";

/** `lastError` of a write whose cancel could not be priced above it. */
const CANCEL_UNPRICED =
  "cannot cancel: no fee within MAX_FEE_PER_GAS_GWEI (or on a chain without fees) outbids the write";

/**
 * Writes whose fee cap the caller just raised (`speed_up_at` after their newest attempt,
 * `TxStore.raiseFeeCap`): re-priced at once under the new cap (`reprice`), not after
 * `stuckAfterMs`.
 */
export async function sendSpeedUps(
  e: EngineContext,
  state: WalletState,
  sign: TxSigner,
): Promise<void> {
  const raised = [...state.rows.values()].filter((r) => {
    if (!isSentRow(r) || r.speedUpAt === null) return false;
    const last = r.attempts.at(-1);
    return last === undefined || Date.parse(last.sentAt) < r.speedUpAt.getTime();
  });
  if (raised.length === 0) return;
  const quote = await e.d.fees.quote();
  for (const row of raised) {
    state.capLogged.delete(row.id);
    // A fresh start for the block count too (`STUCK_AFTER_BLOCKS`): the cap was just raised.
    state.openSince.set(row.id, e.d.blocks.head);
    await reprice(e, state, row, sign, quote, true);
  }
}
