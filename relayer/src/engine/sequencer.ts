import { Counter, type Registry } from "prom-client";
import { Batcher } from "../db/batcher.js";
import { HsmUnavailableError } from "../errors.js";
import type { LeasedTxWrites } from "./leased-tx-writes.js";
import { LeaseLostError, RoundRowsChangedError, WritesHeldError } from "./leased-tx-writes.js";
import { sendCancels, sendSpeedUps } from "./repricer.js";
import { classifyRpcFailure } from "../chain/rpc/rpc-errors.js";
import { isGroupRow, type TxRow } from "./tx-rows.js";
import type { LeasedWallet } from "./tx-store.js";
import { withWalletSigner } from "../wallets/signer-backend.js";
import {
  DEFAULT_SEQUENCER_OPTIONS,
  type EngineContext,
  type SequencerDeps,
  type SequencerOptions,
} from "./engine-context.js";
import { sendQueued } from "./sender.js";
import { SerialLoop } from "./serial-loop.js";
import { checkDue, checkSent, processBlocks } from "./settler.js";
import { WalletBook, type WalletState } from "./wallet-book.js";

export { DEFAULT_SEQUENCER_OPTIONS, type SequencerDeps, type SequencerOptions };

/** How long a wallet woken by a new write waits for others to share its round's statements. */
const WAKE_LINGER_MS = 20;

/**
 * The transaction engine's scheduler: which wallets this process sequences (leases), when each
 * one's step runs, and following blocks. Each wallet's step settles its sent rows
 * (`engine/settler.ts`) and sends its queued ones (`engine/sender.ts`); re-pricing and gap
 * filling are in `engine/repricer.ts`, fees in `engine/fee-policy.ts`, and every decision in
 * `engine/decisions.ts` (docs/transactions.md). Every store write is checked against the
 * wallet's lease (`LeasedTxWrites`): a process that lost a wallet changes nothing of it.
 */
export class Sequencer implements EngineContext {
  readonly d: SequencerDeps;
  readonly options: SequencerOptions;
  readonly writes: LeasedTxWrites;
  readonly book = new WalletBook();
  readonly fillCounter: Counter<"reason">;
  readonly repriceCounter: Counter<"outcome">;
  readonly stuckCounter: Counter<"reason">;
  readonly fills = new Map<string, number[]>();
  readonly blockReceipts: { unsupportedSince: number | undefined } = {
    unsupportedSince: undefined,
  };
  readonly #blockLoop: SerialLoop;
  #lastBlock = -1;
  #timers: NodeJS.Timeout[] = [];
  #stopped = true;
  #claiming: Promise<void> | undefined;
  /**
   * Wallets woken by new writes in one turn are claimed in one statement: a hundred organizations
   * whose queues empty and refill between blocks claimed their wallets one statement each.
   */
  readonly #claimSoon = new Batcher<string, undefined>(async (walletIds) => {
    await this.#claim([...new Set(walletIds)]);
    return walletIds.map(() => undefined);
  });
  /**
   * Wallets woken by new writes, run together `WAKE_LINGER_MS` after the first: their rounds
   * share the statements that load their rows and record their sends (`markSent`), instead of
   * one round, one statement and one commit per write when writes arrive one by one.
   */
  readonly #wakeSoon = new Batcher<string, undefined>(
    (walletIds) => {
      // A wallet given back meanwhile (`#releaseIdle`) is claimed again, not skipped.
      for (const id of new Set(walletIds))
        if (this.book.has(id)) this.kick(id);
        else if (!this.#stopped) void this.#claimSoon.add(id).catch(() => undefined);
      return Promise.resolve(walletIds.map(() => undefined));
    },
    { lingerMs: WAKE_LINGER_MS },
  );

  constructor(deps: SequencerDeps & { registry?: Registry; options?: Partial<SequencerOptions> }) {
    this.d = deps;
    this.options = { ...DEFAULT_SEQUENCER_OPTIONS, ...deps.options };
    this.writes = deps.store.leasedBy(deps.owner);
    this.fillCounter = new Counter({
      name: "rwa_nonce_gap_fills_total",
      help: "Self-transfers sent to fill a nonce whose write the node refused",
      labelNames: ["reason"] as const,
      registers: deps.registry === undefined ? [] : [deps.registry],
    });
    this.repriceCounter = new Counter({
      name: "rwa_tx_repricings_total",
      help: "Stuck transactions re-priced (bumped), or left at their fee cap and sent again unchanged (at-cap)",
      labelNames: ["outcome"] as const,
      registers: deps.registry === undefined ? [] : [deps.registry],
    });
    this.stuckCounter = new Counter({
      name: "rwa_tx_stuck_total",
      help: "Sent writes marked stuck, once each: fee-cap (re-priced up to their reserved fee cap and still not mined), not-mined (not mined within STUCK_AFTER_BLOCKS blocks), nonce-gap (held that long by a lower nonce not mined)",
      labelNames: ["reason"] as const,
      registers: deps.registry === undefined ? [] : [deps.registry],
    });
    this.#blockLoop = new SerialLoop(
      () => this.#followBlocks(),
      async (err) => {
        if (classifyRpcFailure(err) !== "unavailable")
          this.d.logger.warn({ err }, "reading block receipts failed; retrying");
        await sleep(200);
        return !this.#stopped;
      },
      () => !this.#stopped,
    );
  }

  /** Starts claiming wallets with work, following blocks and listening for new work. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.d.notifier.on("queued", this.#onQueued);
    this.d.blocks.on("block", this.#onBlock);
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
    this.d.notifier.off("queued", this.#onQueued);
    this.d.blocks.off("block", this.#onBlock);
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const running = this.book.states().flatMap((s) => (s.loop.running ? [s.loop.running] : []));
    await Promise.race([
      Promise.allSettled([...running, this.#blockLoop.running, this.#claiming]),
      new Promise((r) => setTimeout(r, timeoutMs)),
    ]);
    await this.d.store.releaseLeases(this.d.owner).catch(() => {});
    for (const id of this.book.ids()) this.book.forget(id);
  }

  /** Whether this sequencer runs and holds the wallet's lease (a `wake` reaches its work). */
  holds(walletId: string): boolean {
    return !this.#stopped && this.book.has(walletId);
  }

  /** Wakes the wallet's sequencing now (a write was recorded in this process). */
  wake(walletId: string): void {
    this.#onQueued(walletId);
  }

  /** Runs the wallet's step now, or once more after the one in progress. */
  kick(walletId: string): void {
    if (this.#stopped) return;
    this.book.get(walletId)?.loop.kick();
  }

  /** Local bookkeeping once rows are final: drop their hashes, end groups, wake waiters. */
  afterFinal(state: WalletState, ended: readonly string[], touched: readonly string[]): void {
    const parents = new Set<string>();
    for (const id of touched) {
      const row = this.book.drop(state, id);
      if (row?.parentId !== null && row?.parentId !== undefined) parents.add(row.parentId);
    }
    for (const id of ended) this.d.notifier.emit("final", id);
    if (parents.size > 0) {
      void this.d.store
        .finishParents([...parents], summariseBatch)
        .then((done) => {
          for (const id of done) this.d.notifier.emit("final", id);
        })
        .catch((err: unknown) => this.d.logger.warn({ err }, "ending a batch failed"));
    }
    this.kick(state.wallet.id);
  }

  readonly #onQueued = (walletId: string): void => {
    if (this.#stopped) return;
    if (!this.book.has(walletId)) {
      void this.#claimSoon.add(walletId).catch(() => undefined);
      return;
    }
    void this.#wakeSoon.add(walletId); // a kick after stop() does nothing
  };

  async #claimAll(): Promise<void> {
    if (this.#stopped || this.#claiming !== undefined) return;
    this.#claiming = (async () => {
      try {
        await this.#releaseIdle();
        const withWork = await this.d.store.walletsWithWork();
        await this.#claim([...new Set([...withWork, ...this.book.ids()])]);
      } catch (err) {
        this.d.logger.warn({ err }, "claiming wallets failed");
      }
    })().finally(() => {
      this.#claiming = undefined;
    });
    await this.#claiming;
  }

  /**
   * Gives back, in one statement, the leases of wallets whose queue has been empty for
   * `idleReleaseMs` (their step not running), unless a write for one committed meanwhile (the
   * statement checks). A wallet is forgotten only once its lease is given back; one woken while
   * the statement ran is claimed again at once. A write recorded later claims it again
   * (`#onQueued`), here or in another process.
   */
  async #releaseIdle(): Promise<void> {
    const now = Date.now();
    const idle = this.book
      .states()
      .filter(
        (s) =>
          s.idleSince !== undefined &&
          now - s.idleSince >= this.options.idleReleaseMs &&
          s.loop.running === undefined,
      );
    if (idle.length === 0) return;
    const released = new Set(
      await this.d.store.releaseIdleLeases(
        this.d.owner,
        idle.map((s) => s.wallet.id),
      ),
    );
    for (const state of idle) {
      const id = state.wallet.id;
      // A step that started meanwhile finds the lease gone at its first write
      // (`LeaseLostError`) and the wallet is forgotten then: never two states of one wallet.
      if (!released.has(id) || this.book.get(id) !== state || state.loop.running !== undefined)
        continue;
      this.book.forget(id);
      // Woken by a write committed as the lease went back: claimed again at once.
      if (state.idleSince === undefined) void this.#claimSoon.add(id).catch(() => undefined);
    }
  }

  async #claim(walletIds: string[]): Promise<void> {
    if (walletIds.length === 0) return;
    let claimed: LeasedWallet[];
    try {
      claimed = await this.d.store.claimWallets(this.d.owner, walletIds, this.options.leaseMs);
    } catch (err) {
      this.d.logger.warn({ err }, "claiming wallets failed");
      return;
    }
    const held = new Set(claimed.map((w) => w.id));
    for (const id of walletIds) if (!held.has(id) && this.book.has(id)) this.book.forget(id);
    for (const wallet of claimed) {
      if (this.#stopped) return;
      if (!this.book.has(wallet.id)) this.book.add(this.#newState(wallet));
      this.kick(wallet.id);
    }
  }

  #newState(wallet: LeasedWallet): WalletState {
    const state: WalletState = {
      wallet,
      rows: new Map(),
      loop: new SerialLoop(
        () => this.#step(state),
        (err) => this.#stepFailed(state, err),
        () => !this.#stopped && this.book.get(wallet.id) === state,
      ),
      fresh: true,
      lastCheck: 0,
      capLogged: new Set(),
      unfilled: new Set(),
      broadcastAt: new Map(),
      openSince: new Map(),
      idleSince: undefined,
    };
    return state;
  }

  async #stepFailed(state: WalletState, err: unknown): Promise<boolean> {
    // Suspended mid-round: the next run loads only the rows not held, and lets the wallet go
    // when none is live (forgetting it here would keep its lease until the lease expires).
    if (err instanceof WritesHeldError) return !this.#stopped;
    // A row of the round was cancelled as it was recorded: nothing was written or sent; the
    // next run loads the rows as they are now.
    if (err instanceof RoundRowsChangedError) return !this.#stopped;
    if (err instanceof LeaseLostError) {
      this.d.logger.warn(
        { walletId: state.wallet.id },
        "lost a wallet's lease; another process sequences it",
      );
      this.book.forget(state.wallet.id);
      return false;
    }
    if (classifyRpcFailure(err) === "unavailable") {
      await this.d.store.setLastError([...state.rows.keys()], "RPC unavailable").catch(() => {});
      await sleep(500);
    } else if (err instanceof HsmUnavailableError) {
      // The wallet's token is away (wallets/pkcs11-token.ts logs that once): the rows say why
      // they wait (`lastError`) and are signed once it answers.
      await this.d.store.setLastError([...state.rows.keys()], err.message).catch(() => {});
      await sleep(1_000);
    } else {
      this.d.logger.error(
        { err, walletId: state.wallet.id },
        "sequencing a wallet failed; will retry",
      );
      await sleep(1_000);
    }
    return !this.#stopped;
  }

  /** Wallets with sent rows get their periodic check (nonces, stuck transactions). */
  #kickSent(): void {
    const now = Date.now();
    for (const state of this.book.states())
      if (checkDue(this, state, now)) this.kick(state.wallet.id);
  }

  async #step(state: WalletState): Promise<void> {
    const rows = await this.#endOrphanedGroups(
      await this.#expireOverdue(state, await this.d.store.liveRowsOfWallet(state.wallet.id)),
    );
    this.book.load(state, rows);
    if (rows.length === 0) {
      // Kept a while, then given back by the claim round (`#releaseIdle`).
      state.idleSince ??= Date.now();
      return;
    }
    state.idleSince = undefined;
    const hadRpcError = rows.some((r) => r.lastError !== null);
    await withWalletSigner(this.d.signers, state.wallet, async (sign) => {
      // Cancels asked for since the last step go out first: a write the caller wants gone
      // should not wait for the periodic check.
      await sendCancels(this, state, sign);
      await sendSpeedUps(this, state, sign);
      await checkSent(this, state, sign);
      await sendQueued(this, state, sign);
    });
    if (hadRpcError)
      await this.d.store.setLastError(
        rows.map((r) => r.id),
        null,
      );
  }

  /**
   * Ends `expired` the rows among `rows` whose deadline (`validForSeconds`) passed before they
   * were sent, before anything else of the step (a wallet whose node is down still expires
   * them). The database's clock decides (`expireUnsent`); `markSent` refuses a round holding a
   * row whose deadline passed meanwhile. Returns `rows` without the rows ended.
   */
  async #expireOverdue(state: WalletState, rows: TxRow[]): Promise<TxRow[]> {
    // A second early: this process's clock may be behind the database's, which decides (a row
    // the database holds overdue would otherwise have its rounds refused until this clock caught up).
    const now = Date.now() + 1_000;
    const overdue = rows.some(
      (r) =>
        r.state === "queued" &&
        r.nonce === null &&
        r.validUntil !== null &&
        r.validUntil.getTime() <= now,
    );
    if (!overdue) return rows;
    const ended = new Set(await this.writes.expireUnsent(state.wallet.id));
    for (const id of ended) this.d.notifier.emit("final", id);
    return rows.filter((r) => !ended.has(r.id));
  }

  /**
   * Ends the live group rows among `rows` whose items are all final. A group is normally ended
   * as its last item settles (`afterFinal`); that can be lost (the process dies in between, or
   * the statement fails), and nothing else would end it: it would stay `sent` forever and its
   * wallet leased. Returns `rows` without the groups ended.
   */
  async #endOrphanedGroups(rows: TxRow[]): Promise<TxRow[]> {
    const withLiveItems = new Set(rows.flatMap((r) => (r.parentId === null ? [] : [r.parentId])));
    const orphans = rows.filter((r) => isGroupRow(r) && !withLiveItems.has(r.id));
    if (orphans.length === 0) return rows;
    const ended = new Set(
      await this.d.store.finishParents(
        orphans.map((r) => r.id),
        summariseBatch,
      ),
    );
    for (const id of ended) this.d.notifier.emit("final", id);
    return rows.filter((r) => !ended.has(r.id));
  }

  readonly #onBlock = (): void => {
    this.#blockLoop.kick();
  };

  async #followBlocks(): Promise<void> {
    const head = this.d.blocks.head;
    if (this.#lastBlock < 0 || head - this.#lastBlock > 20) {
      // First block seen, or far behind: older receipts are found by the nonce checks.
      this.#lastBlock = head - 1;
      for (const state of this.book.states()) state.lastCheck = 0;
    }
    if (head <= this.#lastBlock) return;
    this.#lastBlock = await processBlocks(this, this.#lastBlock, head);
  }
}

/**
 * What a group row keeps once every item is final: the counts. The per-item answer is built
 * from the item rows themselves (`writes/kinds/batch-issue.ts`), so it exists in one place.
 */
export function summariseBatch(parent: TxRow, children: TxRow[]): Record<string, unknown> {
  const issued = children.filter((c) => c.state === "confirmed").length;
  return { ...parent.context, issued, failed: children.length - issued };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
