import { revertReason } from "../chain/contracts/revert-reasons.js";
import { classifyRpcFailure, RpcResponseError } from "../chain/rpc/rpc-errors.js";
import type { TxRow } from "./tx-rows.js";
import type { TxSigner } from "../wallets/signer-backend.js";
import { broadcastVerdict, pickRound } from "./decisions.js";
import type { EngineContext } from "./engine-context.js";
import { attemptOf, capFees, feeCapOf, unsignedTx } from "./fee-policy.js";
import { refuse, reprice } from "./repricer.js";
import type { WalletState } from "./wallet-book.js";

/**
 * Sends queued writes into the organization's free in-flight slots: nonces for the round, one
 * database write recording every signed attempt (bytes included) before anything is broadcast,
 * one JSON-RPC batch to broadcast. A broadcast whose answer is lost stays open (it may be in a
 * pool) and is sent again as it is; only a refusal for good ends an attempt.
 */
export async function sendQueued(
  e: EngineContext,
  state: WalletState,
  sign: TxSigner,
): Promise<void> {
  const picked = pickRound([...state.rows.values()], e.options.maxInFlightPerOrg);
  if (picked.length === 0) return;
  const sendable = await ensureGasLimits(e, state, picked);
  if (sendable.length === 0) return;
  const next = state.wallet.nextNonce ?? (await resyncNonce(e, state));
  const quote = await e.d.fees.quote();
  const entries = [];
  for (const [i, row] of sendable.entries()) {
    const fees = capFees(quote, feeCapOf(row, e.options.maxFeePerGasWei));
    const nonce = next + i;
    const signed = await sign(unsignedTx(row, nonce, fees, e.d.chainId));
    entries.push({ id: row.id, nonce, row, signed, attempt: attemptOf(signed, fees, nonce) });
  }
  await e.writes.markSent(state.wallet.id, next + entries.length, entries);
  state.wallet.nextNonce = next + entries.length;
  const now = Date.now();
  for (const entry of entries) {
    const row: TxRow = {
      ...entry.row,
      state: "sent",
      nonce: entry.nonce,
      attempts: [...entry.row.attempts, entry.attempt],
    };
    e.book.noteRow(state, row);
    state.broadcastAt.set(row.id, now);
    state.openSince.set(row.id, e.d.blocks.head);
  }
  let answers: unknown[];
  try {
    answers = await e.d.rpc.batch(
      entries.map((x) => ({ method: "eth_sendRawTransaction", params: [x.signed.raw] })),
    );
  } catch (error) {
    // Recorded, maybe not received: the next nonce check sends the same bytes again.
    for (const entry of entries) state.broadcastAt.delete(entry.id);
    throw error;
  }
  // Refusals are handled from the highest nonce down, so a refused tail rewinds the counter.
  const refused: Array<{ row: TxRow; hash: string; reason: string }> = [];
  for (const [i, entry] of entries.entries()) {
    const verdict = broadcastVerdict(answers[i]);
    const row = state.rows.get(entry.id);
    if (row === undefined) continue;
    switch (verdict.kind) {
      case "accepted":
        break;
      case "maybe-in-pool":
        state.broadcastAt.delete(entry.id);
        break;
      case "nonce-too-low":
        state.lastCheck = 0; // our own earlier attempt, or another transaction: the check decides
        break;
      case "underpriced":
        await reprice(e, state, row, sign, quote, true);
        break;
      case "wrong-type":
        // Signed for a fee model the node does not take: the same nonce, re-signed for the
        // model detected again (never a refusal of the write).
        e.d.fees.redetect();
        await e.writes.refuseAttempt(
          entry.id,
          entry.attempt.hash,
          "transaction type not supported",
        );
        await reprice(
          e,
          state,
          {
            ...row,
            attempts: row.attempts.map((a) =>
              a.hash === entry.attempt.hash
                ? { ...a, refused: "transaction type not supported" }
                : a,
            ),
          },
          sign,
          await e.d.fees.quote(),
          true,
        );
        break;
      case "refused":
        refused.push({ row, hash: entry.attempt.hash, reason: verdict.reason });
    }
  }
  for (const r of refused.sort((a, b) => (b.row.nonce ?? 0) - (a.row.nonce ?? 0)))
    await refuse(e, state, r.row, r.hash, r.reason, sign);
}

/** Rows recorded without a gas limit get one now; a revert fails the row without a nonce. */
async function ensureGasLimits(
  e: EngineContext,
  state: WalletState,
  rows: TxRow[],
): Promise<TxRow[]> {
  const missing = rows.filter((r) => r.gasLimit === null);
  if (missing.length === 0) return rows;
  const answers = await e.d.rpc.batch(
    missing.map((row) => ({
      method: "eth_estimateGas",
      params: [
        {
          from: row.fromAddress,
          to: row.toAddress,
          data: row.data,
          value: "0x" + BigInt(row.value).toString(16),
        },
      ],
    })),
  );
  const failed: Array<{ id: string; reason: string; errorKind: "revert" | "rejected" }> = [];
  for (const [i, row] of missing.entries()) {
    const answer = answers[i];
    if (answer instanceof Error) {
      const kind = classifyRpcFailure(answer);
      if (kind === "unavailable") throw answer;
      failed.push({
        id: row.id,
        reason:
          kind === "revert" && answer instanceof RpcResponseError
            ? revertReason(answer.data)
            : answer.message,
        errorKind: kind === "revert" ? "revert" : "rejected",
      });
      continue;
    }
    const limit = (BigInt(answer as string) * BigInt(100 + e.options.gasMarginPercent)) / 100n;
    row.gasLimit = limit.toString();
    await e.writes.setGasLimit(row.id, limit);
  }
  if (failed.length > 0) {
    const ended = await e.writes.failUnsent(failed);
    e.afterFinal(
      state,
      ended,
      failed.map((f) => f.id),
    );
  }
  const failedIds = new Set(failed.map((f) => f.id));
  return rows.filter((r) => !failedIds.has(r.id));
}

/** The wallet's next nonce from the chain's pending count and the live rows' highest nonce. */
async function resyncNonce(e: EngineContext, state: WalletState): Promise<number> {
  const [pending, maxLive] = await Promise.all([
    e.d.rpc.call<string>("eth_getTransactionCount", [state.wallet.address, "pending"]),
    e.d.store.maxLiveNonce(state.wallet.id),
  ]);
  const next = Math.max(Number(BigInt(pending)), maxLive + 1);
  await e.writes.setNextNonce(state.wallet.id, next);
  state.wallet.nextNonce = next;
  return next;
}
