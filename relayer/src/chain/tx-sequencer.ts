import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";
import type { ContractAddresses } from "./contracts.js";
import type { KeyStore } from "../wallets/key-store.js";
import type { BlockWatcher } from "./block-watcher.js";
import { bumpFees, type FeeOracle, type FeeQuote } from "./fee-oracle.js";
import { receiptFacts, type RawLog } from "./receipt-events.js";
import { revertReason } from "./revert-reasons.js";
import type { RpcClient } from "./rpc-client.js";
import { classifyRpcFailure, RpcResponseError } from "./rpc-errors.js";
import { newTxId } from "./tx-ids.js";
import { mayBeMined, type TxAttempt } from "./tx-lifecycle.js";
import type { TxNotifier } from "./tx-notifier.js";
import type { Finalisation, LeasedWallet, SentEntry, TxRow, TxStore } from "./tx-store.js";
import { withWalletSigner, type SignedTx, type TxSigner } from "./wallet-signer.js";

/** Tuning of the sequencer (defaults suit a 1 s block chain). */
export interface TxSequencerOptions {
  /** Wallet lease length; renewed every `claimIntervalMs`. Default 15 s. */
  leaseMs: number;
  /** How often to look for wallets with work and renew leases. Default 1 s. */
  claimIntervalMs: number;
  /** Re-price a transaction not mined after this long. Default 15 s. */
  stuckAfterMs: number;
  /** How often a wallet with sent transactions compares its nonces with the chain. Default 1 s. */
  checkIntervalMs: number;
  /** Gas margin over `eth_estimateGas`, in percent. Default 25. */
  gasMarginPercent: number;
  /** Write operations one organization may have on the chain at once (a batch is one). */
  maxInFlightPerOrg: number;
  /** Gap fills allowed per wallet per hour; past it the wallet waits for an operator. Default 20. */
  maxFillsPerHour: number;
  /** Operator ceiling on maxFeePerGas (`MAX_FEE_PER_GAS_GWEI`), in wei. */
  maxFeePerGasWei: bigint | undefined;
}

export const DEFAULT_SEQUENCER_OPTIONS: TxSequencerOptions = {
  leaseMs: 15_000,
  claimIntervalMs: 1_000,
  stuckAfterMs: 15_000,
  checkIntervalMs: 1_000,
  gasMarginPercent: 25,
  maxInFlightPerOrg: 10,
  maxFillsPerHour: 20,
  maxFeePerGasWei: undefined,
};

/** What the sequencer needs. */
export interface TxSequencerDeps {
  store: TxStore;
  rpc: RpcClient;
  fees: FeeOracle;
  keyStore: KeyStore;
  logger: Logger;
  contracts: ContractAddresses;
  chainId: number;
  /** Identifies this process in wallet leases. */
  owner: string;
  blocks: BlockWatcher;
  notifier: TxNotifier;
  /** Registry for the sequencer's metrics (optional). */
  registry?: Registry;
  options?: Partial<TxSequencerOptions>;
}

interface RawReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  gasUsed: string;
  effectiveGasPrice?: string;
  logs: RawLog[];
}

/** A wallet this process sequences. */
interface WalletState {
  wallet: LeasedWallet;
  /** Live rows as of the last step. */
  rows: Map<string, TxRow>;
  running: Promise<void> | undefined;
  again: boolean;
  /** Set on lease takeover: re-broadcast what a dead process may never have sent. */
  fresh: boolean;
  lastCheck: number;
  capLogged: Set<string>;
  /** Rows left open because the wallet's gap fills were used up (counted and logged once). */
  unfilled: Set<string>;
}

/**
 * Sends every wallet's writes in order, several per round, from whichever process holds that
 * wallet's lease (docs/transactions.md). Per round: nonces for up to the org's free in-flight
 * slots, signing, one database write for all first attempts, one JSON-RPC batch to broadcast.
 * Receipts come from the blocks (`eth_getBlockReceipts` per new block, for every sent hash at
 * once), and are finalised in one write. Once any attempt of a nonce may be in a pool, the row
 * stays `sent` until the chain shows that nonce consumed: re-pricing that the node refuses
 * never fails a write, so a retry can never mint twice.
 */
export class TxSequencer {
  readonly #d: TxSequencerDeps;
  readonly options: TxSequencerOptions;
  readonly #wallets = new Map<string, WalletState>();
  /** Hash of every attempt of a sent row of a leased wallet → its row. */
  readonly #hashes = new Map<string, { walletId: string; rowId: string }>();
  readonly #fillCounter: Counter<"reason">;
  /**
   * Times of the gap fills of the last hour, by wallet id. Kept apart from the wallet's state,
   * which is dropped whenever the wallet runs out of work: the cap holds across idle spells.
   */
  readonly #fills = new Map<string, number[]>();
  #lastBlock = -1;
  #blockWork: Promise<void> | undefined;
  #blockAgain = false;
  #timers: NodeJS.Timeout[] = [];
  #stopped = true;
  #claiming: Promise<void> | undefined;

  constructor(deps: TxSequencerDeps) {
    this.#d = deps;
    this.options = { ...DEFAULT_SEQUENCER_OPTIONS, ...deps.options };
    this.#fillCounter = new Counter({
      name: "rwa_nonce_gap_fills_total",
      help: "Self-transfers sent to fill a nonce whose write the node refused",
      labelNames: ["reason"] as const,
      registers: deps.registry === undefined ? [] : [deps.registry],
    });
  }

  /** Starts claiming wallets with work, following blocks and listening for new work. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#d.notifier.on("queued", this.#onQueued);
    this.#d.blocks.on("block", this.#onBlock);
    this.#timers.push(
      setInterval(() => void this.#claimAll(), this.options.claimIntervalMs),
      setInterval(() => this.#kickSent(), Math.max(100, this.options.checkIntervalMs / 2)),
    );
    void this.#claimAll();
  }

  /** Stops taking work, lets running steps finish (at most `timeoutMs`), gives the leases back. */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#d.notifier.off("queued", this.#onQueued);
    this.#d.blocks.off("block", this.#onBlock);
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const running = [...this.#wallets.values()].flatMap((s) => (s.running ? [s.running] : []));
    await Promise.race([
      Promise.allSettled([...running, this.#blockWork, this.#claiming]),
      new Promise((r) => setTimeout(r, timeoutMs)),
    ]);
    await this.#d.store.releaseLeases(this.#d.owner).catch(() => {});
    this.#wallets.clear();
    this.#hashes.clear();
  }

  /** Wakes the wallet's sequencing now (a write was recorded in this process). */
  wake(walletId: string): void {
    this.#onQueued(walletId);
  }

  readonly #onQueued = (walletId: string): void => {
    if (this.#stopped) return;
    if (this.#wallets.has(walletId)) this.#kick(walletId);
    else void this.#claim([walletId]);
  };

  async #claimAll(): Promise<void> {
    if (this.#stopped || this.#claiming !== undefined) return;
    this.#claiming = (async () => {
      try {
        const withWork = await this.#d.store.walletsWithWork();
        await this.#claim([...new Set([...withWork, ...this.#wallets.keys()])]);
      } catch (err) {
        this.#d.logger.warn({ err }, "claiming wallets failed");
      }
    })().finally(() => {
      this.#claiming = undefined;
    });
    await this.#claiming;
  }

  async #claim(walletIds: string[]): Promise<void> {
    if (walletIds.length === 0) return;
    let claimed: LeasedWallet[];
    try {
      claimed = await this.#d.store.claimWallets(this.#d.owner, walletIds, this.options.leaseMs);
    } catch (err) {
      this.#d.logger.warn({ err }, "claiming wallets failed");
      return;
    }
    const held = new Set(claimed.map((w) => w.id));
    for (const id of walletIds) {
      if (!held.has(id) && this.#wallets.has(id)) this.#forget(id); // lost the lease
    }
    for (const wallet of claimed) {
      if (this.#stopped) return;
      if (!this.#wallets.has(wallet.id)) {
        this.#wallets.set(wallet.id, {
          wallet,
          rows: new Map(),
          running: undefined,
          again: false,
          fresh: true,
          lastCheck: 0,
          capLogged: new Set(),
          unfilled: new Set(),
        });
      }
      this.#kick(wallet.id);
    }
  }

  #forget(walletId: string): void {
    const state = this.#wallets.get(walletId);
    if (state === undefined) return;
    for (const row of state.rows.values())
      for (const a of row.attempts) this.#hashes.delete(a.hash.toLowerCase());
    this.#wallets.delete(walletId);
  }

  /**
   * Ends the live batch parents among `rows` whose items are all final. A parent is normally
   * ended as its last item settles (`#afterFinal`); that can be lost (the process dies in between,
   * or the statement fails), and nothing else would end it: the batch would stay `sent` forever
   * and its wallet leased. Returns `rows` without the parents ended.
   */
  async #endOrphanedBatches(rows: TxRow[]): Promise<TxRow[]> {
    const withLiveItems = new Set(rows.flatMap((r) => (r.parentId === null ? [] : [r.parentId])));
    const orphans = rows.filter((r) => r.kind === "batch-issue" && !withLiveItems.has(r.id));
    if (orphans.length === 0) return rows;
    const ended = new Set(
      await this.#d.store.finishParents(
        orphans.map((r) => r.id),
        summariseBatch,
      ),
    );
    for (const id of ended) this.#d.notifier.emit("final", id);
    return rows.filter((r) => !ended.has(r.id));
  }

  /** Wallets with sent rows get their periodic check (nonces, stuck transactions). */
  #kickSent(): void {
    const now = Date.now();
    for (const [id, state] of this.#wallets) {
      const hasSent = [...state.rows.values()].some((r) => r.state === "sent");
      if (hasSent && now - state.lastCheck >= this.options.checkIntervalMs) this.#kick(id);
    }
  }

  #kick(walletId: string): void {
    const state = this.#wallets.get(walletId);
    if (state === undefined || this.#stopped) return;
    if (state.running !== undefined) {
      state.again = true;
      return;
    }
    state.running = (async () => {
      do {
        state.again = false;
        try {
          await this.#step(state);
        } catch (err) {
          if (classifyRpcFailure(err) === "unavailable") {
            const ids = [...state.rows.keys()];
            await this.#d.store.setLastError(ids, "RPC unavailable").catch(() => {});
            await sleep(500);
          } else {
            this.#d.logger.error({ err, walletId }, "sequencing a wallet failed; will retry");
            await sleep(1_000);
          }
          state.again = !this.#stopped;
        }
      } while (state.again && !this.#stopped && this.#wallets.get(walletId) === state);
    })().finally(() => {
      state.running = undefined;
    });
  }

  async #step(state: WalletState): Promise<void> {
    const rows = await this.#endOrphanedBatches(
      await this.#d.store.liveRowsOfWallet(state.wallet.id),
    );
    for (const row of state.rows.values())
      for (const a of row.attempts) this.#hashes.delete(a.hash.toLowerCase());
    state.rows = new Map(rows.map((r) => [r.id, r]));
    this.#indexHashes(state);
    if (rows.length === 0) {
      this.#forget(state.wallet.id);
      await this.#d.store.releaseLeases(this.#d.owner, [state.wallet.id]);
      return;
    }
    const hadRpcError = rows.some((r) => r.lastError !== null);
    await withWalletSigner(this.#d.keyStore, state.wallet, async (sign) => {
      await this.#checkSent(state, sign);
      await this.#sendQueued(state, sign);
    });
    if (hadRpcError)
      await this.#d.store.setLastError(
        rows.map((r) => r.id),
        null,
      );
  }

  #indexHashes(state: WalletState): void {
    for (const row of state.rows.values()) {
      if (row.state !== "sent") continue;
      for (const a of row.attempts)
        this.#hashes.set(a.hash.toLowerCase(), { walletId: state.wallet.id, rowId: row.id });
    }
  }

  /** Sends queued writes into the org's free in-flight slots: one DB write, one RPC batch. */
  async #sendQueued(state: WalletState, sign: TxSigner): Promise<void> {
    const rows = [...state.rows.values()];
    const inFlight = new Set(rows.filter((r) => r.state === "sent").map((r) => r.parentId ?? r.id));
    let free = this.options.maxInFlightPerOrg - inFlight.size;
    if (free <= 0) return;
    const picked: TxRow[] = [];
    for (const root of rows) {
      if (free <= 0) break;
      if (root.parentId !== null || root.state !== "queued" || inFlight.has(root.id)) continue;
      const members =
        root.kind === "batch-issue"
          ? rows.filter((r) => r.parentId === root.id && r.state === "queued")
          : [root];
      picked.push(...members);
      free--;
    }
    // Batches partly sent before a crash: their queued items go out too.
    for (const row of rows)
      if (row.parentId !== null && row.state === "queued" && inFlight.has(row.parentId))
        picked.push(row);
    if (picked.length === 0) return;

    const sendable = await this.#ensureGasLimits(state, picked);
    if (sendable.length === 0) return;
    let next = state.wallet.nextNonce;
    if (next === null) next = await this.#resyncNonce(state);
    const quote = await this.#d.fees.quote();
    const entries: Array<SentEntry & { row: TxRow; signed: SignedTx }> = sendable.map((row, i) => {
      const fees = this.#capFees(row, quote);
      const nonce = next + i;
      const signed = sign(this.#unsigned(row, nonce, fees));
      return {
        id: row.id,
        nonce,
        row,
        signed,
        attempt: attemptOf(signed, fees),
      };
    });
    await this.#d.store.markSent(state.wallet.id, next + entries.length, entries);
    state.wallet.nextNonce = next + entries.length;
    for (const e of entries) {
      e.row.state = "sent";
      e.row.nonce = e.nonce;
      e.row.attempts = [e.attempt];
      this.#hashes.set(e.attempt.hash.toLowerCase(), { walletId: state.wallet.id, rowId: e.id });
    }
    const answers = await this.#d.rpc.batch(
      entries.map((e) => ({ method: "eth_sendRawTransaction", params: [e.signed.raw] })),
    );
    // Refusals are handled from the highest nonce down, so a refused tail rewinds the counter.
    const refused: Array<{ row: TxRow; hash: string; reason: string }> = [];
    for (let i = 0; i < entries.length; i++) {
      const answer = answers[i];
      if (!(answer instanceof Error)) continue;
      const entry = entries[i]!;
      const kind = classifyRpcFailure(answer);
      if (kind === "already-known") continue;
      if (kind === "unavailable") throw answer;
      if (kind === "nonce-too-low") {
        // Our own earlier attempt may hold it, or another transaction: the nonce check decides.
        state.lastCheck = 0;
        continue;
      }
      if (kind === "underpriced") {
        await this.#reprice(state, entry.row, sign, quote, true);
        continue;
      }
      refused.push({
        row: entry.row,
        hash: entry.attempt.hash,
        reason: refusalReason(kind, answer),
      });
    }
    for (const r of refused.sort((a, b) => (b.row.nonce ?? 0) - (a.row.nonce ?? 0)))
      await this.#onRefused(state, r.row, r.hash, r.reason, sign);
  }

  /** Rows recorded without a gas limit get one now; a revert fails the row without a nonce. */
  async #ensureGasLimits(state: WalletState, rows: TxRow[]): Promise<TxRow[]> {
    const missing = rows.filter((r) => r.gasLimit === null);
    if (missing.length === 0) return rows;
    const answers = await this.#d.rpc.batch(
      missing.map((row) => ({
        method: "eth_estimateGas",
        params: [
          {
            from: row.fromAddress,
            to: row.toAddress,
            data: row.data,
            value: toHex(BigInt(row.value)),
          },
        ],
      })),
    );
    const failed: Array<{ id: string; reason: string; errorKind: "revert" | "rejected" }> = [];
    for (let i = 0; i < missing.length; i++) {
      const row = missing[i]!;
      const answer = answers[i];
      if (answer instanceof Error) {
        const kind = classifyRpcFailure(answer);
        if (kind === "unavailable") throw answer;
        failed.push({
          id: row.id,
          reason:
            kind === "revert" ? revertReason((answer as RpcResponseError).data) : answer.message,
          errorKind: kind === "revert" ? "revert" : "rejected",
        });
        continue;
      }
      const limit = (BigInt(answer as string) * BigInt(100 + this.options.gasMarginPercent)) / 100n;
      row.gasLimit = limit.toString();
      await this.#d.store.setGasLimit(row.id, limit);
    }
    if (failed.length > 0) {
      const ended = await this.#d.store.failUnsent(failed);
      this.#afterFinal(
        state,
        ended,
        failed.map((f) => f.id),
      );
    }
    const failedIds = new Set(failed.map((f) => f.id));
    return rows.filter((r) => !failedIds.has(r.id));
  }

  async #resyncNonce(state: WalletState): Promise<number> {
    const [pending, maxLive] = await Promise.all([
      this.#d.rpc.call<string>("eth_getTransactionCount", [state.wallet.address, "pending"]),
      this.#d.store.maxLiveNonce(state.wallet.id),
    ]);
    const next = Math.max(Number(BigInt(pending)), maxLive + 1);
    state.wallet.nextNonce = next;
    await this.#d.store.setNextNonce(state.wallet.id, next);
    return next;
  }

  /**
   * The node refused an attempt for good (insufficient funds, malformed...). When no other attempt
   * of the row can be mined, the write failed: its nonce is rewound when it was the last one
   * handed out, or else given to a self-transfer so later nonces are not stuck behind it.
   */
  async #onRefused(
    state: WalletState,
    row: TxRow,
    hash: string,
    reason: string,
    sign: TxSigner,
  ): Promise<void> {
    this.#d.logger.warn(
      { txId: row.id, nonce: row.nonce, reason },
      "the node refused a transaction",
    );
    await this.#d.store.refuseAttempt(row.id, hash, reason);
    row.attempts = row.attempts.map((a) => (a.hash === hash ? { ...a, refused: reason } : a));
    if (mayBeMined(row.attempts) || row.nonce === null) return;
    this.#hashes.delete(hash.toLowerCase());
    if (state.wallet.nextNonce === row.nonce + 1) {
      state.wallet.nextNonce = row.nonce;
      await this.#d.store.setNextNonce(state.wallet.id, row.nonce);
      const ended = await this.#d.store.failUnsent([{ id: row.id, reason, errorKind: "rejected" }]);
      this.#afterFinal(state, ended, [row.id]);
      return;
    }
    const hourAgo = Date.now() - 3_600_000;
    const fills = (this.#fills.get(state.wallet.id) ?? []).filter((t) => t > hourAgo);
    this.#fills.set(state.wallet.id, fills);
    if (fills.length >= this.options.maxFillsPerHour) {
      // The row stays sent: its re-pricings (refused too while the wallet cannot pay) and, at
      // its fee cap, the re-sending of its last attempt go on, so it is mined once an operator
      // funds the wallet. Its gap is counted and logged once, not at every refused re-pricing.
      if (!state.unfilled.has(row.id)) {
        state.unfilled.add(row.id);
        this.#d.logger.error(
          { txId: row.id, nonce: row.nonce, walletId: state.wallet.id, fills: fills.length },
          "nonce gap filler limit reached for this wallet; later writes wait for an operator",
        );
        this.#fillCounter.inc({ reason: "limit" });
      }
      return;
    }
    fills.push(Date.now());
    const quote = this.#capFees(row, await this.#d.fees.quote());
    const filler = sign({
      chainId: this.#d.chainId,
      nonce: row.nonce,
      to: state.wallet.address,
      data: "0x",
      value: 0n,
      gasLimit: 21_000n,
      maxFeePerGas: quote.maxFeePerGas,
      maxPriorityFeePerGas: quote.maxPriorityFeePerGas,
    });
    const fillerId = newTxId();
    await this.#d.store.replaceWithFiller(row, reason, {
      id: fillerId,
      attempt: attemptOf(filler, quote),
    });
    this.#fillCounter.inc({ reason: "refused" });
    this.#d.logger.warn(
      { txId: row.id, nonce: row.nonce, fillerId },
      "filling nonce gap with a self-transfer",
    );
    this.#hashes.set(filler.hash.toLowerCase(), { walletId: state.wallet.id, rowId: fillerId });
    this.#afterFinal(state, [row.id], [row.id]);
    state.again = true; // the filler row is loaded (and indexed) on the next step
    try {
      await this.#d.rpc.call("eth_sendRawTransaction", [filler.raw]);
    } catch (err) {
      if (classifyRpcFailure(err) === "unavailable") throw err;
      this.#d.logger.warn(
        { err, fillerId },
        "the gap filler was refused; it is re-sent when stuck",
      );
    }
  }

  /**
   * Compares the wallet's sent rows with the chain: rows whose nonce the chain consumed are
   * finalised from the receipt of whichever attempt was mined, or re-queued when none of theirs
   * was; stuck rows are re-priced (never above their fee cap).
   */
  async #checkSent(state: WalletState, sign: TxSigner): Promise<void> {
    const sent = [...state.rows.values()].filter((r) => r.state === "sent" && r.nonce !== null);
    if (sent.length === 0) return;
    const now = Date.now();
    if (!state.fresh && now - state.lastCheck < this.options.checkIntervalMs) return;
    state.lastCheck = now;
    const latest = Number(
      BigInt(
        await this.#d.rpc.call<string>("eth_getTransactionCount", [state.wallet.address, "latest"]),
      ),
    );
    const consumed = sent.filter((r) => r.nonce! < latest);
    if (consumed.length > 0) await this.#settleConsumed(state, consumed);
    const open = sent.filter((r) => r.nonce! >= latest && state.rows.get(r.id)?.state === "sent");
    if (state.fresh) {
      // Taken over from a process that may have died between recording and broadcasting.
      state.fresh = false;
      await this.#rebroadcast(open, sign);
      return;
    }
    if (open.length === 0) return;
    const quote = await this.#d.fees.quote();
    for (const row of open) {
      const last = row.attempts.at(-1);
      if (last === undefined || now - Date.parse(last.sentAt) < this.options.stuckAfterMs) continue;
      await this.#reprice(state, row, sign, quote, false);
    }
  }

  async #settleConsumed(state: WalletState, rows: TxRow[]): Promise<void> {
    const lookups = rows.flatMap((row) => row.attempts.map((a) => ({ row, hash: a.hash })));
    const answers = await this.#d.rpc.batch(
      lookups.map((l) => ({ method: "eth_getTransactionReceipt", params: [l.hash] })),
    );
    // By row id: the row object itself, not `state.rows` (the block watcher may have settled and
    // dropped it from the wallet's state in the meantime).
    const mined = new Map<string, { state: WalletState; row: TxRow; receipt: RawReceipt }>();
    lookups.forEach((l, i) => {
      const answer = answers[i];
      if (answer !== null && answer !== undefined && !(answer instanceof Error))
        mined.set(l.row.id, { state, row: l.row, receipt: answer as RawReceipt });
    });
    const unknown = rows.filter((r) => !mined.has(r.id));
    if (mined.size > 0) await this.#finaliseReceipts([...mined.values()]);
    if (unknown.length > 0) {
      for (const row of unknown)
        this.#d.logger.warn(
          { txId: row.id, nonce: row.nonce },
          "nonce consumed by another transaction; re-queueing",
        );
      await this.#d.store.requeue(unknown.map((r) => r.id));
      for (const row of unknown) {
        for (const a of row.attempts) this.#hashes.delete(a.hash.toLowerCase());
        row.state = "queued";
        row.nonce = null;
        row.attempts = [];
      }
      state.wallet.nextNonce = null; // resync from the chain before the next round
      state.again = true;
    }
  }

  /**
   * Sends the last attempt of each row again (same signed bytes: harmless when already known).
   * A row whose every attempt was refused is still open only when its gap could not be filled:
   * its last attempt is sent again too, and goes through once the wallet can pay for it.
   */
  async #rebroadcast(rows: TxRow[], sign: TxSigner): Promise<void> {
    const signed = rows.flatMap((row) => {
      const last =
        [...row.attempts].reverse().find((a) => a.refused === undefined) ?? row.attempts.at(-1);
      if (last === undefined || row.nonce === null) return [];
      return [sign(this.#unsigned(row, row.nonce, feesOf(last)))];
    });
    if (signed.length === 0) return;
    await this.#d.rpc.batch(
      signed.map((s) => ({ method: "eth_sendRawTransaction", params: [s.raw] })),
    );
  }

  /**
   * A replacement on the same nonce with both fee caps raised by at least 12.5%, never above the
   * row's fee cap or the operator ceiling; at the cap, the last attempt is sent again as it is.
   * A refused replacement is noted on the attempt and the row stays `sent`.
   */
  async #reprice(
    state: WalletState,
    row: TxRow,
    sign: TxSigner,
    quote: FeeQuote,
    immediate: boolean,
  ): Promise<void> {
    const last = row.attempts.at(-1);
    if (last === undefined || row.nonce === null) return;
    const bumped = bumpFees(feesOf(last), quote);
    const cap = this.#feeCap(row);
    if (bumped.maxFeePerGas > cap) {
      if (!state.capLogged.has(row.id)) {
        state.capLogged.add(row.id);
        this.#d.logger.warn(
          { txId: row.id, nonce: row.nonce, feeCap: cap.toString() },
          "stuck transaction is at its fee cap; re-sending it without a bump",
        );
      }
      await this.#rebroadcast([row], sign);
      return;
    }
    const signed = sign(this.#unsigned(row, row.nonce, bumped));
    const attempt = attemptOf(signed, bumped);
    this.#d.logger.info(
      { txId: row.id, nonce: row.nonce, maxFeePerGas: bumped.maxFeePerGas.toString(), immediate },
      "re-pricing stuck transaction",
    );
    await this.#d.store.addAttempts([{ id: row.id, attempt }]);
    row.attempts = [...row.attempts, attempt];
    this.#hashes.set(signed.hash.toLowerCase(), { walletId: state.wallet.id, rowId: row.id });
    try {
      await this.#d.rpc.call("eth_sendRawTransaction", [signed.raw]);
    } catch (err) {
      const kind = classifyRpcFailure(err);
      if (kind === "unavailable") throw err;
      if (kind === "already-known" || kind === "nonce-too-low") return;
      const reason = refusalReason(kind, err);
      this.#d.logger.warn(
        { txId: row.id, nonce: row.nonce, reason },
        "re-pricing refused; earlier attempts may still be mined, the write stays open",
      );
      await this.#d.store.refuseAttempt(row.id, signed.hash, reason);
      row.attempts = row.attempts.map((a) =>
        a.hash === signed.hash ? { ...a, refused: reason } : a,
      );
      if (!mayBeMined(row.attempts)) await this.#onRefused(state, row, signed.hash, reason, sign);
    }
  }

  readonly #onBlock = (head: number): void => {
    if (this.#stopped) return;
    if (this.#blockWork !== undefined) {
      this.#blockAgain = true;
      return;
    }
    this.#blockWork = (async () => {
      do {
        this.#blockAgain = false;
        try {
          await this.#processBlocks(this.#d.blocks.head);
        } catch (err) {
          if (classifyRpcFailure(err) !== "unavailable")
            this.#d.logger.warn({ err }, "reading block receipts failed; retrying");
          await sleep(200);
          this.#blockAgain = !this.#stopped;
        }
      } while (this.#blockAgain && !this.#stopped);
    })().finally(() => {
      this.#blockWork = undefined;
    });
    void head;
  };

  /** Receipts of every new block, matched against every sent hash of the leased wallets. */
  async #processBlocks(head: number): Promise<void> {
    if (this.#lastBlock < 0 || head - this.#lastBlock > 20) {
      // First block seen, or far behind: older receipts are found by the nonce checks.
      this.#lastBlock = head - 1;
      for (const state of this.#wallets.values()) state.lastCheck = 0;
    }
    if (head <= this.#lastBlock) return;
    if (this.#hashes.size === 0) {
      this.#lastBlock = head;
      return;
    }
    const numbers: number[] = [];
    for (let n = this.#lastBlock + 1; n <= head; n++) numbers.push(n);
    const answers = await this.#d.rpc.batch(
      numbers.map((n) => ({ method: "eth_getBlockReceipts", params: [toHex(BigInt(n))] })),
    );
    const found: Array<{ state: WalletState; row: TxRow; receipt: RawReceipt }> = [];
    for (const answer of answers) {
      if (answer instanceof Error) throw answer;
      for (const receipt of (answer as RawReceipt[] | null) ?? []) {
        const entry = this.#hashes.get(receipt.transactionHash.toLowerCase());
        if (entry === undefined) continue;
        const state = this.#wallets.get(entry.walletId);
        const row = state?.rows.get(entry.rowId);
        if (state !== undefined && row !== undefined && row.state === "sent")
          found.push({ state, row, receipt });
      }
    }
    this.#lastBlock = head;
    if (found.length > 0) await this.#finaliseReceipts(found);
  }

  /** Final states from receipts, in one write; wakes the wallets whose slots freed up. */
  async #finaliseReceipts(
    found: ReadonlyArray<{ state: WalletState; row: TxRow; receipt: RawReceipt }>,
  ): Promise<void> {
    const entries: Finalisation[] = [];
    for (const { row, receipt } of found) {
      const summary = {
        hash: receipt.transactionHash,
        blockNumber: Number(BigInt(receipt.blockNumber)),
        blockHash: receipt.blockHash,
        status: Number(BigInt(receipt.status)),
        gasUsed: BigInt(receipt.gasUsed).toString(),
        effectiveGasPrice: BigInt(receipt.effectiveGasPrice ?? "0x0").toString(),
      };
      if (summary.status === 1) {
        const facts = receiptFacts(receipt.logs, this.#d.contracts);
        entries.push({
          id: row.id,
          status: "confirmed",
          receipt: summary,
          result: { ...row.context, ...facts, txHash: summary.hash },
        });
      } else {
        entries.push({
          id: row.id,
          status: "failed",
          reason: await this.#revertReasonAt(row, summary.blockNumber),
          errorKind: "revert",
          receipt: summary,
        });
      }
    }
    const ended = await this.#d.store.finalise(entries);
    const byWallet = new Map<WalletState, string[]>();
    for (const { state, row } of found) {
      const ids = byWallet.get(state) ?? [];
      ids.push(row.id);
      byWallet.set(state, ids);
    }
    for (const [state, ids] of byWallet)
      this.#afterFinal(
        state,
        ended.filter((id) => ids.includes(id)),
        ids,
      );
  }

  /** Local bookkeeping once rows are final: drop their hashes, end batch parents, wake waiters. */
  #afterFinal(state: WalletState, ended: readonly string[], touched: readonly string[]): void {
    const parents = new Set<string>();
    for (const id of touched) {
      const row = state.rows.get(id);
      if (row === undefined) continue;
      for (const a of row.attempts) this.#hashes.delete(a.hash.toLowerCase());
      if (row.parentId !== null) parents.add(row.parentId);
      state.rows.delete(id);
    }
    for (const id of ended) this.#d.notifier.emit("final", id);
    if (parents.size > 0) {
      void this.#d.store
        .finishParents([...parents], summariseBatch)
        .then((done) => {
          for (const id of done) this.#d.notifier.emit("final", id);
        })
        .catch((err: unknown) => this.#d.logger.warn({ err }, "ending a batch failed"));
    }
    this.#kick(state.wallet.id);
  }

  async #revertReasonAt(row: TxRow, blockNumber: number): Promise<string> {
    try {
      await this.#d.rpc.call("eth_call", [
        {
          from: row.fromAddress,
          to: row.toAddress,
          data: row.data,
          value: toHex(BigInt(row.value)),
          gas: toHex(BigInt(row.gasLimit ?? "0")),
        },
        toHex(BigInt(blockNumber) - 1n),
      ]);
    } catch (error) {
      if (error instanceof RpcResponseError) return revertReason(error.data);
    }
    return "execution reverted";
  }

  #feeCap(row: TxRow): bigint {
    const reserved = row.feeCap === null ? undefined : BigInt(row.feeCap);
    const ceiling = this.options.maxFeePerGasWei;
    const caps = [reserved, ceiling].filter((c): c is bigint => c !== undefined);
    return caps.length === 0 ? 2n ** 255n : caps.reduce((a, b) => (a < b ? a : b));
  }

  /** The current quote, lowered to the row's cap (the tip never above the fee). */
  #capFees(row: TxRow, quote: FeeQuote): FeeQuote {
    const cap = this.#feeCap(row);
    const maxFeePerGas = quote.maxFeePerGas < cap ? quote.maxFeePerGas : cap;
    const maxPriorityFeePerGas =
      quote.maxPriorityFeePerGas < maxFeePerGas ? quote.maxPriorityFeePerGas : maxFeePerGas;
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  #unsigned(row: TxRow, nonce: number, fees: FeeQuote) {
    return {
      chainId: this.#d.chainId,
      nonce,
      to: row.toAddress ?? row.fromAddress,
      data: row.data ?? "0x",
      value: BigInt(row.value),
      gasLimit: BigInt(row.gasLimit ?? "21000"),
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };
  }
}

/**
 * What a batch parent keeps once every item is final: the counts. The per-item answer is built
 * from the item rows themselves (`writes/kinds/batch-issue.ts`), so it exists in one place.
 */
export function summariseBatch(parent: TxRow, children: TxRow[]): Record<string, unknown> {
  const issued = children.filter((c) => c.state === "confirmed").length;
  return { ...parent.context, issued, failed: children.length - issued };
}

function attemptOf(signed: SignedTx, fees: FeeQuote): TxAttempt {
  return {
    hash: signed.hash,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    sentAt: new Date().toISOString(),
  };
}

function feesOf(attempt: TxAttempt): FeeQuote {
  return {
    maxFeePerGas: BigInt(attempt.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(attempt.maxPriorityFeePerGas),
  };
}

function refusalReason(kind: string, error: unknown): string {
  if (kind === "insufficient-funds") return "Insufficient funds for gas and value";
  return error instanceof Error ? error.message : String(error);
}

function toHex(value: bigint): string {
  return "0x" + value.toString(16);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
