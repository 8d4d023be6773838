import { FinalWaiters } from "./final-waiters.js";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Registry } from "prom-client";
import type { Logger } from "pino";
import type { Database } from "../db/client.js";
import type { SignerBackend } from "../wallets/signer-backend.js";
import type { ContractAddresses } from "../chain/contracts/bindings.js";
import { BlockWatcher } from "../chain/block-watcher.js";
import { ChainReader } from "../chain/chain-reader.js";
import { DEFAULT_SEQUENCER_OPTIONS } from "./engine-context.js";
import { encodeGasChange, GasBook } from "./gas-book.js";
import { UnrecordedWrites } from "./unrecorded-writes.js";
import { HeadReads } from "../chain/head-reads.js";
import { describeFeeModel, FeeOracle } from "./fee-oracle.js";
import type { RpcClient } from "../chain/rpc/rpc-client.js";
import { isFinal } from "./tx-lifecycle.js";
import { GAS_CHANNEL, TxNotifier } from "./tx-notifier.js";
import { Sequencer, type SequencerOptions } from "./sequencer.js";
import { WalletWakes } from "./wallet-wakes.js";
import { TxStore, type TxRow } from "./tx-store.js";
import { isGroupRow } from "./tx-rows.js";
import { reconcileWithChain } from "./chain-reconciler.js";
import { RecoveryGate } from "./recovery-gate.js";

/** The indexer's cursor is read at most this often by one process (`isIndexed`). */
const CURSOR_REREAD_MS = 200;

/** What the engine is built from (`createAppContext` passes the app's own). */
export interface EngineDeps {
  rpc: RpcClient;
  database: Database;
  /** Where custodial keys live and sign (`LocalKeySigner` by default). */
  signers: SignerBackend;
  logger: Logger;
  contracts: ContractAddresses;
  chainId: number;
  /** Operator ceiling on any attempt's maxFeePerGas (`MAX_FEE_PER_GAS_GWEI`). */
  maxFeePerGasWei: bigint | undefined;
  /** Blocks above a write's block before it is `confirmed` (`CONFIRMATIONS`). */
  confirmations: number;
  /** Blocks a sent write may go unmined before it is marked stuck (`STUCK_AFTER_BLOCKS`). */
  stuckAfterBlocks?: number;
}

/** Tuning of the engine (tests and the benchmark shorten timeouts). */
export interface EngineOptions {
  sequencer?: Partial<SequencerOptions>;
  /** Head poll interval of the block watcher (default 100 ms). */
  blockPollMs?: number;
  /** Interval of the purge of expired `Idempotency-Key` records. Default 10 min. */
  purgeMs?: number;
  /** Registry for the sequencer's metrics. */
  registry?: Registry;
}

/**
 * The transaction machinery of one process, built once by `createAppContext` (as `ctx.engine`): RPC
 * client, fee oracle, store, notifier (LISTEN/NOTIFY), block watcher and sequencer. Write services record rows with
 * `store.record`, wake the sequencer with `submit` and wait with `waitForFinal`;
 * `start` starts its background parts and `stop` ends them (the composition root calls both).
 */
export class Engine {
  readonly rpc: RpcClient;
  readonly fees: FeeOracle;
  readonly store: TxStore;
  readonly reader: ChainReader;
  readonly notifier: TxNotifier;
  readonly blocks: BlockWatcher;
  readonly sequencer: Sequencer;
  /** Gas figures learned from receipts: writes of a known shape are not estimated. */
  readonly gas: GasBook;
  /** Balances and compliance views as of the head block, read once per key per block. */
  readonly head: HeadReads;
  /** Writes whose checked records are running here (`unrecorded-writes.ts`). */
  readonly unrecorded = new UnrecordedWrites();
  /** Whether a wallet still waits for its reconciliation with the chain after a restore. */
  readonly recovery: RecoveryGate;
  readonly owner: string;
  readonly #deps: EngineDeps;
  /** Synchronous writes waiting for their rows, woken by row id (`final-waiters.ts`). */
  readonly #finalWaiters: FinalWaiters;
  readonly #wakes: WalletWakes;
  readonly #purgeMs: number;
  #purgeTimer: NodeJS.Timeout | undefined;
  #stopped = true;
  /** The background retries of a reconciliation that failed at `start`. */
  #reconciling: Promise<void> | undefined;
  #notifierStarted: Promise<void> | undefined;
  #cursorRead: Promise<void> | undefined;
  #cursorReadAt = Number.NEGATIVE_INFINITY;

  constructor(deps: EngineDeps, options: EngineOptions = {}) {
    this.#deps = deps;
    this.owner = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.rpc = deps.rpc;
    this.fees = new FeeOracle(this.rpc);
    this.reader = new ChainReader(this.rpc, deps.contracts);
    this.store = new TxStore(deps.database);
    this.recovery = new RecoveryGate(deps.database);
    const logger = deps.logger.child({ component: "engine" });
    const connectionString = (deps.database.pool.options as { connectionString?: string })
      .connectionString;
    if (connectionString === undefined)
      throw new Error("the database pool has no connection string (needed for LISTEN/NOTIFY)");
    this.notifier = new TxNotifier(connectionString, logger);
    this.#wakes = new WalletWakes(deps.database);
    this.#finalWaiters = new FinalWaiters(async (ids) => {
      const rows = await Promise.all(ids.map((id) => this.store.getSoon(id)));
      return new Set(ids.filter((_, i) => rows[i] === undefined || isFinal(rows[i].state)));
    });
    this.notifier.on("final", (id) => this.#finalWaiters.notify(id));
    this.blocks = new BlockWatcher(this.rpc, logger, {
      ...(options.blockPollMs === undefined ? {} : { pollMs: options.blockPollMs }),
    });
    this.#purgeMs = options.purgeMs ?? 600_000;
    this.head = new HeadReads(this.reader, this.blocks);
    // The quote a write is checked against is read with each block while writes come (`warm`).
    this.blocks.on("block", () => this.fees.warm());
    // What this process learns, the others learn too (and the other way round): a process that
    // only records writes knows the figures of the engine's receipts. Published one after the
    // other, so the others see a shape's changes in the order they were made.
    let published: Promise<unknown> = Promise.resolve();
    this.gas = new GasBook(
      options.sequencer?.gasMarginPercent ?? DEFAULT_SEQUENCER_OPTIONS.gasMarginPercent,
      (change) => {
        const payload = encodeGasChange(this.owner, change);
        published = published
          .then(() => deps.database.pool.query("SELECT pg_notify($1, $2)", [GAS_CHANNEL, payload]))
          .catch((err: unknown) => logger.warn({ err }, "publishing a gas figure failed"));
      },
    );
    this.notifier.on("gas", (change, from) => {
      if (from !== this.owner) this.gas.apply(change);
    });
    this.sequencer = new Sequencer({
      store: this.store,
      rpc: this.rpc,
      fees: this.fees,
      signers: deps.signers,
      logger,
      contracts: deps.contracts,
      chainId: deps.chainId,
      owner: this.owner,
      blocks: this.blocks,
      notifier: this.notifier,
      gas: this.gas,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      options: {
        maxFeePerGasWei: deps.maxFeePerGasWei,
        confirmations: deps.confirmations,
        ...(deps.stuckAfterBlocks === undefined ? {} : { stuckAfterBlocks: deps.stuckAfterBlocks }),
        ...options.sequencer,
      },
    });
  }

  /**
   * Starts the notifier, the block watcher, the sequencer and the idempotency purge, and detects
   * the node's fee model (docs/transactions.md "Fees"). With `sequencer: false` (RELAYER_ROLE=api) only
   * what requests use starts: the notifier and the block watcher (the chain views per block);
   * recorded writes are sent by the processes that run the sequencer, woken by the record's
   * notification.
   */
  async start(options: { sequencer: boolean } = { sequencer: true }): Promise<void> {
    void this.fees.detect().then(
      (model) =>
        this.#deps.logger.info({ feeModel: describeFeeModel(model) }, "fee model detected"),
      (err: unknown) =>
        this.#deps.logger.warn({ err }, "fee model not detected; the first quote tries again"),
    );
    await this.#startNotifier();
    this.blocks.start();
    if (!options.sequencer) return;
    // After a restore (or with a wallet's nonce on chain ahead of its rows): the rows agree with
    // the chain before anything is sent (docs/recovery.md "After a restore"). A node or database
    // that fails it now: tried again every second in the background, the sequencer started
    // only once it is done (nothing could be sent meanwhile anyway).
    this.#stopped = false;
    if (await this.#reconcile()) {
      this.sequencer.start();
    } else {
      this.#reconciling = (async () => {
        while (!this.#stopped) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          if (this.#stopped) return;
          if (await this.#reconcile()) {
            this.sequencer.start();
            return;
          }
        }
      })();
    }
    this.#purgeTimer ??= setInterval(() => {
      void this.store
        .purgeExpiredIdempotencyKeys()
        .then((count) => {
          if (count > 0) this.#deps.logger.info({ count }, "purged expired idempotency keys");
        })
        .catch((err: unknown) => this.#deps.logger.warn({ err }, "idempotency key purge failed"));
    }, this.#purgeMs);
  }

  /** One reconciliation with the chain; false (logged) when it failed. */
  async #reconcile(): Promise<boolean> {
    try {
      await reconcileWithChain({
        database: this.#deps.database,
        rpc: this.rpc,
        contracts: this.#deps.contracts,
        logger: this.#deps.logger.child({ component: "reconciler" }),
        confirmations: this.#deps.confirmations,
        gate: this.recovery,
      });
      return true;
    } catch (err) {
      this.#deps.logger.warn(
        { err },
        "reconciling custodial wallets with the chain failed; nothing is sent until it is done (retrying)",
      );
      return false;
    }
  }

  #startNotifier(): Promise<void> {
    this.#notifierStarted ??= this.notifier.start().catch((err: unknown) => {
      this.#notifierStarted = undefined;
      throw err;
    });
    return this.#notifierStarted;
  }

  /**
   * Wakes the engine for a wallet whose rows were just recorded (call once they committed): this
   * process's sequencer, and, unless it holds the wallet's lease, the other processes'
   * (`WalletWakes`: one `NOTIFY` for the wallets of 10 ms). A lease that moves meanwhile is
   * caught by the new holder's claim round (`claimIntervalMs`).
   */
  submit(walletId: string): void {
    if (!this.sequencer.holds(walletId))
      this.#wakes
        .send(walletId)
        .catch((err: unknown) =>
          this.#deps.logger.warn({ err, walletId }, "waking the other processes failed"),
        );
    this.sequencer.wake(walletId);
  }

  /**
   * Waits until a root row is final (woken by notifications, not by polling it) and, when it has
   * a receipt, until the indexer has applied that block, so every read shows the write's effect.
   * Returns the row as it stands when the wait ends (final, or still live after `timeoutMs`).
   */
  async waitForFinal(txId: string, timeoutMs: number, justRecorded = false): Promise<TxRow> {
    const deadline = Date.now() + timeoutMs;
    await this.#startNotifier();
    let row: TxRow | undefined;
    // Listening before the first read: a notification after it is never missed.
    const signal = this.#finalWaiters.listen(txId);
    try {
      // A row recorded a moment ago by this request cannot be final yet: no read needed.
      let read = !justRecorded;
      for (;;) {
        if (read) {
          row = await this.store.getSoon(txId);
          if (row === undefined) throw new Error(`transaction ${txId} vanished`);
          if (isFinal(row.state)) break;
        }
        read = true;
        if (!(await signal.next(deadline - Date.now()))) break;
      }
    } finally {
      signal.close();
    }
    row ??= await this.store.get(txId);
    if (row === undefined) throw new Error(`transaction ${txId} vanished`);
    const block = await this.receiptBlockOf(row);
    if (block !== undefined) await this.waitIndexed(block, Math.max(0, deadline - Date.now()));
    return row;
  }

  /** The highest receipt block of a final row (a batch: of its items), if any. */
  async receiptBlockOf(row: TxRow): Promise<number | undefined> {
    if (!isFinal(row.state)) return undefined;
    if (!isGroupRow(row)) return row.receipt?.blockNumber;
    const blocks = (await this.store.children(row.id)).flatMap((c) =>
      c.receipt === null ? [] : [c.receipt.blockNumber],
    );
    return blocks.length === 0 ? undefined : Math.max(...blocks);
  }

  /**
   * Whether the indexer has applied `block`: from its notifications, else from its cursor row
   * (read when no notification was seen yet, or when `reread`).
   */
  async isIndexed(block: number, reread = true): Promise<boolean> {
    if (this.notifier.indexedBlock >= block) return true;
    if (!reread && this.notifier.indexedBlock >= 0) return false;
    await this.#readCursor();
    return this.notifier.indexedBlock >= block;
  }

  /**
   * Reads the indexer's cursor, once for every caller at a time: a caller joins the read in
   * flight, and none is sent within `CURSOR_REREAD_MS` of the last. Hundreds of waiting writes'
   * safety checks cost one query, not one each. The cursor only moves forward, so a value a few
   * milliseconds old can only make a caller wait for the next notification, never show an
   * effect early.
   */
  #readCursor(): Promise<void> {
    if (this.#cursorRead !== undefined) return this.#cursorRead;
    if (performance.now() - this.#cursorReadAt < CURSOR_REREAD_MS) return Promise.resolve();
    this.#cursorRead = this.#deps.database.pool
      .query<{ n: string }>("SELECT block_number::text AS n FROM indexer_cursor WHERE id = 'main'")
      .then((result) => {
        const n = result.rows[0]?.n;
        if (n !== undefined) this.notifier.noteIndexed(Number(n));
      })
      .finally(() => {
        this.#cursorRead = undefined;
        this.#cursorReadAt = performance.now();
      });
    return this.#cursorRead;
  }

  /** Resolves true once the indexer has applied `block`, false after `timeoutMs`. */
  async waitIndexed(block: number, timeoutMs: number): Promise<boolean> {
    await this.#startNotifier();
    return this.notifier.waitUntil(
      "indexed",
      (n) => n >= block,
      (reason) => this.isIndexed(block, reason === "safety"),
      timeoutMs,
      1_000,
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#reconciling;
    this.#reconciling = undefined;
    if (this.#purgeTimer !== undefined) clearInterval(this.#purgeTimer);
    this.#purgeTimer = undefined;
    await this.sequencer.stop();
    this.#finalWaiters.stop();
    this.blocks.stop();
    await this.notifier.stop();
    this.#notifierStarted = undefined;
  }
}
