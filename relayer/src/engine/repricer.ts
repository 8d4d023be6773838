import { newTxId } from "./tx-ids.js";
import { isLiveAttempt, mayBeMined } from "./tx-lifecycle.js";
import type { TxRow } from "./tx-rows.js";
import type { FeeQuote } from "./fee-oracle.js";
import type { TxSigner } from "../wallets/signer-backend.js";
import { attemptToRebroadcast, broadcastVerdict } from "./decisions.js";
import type { EngineContext } from "./engine-context.js";
import { attemptOf, capFees, feeCapOf, feesOf, nextFees, unsignedTx } from "./fee-policy.js";
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
    const raw =
      attempt.raw ?? (await sign(unsignedTx(row, row.nonce, feesOf(attempt), e.d.chainId))).raw;
    raws.push(raw);
    sentIds.push(row.id);
  }
  if (raws.length === 0) return;
  const answers = await e.d.rpc.batch(
    raws.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })),
  );
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
  const last = [...row.attempts].reverse().find(isLiveAttempt) ?? row.attempts.at(-1);
  if (last === undefined || row.nonce === null) return;
  const cap = feeCapOf(row, e.options.maxFeePerGasWei);
  const next = nextFees(feesOf(last), quote, cap);
  e.repriceCounter.inc({ outcome: next.kind === "at-cap" ? "at-cap" : "bumped" });
  if (next.kind === "at-cap") {
    if (!state.capLogged.has(row.id)) {
      state.capLogged.add(row.id);
      e.d.logger.warn(
        { txId: row.id, nonce: row.nonce, feeCap: cap.toString() },
        "stuck transaction is at its fee cap; re-sending it without a bump",
      );
    }
    await rebroadcast(e, state, [row], sign);
    return;
  }
  const signed = await sign(unsignedTx(row, row.nonce, next.fees, e.d.chainId));
  const attempt = attemptOf(signed, next.fees, row.nonce);
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
  state.broadcastAt.set(row.id, Date.now());
  let answer: unknown;
  try {
    answer = await e.d.rpc.call("eth_sendRawTransaction", [signed.raw]);
  } catch (error) {
    answer = error instanceof Error ? error : new Error(String(error));
  }
  const verdict = broadcastVerdict(answer);
  if (verdict.kind === "maybe-in-pool") state.broadcastAt.delete(row.id);
  if (verdict.kind === "wrong-type") e.d.fees.redetect(); // re-priced in the new model when stuck
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
