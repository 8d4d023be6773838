import { ranOutOfGas } from "./gas-book.js";
import { receiptFacts } from "../chain/contracts/receipt-events.js";
import { replayRevertReason } from "../chain/revert-replay.js";
import { isMethodNotFound } from "../chain/rpc/rpc-errors.js";
import type { TxReceiptSummary } from "./tx-lifecycle.js";
import type { Finalisation } from "./leased-tx-writes.js";
import { isMinedRow, isSentRow, type SentRow, type TxRow } from "./tx-rows.js";
import type { TxSigner } from "../wallets/signer-backend.js";
import {
  blockWhereNonceWasUsed,
  blockStuckReason,
  confirmationVerdict,
  isStuck,
  outbid,
  pricedOut,
  rebroadcastDue,
  receiptVerdict,
  takerVerdict,
  type BlockTransaction,
  type RawReceipt,
} from "./decisions.js";
import type { EngineContext } from "./engine-context.js";
import { feeCapOf } from "./fee-policy.js";
import { untaggedCallData } from "./write-tag.js";
import { rebroadcast, reprice } from "./repricer.js";
import type { WalletState } from "./wallet-book.js";

/**
 * Settling: from the chain's answers to rows' states (docs/transactions.md). Receipts come from
 * each new block for every tracked hash at once; the once-a-second nonce check settles what the
 * blocks missed and proves, before a write may take a new nonce, that another transaction took
 * its old one.
 */

const toHex = (n: number | bigint) => "0x" + n.toString(16);

/** How long a node that lacks `eth_getBlockReceipts` is left alone before it is asked again. */
const BLOCK_RECEIPTS_RECHECK_MS = 600_000;

/**
 * Compares the wallet's sent rows with the chain: rows whose nonce the chain consumed are settled
 * from the receipt of whichever attempt was mined, or re-queued when the chain proves another
 * transaction took the nonce; open rows are sent again when due, and re-priced when stuck.
 */
export async function checkSent(
  e: EngineContext,
  state: WalletState,
  sign: TxSigner,
): Promise<void> {
  const sent = [...state.rows.values()].filter(isSentRow);
  for (const row of sent) if (!state.openSince.has(row.id)) state.openSince.set(row.id, head(e));
  if (sent.length === 0) {
    // Nothing was taken over: what this process sends from now on is its own, and is sent
    // again only when due (a freshly claimed wallet once broadcast its first write twice).
    state.fresh = false;
    return;
  }
  const now = Date.now();
  if (!checkDue(e, state, now)) return;
  state.lastCheck = now;
  const latest = Number(
    BigInt(await e.d.rpc.call<string>("eth_getTransactionCount", [state.wallet.address, "latest"])),
  );
  const consumed = sent.filter((r) => r.nonce < latest);
  if (consumed.length > 0) await settleConsumed(e, state, consumed);
  const open = sent.filter((r) => r.nonce >= latest && state.rows.get(r.id)?.state === "sent");
  await markBlockStuck(e, state, open, latest);
  if (state.fresh) {
    // Taken over from a process that may have died between recording and broadcasting.
    state.fresh = false;
    await rebroadcast(e, state, open, sign);
    return;
  }
  const due = open.filter((r) =>
    rebroadcastDue(
      state.broadcastAt.get(r.id),
      r.reopenedAt?.getTime(),
      now,
      e.options.rebroadcastMs,
    ),
  );
  if (due.length > 0) await rebroadcast(e, state, due, sign);
  if (open.length === 0) return;
  // Stuck for `stuckAfterMs`, priced out by a base fee that rose past its fee since it was
  // sent, or outbid by the quote the newer writes go out at (both re-priced now: `pricedOut`,
  // `outbid`). The quote is the oracle's (read at most once a second); when it cannot be read,
  // only the rows stuck by time are looked at, and their re-pricing waits for a quote as before.
  const fresh = await e.d.fees.quote().then(
    (quote) => quote,
    () => undefined,
  );
  const baseFee = fresh === undefined ? undefined : e.d.fees.baseFee;
  const stuck = open.filter((r) => {
    if (isStuck(r, now, e.options.stuckAfterMs)) return true;
    const cap = feeCapOf(r, e.options.maxFeePerGasWei);
    return pricedOut(r, baseFee, cap) || outbid(r, fresh, cap);
  });
  if (stuck.length === 0) return;
  const quote = fresh ?? (await e.d.fees.quote());
  for (const row of stuck) {
    const current = state.rows.get(row.id);
    if (current !== undefined) await reprice(e, state, current, sign, quote, false);
  }
}

/**
 * Marks stuck, once each, the open rows `STUCK_AFTER_BLOCKS` blocks or more have left out since
 * this process first saw them out: `not-mined` when the row's nonce is the wallet's next,
 * `nonce-gap` when a lower nonce holds it (`blockStuckReason`). A row marked before (any reason,
 * `fee-cap` included) keeps its first mark; the mark and its `transaction.stuck` event are one
 * statement (`markStuck`), counted in `rwa_tx_stuck_total{reason}`.
 */
async function markBlockStuck(
  e: EngineContext,
  state: WalletState,
  open: readonly SentRow[],
  latest: number,
): Promise<void> {
  const now = head(e);
  for (const row of open) {
    if (row.stuckSince !== null) continue;
    const since = state.openSince.get(row.id);
    if (since === undefined) continue;
    const reason = blockStuckReason(row.nonce, latest, since, now, e.options.stuckAfterBlocks);
    if (reason === undefined) continue;
    const marked = await e.writes.markStuck(row.id, reason);
    // Marked or not (another reason came first), the row as loaded is not asked again.
    e.book.noteRow(state, { ...row, stuckSince: new Date() });
    if (!marked) continue;
    e.stuckCounter.inc({ reason });
    e.d.logger.warn(
      { txId: row.id, nonce: row.nonce, latestNonce: latest, blocks: now - since, reason },
      reason === "nonce-gap"
        ? "a sent write is stuck behind a lower nonce that is not mined"
        : "a sent write is not mined after STUCK_AFTER_BLOCKS blocks",
    );
  }
}

/** The head block this process's watcher last saw. */
function head(e: EngineContext): number {
  return e.d.blocks.head;
}

/**
 * Rows whose nonce the chain consumed: finalised from a receipt of one of their attempts; an
 * error or a missing answer means look again later; a definite `null` for every attempt sends
 * the engine to the block that used the nonce, and only a transaction there that is none of
 * the row's attempts re-queues the write (`takerVerdict`).
 */
/**
 * Whether a wallet's sent rows are due a look at the chain (`checkSent`): a wallet just taken
 * over always is; otherwise at most once per `checkIntervalMs`, and, while the block follower
 * settles what is mined (`processBlocks`, on a node with `eth_getBlockReceipts`), only once a
 * row has been out for `3 × checkIntervalMs` without the follower finding it (lost, dropped,
 * replaced, stuck, or the follower itself failing). A row the follower settles within a block
 * or two costs no nonce read, no receipt look-up and no second write of its state.
 */
export function checkDue(e: EngineContext, state: WalletState, now: number): boolean {
  if (state.fresh) return true;
  if (now - state.lastCheck < e.options.checkIntervalMs) return false;
  const sent = [...state.rows.values()].filter(isSentRow);
  if (sent.length === 0) return false;
  const unsupported = e.blockReceipts.unsupportedSince;
  const followed = unsupported === undefined || now - unsupported >= BLOCK_RECEIPTS_RECHECK_MS;
  if (!followed) return true;
  const grace = 3 * e.options.checkIntervalMs;
  return sent.some(
    (row) => now - (state.broadcastAt.get(row.id) ?? row.sentAt?.getTime() ?? 0) >= grace,
  );
}

async function settleConsumed(
  e: EngineContext,
  state: WalletState,
  rows: readonly SentRow[],
): Promise<void> {
  const lookups = rows.flatMap((row) =>
    row.attempts
      .filter((a) => (a.nonce ?? row.nonce) === row.nonce && a.superseded === undefined)
      .map((a) => ({ row, hash: a.hash })),
  );
  const answers = await e.d.rpc.batch(
    lookups.map((l) => ({ method: "eth_getTransactionReceipt", params: [l.hash] })),
  );
  const mined: Array<{ state: WalletState; row: TxRow; receipt: RawReceipt }> = [];
  const unproven: SentRow[] = [];
  for (const row of rows) {
    const verdict = receiptVerdict(lookups.flatMap((l, i) => (l.row === row ? [answers[i]] : [])));
    if (verdict.kind === "mined") mined.push({ state, row, receipt: verdict.receipt });
    else if (verdict.kind === "no-receipt") unproven.push(row);
  }
  if (mined.length > 0) await finaliseReceipts(e, mined);
  const taken: Array<{ row: SentRow; by: string }> = [];
  for (const row of unproven) {
    const by = await nonceTakenBy(e, state, row);
    if (by !== undefined) taken.push({ row, by });
  }
  if (taken.length === 0) return;
  for (const { row, by } of taken)
    e.d.logger.warn(
      { txId: row.id, nonce: row.nonce, takenBy: by },
      "nonce taken by another transaction (proven from its block); re-queueing",
    );
  const fillers = taken.filter((t) => t.row.kind === "nonce-fill");
  const writes = taken.filter((t) => t.row.kind !== "nonce-fill");
  if (fillers.length > 0) {
    // A filler's only job was to use the nonce: whoever used it, the gap is closed.
    const ended = await e.writes.failUnsent(
      fillers.map((f) => ({
        id: f.row.id,
        reason: `nonce used by ${f.by}`,
        errorKind: "rejected",
      })),
    );
    e.afterFinal(state, ended, ended);
  }
  const requeued = await e.writes.requeue(writes.map((t) => ({ id: t.row.id, takenBy: t.by })));
  for (const id of requeued) e.book.drop(state, id);
  state.wallet.nextNonce = null; // resync from the chain before the next round
  e.kick(state.wallet.id);
}

/**
 * Who used `row`'s nonce, when the chain proves it was another transaction; undefined when it
 * was one of the row's own attempts or nothing can be proven yet (any error: look again).
 */
async function nonceTakenBy(
  e: EngineContext,
  state: WalletState,
  row: SentRow,
): Promise<string | undefined> {
  const address = state.wallet.address;
  try {
    const head = Number(BigInt(await e.d.rpc.call<string>("eth_blockNumber")));
    const block = await blockWhereNonceWasUsed(row.nonce, 0, head, async (n) =>
      Number(BigInt(await e.d.rpc.call<string>("eth_getTransactionCount", [address, toHex(n)]))),
    );
    if (block === undefined) return undefined;
    const body = await e.d.rpc.call<{ transactions: Array<BlockTransaction | string> } | null>(
      "eth_getBlockByNumber",
      [toHex(block), true],
    );
    const verdict = takerVerdict(
      body,
      address,
      row.nonce,
      row.attempts.map((a) => a.hash),
    );
    if (verdict.kind === "taken") return verdict.by;
    if (verdict.kind === "ours")
      e.d.logger.info(
        { txId: row.id, hash: verdict.hash, block },
        "mined in a block the receipt look-up did not show yet; looking again",
      );
    return undefined;
  } catch (err) {
    e.d.logger.debug({ err, txId: row.id }, "cannot prove who used a nonce yet; looking again");
    return undefined;
  }
}

/**
 * Follows new blocks: receipts of every new block matched against every tracked hash, then
 * mined rows promoted once they have their confirmations. Returns the last block processed.
 */
export async function processBlocks(e: EngineContext, from: number, head: number): Promise<number> {
  let last = from;
  const unsupported = e.blockReceipts.unsupportedSince;
  const skip = unsupported !== undefined && Date.now() - unsupported < BLOCK_RECEIPTS_RECHECK_MS;
  if (e.book.tracking && head > from && !skip) {
    const numbers: number[] = [];
    for (let n = from + 1; n <= head; n++) numbers.push(n);
    const answers = await e.d.rpc.batch(
      numbers.map((n) => ({ method: "eth_getBlockReceipts", params: [toHex(n)] })),
    );
    const found: Array<{ state: WalletState; row: TxRow; receipt: RawReceipt }> = [];
    for (const [i, answer] of answers.entries()) {
      if (answer instanceof Error) {
        // A node without the method: the nonce checks settle (once a second).
        if (isMethodNotFound(answer)) {
          e.blockReceipts.unsupportedSince = Date.now();
          last = head;
          break;
        }
        break;
      }
      if (answer === null) break; // a node behind this block: read it again later
      for (const receipt of answer as RawReceipt[]) {
        const hit = e.book.find(receipt.transactionHash);
        if (hit !== undefined) found.push({ ...hit, receipt });
      }
      last = numbers[i]!;
    }
    if (found.length > 0) await finaliseReceipts(e, found);
  } else last = Math.max(from, head);
  await promoteMined(e, head);
  return last;
}

/** Rows seen in a block: `mined` (confirmations asked for) or final, in one write. */
export async function finaliseReceipts(
  e: EngineContext,
  found: ReadonlyArray<{ state: WalletState; row: TxRow; receipt: RawReceipt }>,
): Promise<void> {
  const entries: Finalisation[] = [];
  const seen = new Set<string>();
  const outOfGas: Array<{ state: WalletState; row: TxRow; hash: string }> = [];
  for (const { state, row, receipt } of found) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    const summary = summaryOf(receipt, row);
    // The self-transfer sent to cancel the write was mined: the write ends cancelled (a mined
    // original ends as it always did). Its 21,000 gas says nothing of the write's shape.
    // Sent because its deadline passed: it ends expired.
    const cancel = row.attempts.find((a) => a.hash === summary.hash && a.cancel === true);
    if (cancel !== undefined) {
      entries.push(
        e.options.confirmations > 0
          ? { id: row.id, status: "mined", receipt: summary, result: null, reason: null }
          : {
              id: row.id,
              status: cancel.deadline === true ? "expired" : "cancelled",
              receipt: summary,
            },
      );
      continue;
    }
    const ok = summary.status === 1;
    // The gas book's shapes are of the call, without the write's tag (as the executor asks).
    const shape = { kind: row.kind, to: row.toAddress, data: untaggedCallData(row.data) };
    if (ok) e.d.gas.learn(shape, BigInt(summary.gasUsed));
    else if (
      ranOutOfGas(summary.status, BigInt(summary.gasUsed), nullableBigInt(row.gasLimit)) &&
      !row.attempts.some((a) => a.outOfGas === true)
    ) {
      // The limit was too low, not the write wrong: estimate again and send it once more.
      e.d.gas.forget(shape);
      outOfGas.push({ state, row, hash: summary.hash });
      continue;
    }
    const result = ok
      ? { ...row.context, ...receiptFacts(receipt.logs, e.d.contracts), txHash: summary.hash }
      : null;
    const reason = ok ? null : await revertReasonAt(e, row, summary.blockNumber);
    if (e.options.confirmations > 0)
      entries.push({ id: row.id, status: "mined", receipt: summary, result, reason });
    else if (result !== null)
      entries.push({ id: row.id, status: "confirmed", receipt: summary, result });
    else
      entries.push({
        id: row.id,
        status: "failed",
        reason: reason ?? "execution reverted",
        errorKind: "revert",
        receipt: summary,
      });
  }
  if (outOfGas.length > 0) await requeueOutOfGas(e, outOfGas);
  const ended = new Set(await e.writes.finalise(entries));
  const entryOf = new Map(entries.map((x) => [x.id, x]));
  for (const [state, ids] of byWallet(found)) {
    const settled: string[] = [];
    for (const id of ids) {
      const entry = entryOf.get(id);
      const row = state.rows.get(id);
      if (entry?.status === "mined" && row !== undefined) {
        // Seen in a block, not final: kept as mined (its slot is free) until promoted.
        e.book.drop(state, id);
        state.rows.set(id, { ...row, state: "mined", receipt: entry.receipt });
      } else settled.push(id);
    }
    e.afterFinal(
      state,
      ids.filter((id) => ended.has(id)),
      settled,
    );
  }
}

/**
 * Mined rows with their confirmations and their block still canonical become final. A block
 * whose hash changed is left to the indexer, which reopens its rows (`TxStore.reopenReorged`).
 */
async function promoteMined(e: EngineContext, head: number): Promise<void> {
  if (e.options.confirmations === 0) return;
  const due: Array<{ state: WalletState; row: TxRow & { receipt: TxReceiptSummary } }> = [];
  for (const state of e.book.states())
    for (const row of state.rows.values())
      if (isMinedRow(row) && head - row.receipt.blockNumber >= e.options.confirmations)
        due.push({ state, row });
  if (due.length === 0) return;
  const numbers = [...new Set(due.map((d) => d.row.receipt.blockNumber))];
  const blocks = await e.d.rpc.batch(
    numbers.map((n) => ({ method: "eth_getBlockByNumber", params: [toHex(n), false] })),
  );
  const hashAt = new Map<number, string | undefined>();
  numbers.forEach((n, i) => {
    const block = blocks[i];
    hashAt.set(
      n,
      block instanceof Error || block === null ? undefined : (block as { hash: string }).hash,
    );
  });
  const confirm = due.filter(
    (d) =>
      confirmationVerdict(
        d.row.receipt,
        head,
        e.options.confirmations,
        hashAt.get(d.row.receipt.blockNumber),
      ) === "confirm",
  );
  if (confirm.length === 0) return;
  const ended = new Set(await e.writes.promote(confirm.map((d) => d.row.id)));
  for (const [state, ids] of byWallet(confirm))
    e.afterFinal(
      state,
      ids.filter((id) => ended.has(id)),
      ids,
    );
}

/** Row ids by the wallet they belong to (each id once). */
function byWallet(
  rows: ReadonlyArray<{ state: WalletState; row: TxRow }>,
): Map<WalletState, string[]> {
  const grouped = new Map<WalletState, string[]>();
  for (const { state, row } of rows) {
    const ids = grouped.get(state);
    if (ids === undefined) grouped.set(state, [row.id]);
    else if (!ids.includes(row.id)) ids.push(row.id);
  }
  return grouped;
}

function summaryOf(receipt: RawReceipt, row: TxRow): TxReceiptSummary {
  // Receipts from before London may lack effectiveGasPrice: a legacy attempt paid its price.
  const attempt = row.attempts.find(
    (a) => a.hash.toLowerCase() === receipt.transactionHash.toLowerCase(),
  );
  const price =
    receipt.effectiveGasPrice ??
    (attempt === undefined ? "0x0" : toHex(BigInt(attempt.maxFeePerGas)));
  return {
    hash: receipt.transactionHash,
    blockNumber: Number(BigInt(receipt.blockNumber)),
    blockHash: receipt.blockHash,
    status: Number(BigInt(receipt.status)),
    gasUsed: BigInt(receipt.gasUsed).toString(),
    effectiveGasPrice: BigInt(price).toString(),
  };
}

/** Writes that ran out of gas go back to the queue, to be estimated again and sent anew. */
async function requeueOutOfGas(
  e: EngineContext,
  rows: ReadonlyArray<{ state: WalletState; row: TxRow; hash: string }>,
): Promise<void> {
  const requeued = new Set(
    await e.writes.requeueOutOfGas(rows.map(({ row, hash }) => ({ id: row.id, hash }))),
  );
  for (const { state, row, hash } of rows) {
    if (!requeued.has(row.id)) continue;
    e.d.logger.warn(
      { txId: row.id, hash, gasLimit: row.gasLimit },
      "transaction ran out of gas; estimating again and sending it once more",
    );
    e.book.drop(state, row.id);
    e.kick(state.wallet.id);
  }
}

function nullableBigInt(value: string | null): bigint | null {
  return value === null ? null : BigInt(value);
}

/** Why a mined transaction reverted: the one replay (`revert-replay.ts`); the bare reason. */
async function revertReasonAt(e: EngineContext, row: TxRow, blockNumber: number): Promise<string> {
  try {
    return await replayRevertReason(
      e.d.rpc,
      {
        from: row.fromAddress,
        to: row.toAddress ?? "",
        data: row.data ?? "0x",
        value: BigInt(row.value),
        gas: row.gasLimit === null ? undefined : BigInt(row.gasLimit),
      },
      blockNumber,
    );
  } catch {
    return "execution reverted"; // the node did not answer the replay
  }
}
