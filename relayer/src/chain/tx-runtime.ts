import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { AppContext } from "../context.js";
import { RpcUnavailableError } from "../errors.js";
import { ChainReader } from "./chain-reader.js";
import { FeeOracle } from "./fee-oracle.js";
import { NonceAllocator } from "./nonce-allocator.js";
import { OrgSlots } from "./org-slots.js";
import { RpcClient } from "./rpc-client.js";
import { TxDispatcher, type TxDispatcherOptions } from "./tx-dispatcher.js";
import { TxEngine, type TxEngineOptions } from "./tx-engine.js";
import { TxQueue } from "./tx-queue.js";
import { isFinal, TxStore, type TxRow } from "./tx-store.js";

/** Tuning of the transaction runtime (tests and the benchmark shorten timeouts). */
export interface TxRuntimeOptions {
  engine?: Partial<TxEngineOptions>;
  dispatcher?: Partial<TxDispatcherOptions>;
}

/**
 * The transaction machinery of one process, built once per `AppContext`: RPC client, fee oracle,
 * nonce allocator, store, engine, queue and dispatcher. Write services use `submit` and
 * `waitForFinal`; `startTxWorkers` starts the dispatcher.
 */
export class TxRuntime {
  readonly rpc: RpcClient;
  readonly fees: FeeOracle;
  readonly store: TxStore;
  readonly nonces: NonceAllocator;
  readonly engine: TxEngine;
  readonly queue: TxQueue;
  readonly dispatcher: TxDispatcher;
  readonly owner: string;
  readonly reader: ChainReader;

  constructor(ctx: AppContext, options: TxRuntimeOptions = {}) {
    this.owner = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.rpc = new RpcClient(ctx.provider._getConnection().url);
    this.fees = new FeeOracle(this.rpc);
    this.reader = new ChainReader(this.rpc, ctx.contracts);
    this.store = new TxStore(ctx.database);
    this.nonces = new NonceAllocator(ctx.database, this.rpc);
    const logger = ctx.logger.child({ component: "tx-engine" });
    const connectionString = (ctx.database.pool.options as { connectionString?: string })
      .connectionString;
    if (connectionString === undefined)
      throw new Error("the database pool has no connection string (needed by pg-boss)");
    this.queue = new TxQueue(connectionString, logger);
    this.engine = new TxEngine({
      store: this.store,
      rpc: this.rpc,
      fees: this.fees,
      nonces: this.nonces,
      keyStore: ctx.keyStore,
      logger,
      contracts: ctx.contracts,
      chainId: ctx.config.chainId,
      owner: this.owner,
      enqueue: (txId, orgId) => this.submit(txId, orgId),
      ...(options.engine === undefined ? {} : { options: options.engine }),
    });
    this.dispatcher = new TxDispatcher({
      queue: this.queue,
      engine: this.engine,
      store: this.store,
      slots: new OrgSlots(ctx.database),
      logger,
      owner: this.owner,
      ...(options.dispatcher === undefined ? {} : { options: options.dispatcher }),
    });
  }

  /** Queues a recorded root row for execution (durably) and wakes the local workers. */
  async submit(txId: string, orgId: string): Promise<void> {
    await this.queue.send({ txId, orgId });
    this.dispatcher.wake();
  }

  /**
   * Waits until a root row is final and returns it. Wakes on local engine progress and polls the
   * database (work may run in another process).
   *
   * @param options.timeoutMs give up and return the live row after this long
   * @param options.failOnRpcDown throw `RpcUnavailableError` while the row reports the node down
   */
  async waitForFinal(
    txId: string,
    options: { timeoutMs: number; failOnRpcDown: boolean },
  ): Promise<TxRow> {
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      const row = await this.store.get(txId);
      if (row === undefined) throw new Error(`transaction ${txId} vanished`);
      if (isFinal(row)) return row;
      if (options.failOnRpcDown && row.lastError === "RPC unavailable")
        throw new RpcUnavailableError({ details: { txId } });
      const left = deadline - Date.now();
      if (left <= 0) return row;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.engine.off("progress", onProgress);
          resolve();
        };
        const onProgress = (id: string) => {
          if (id === txId) done();
        };
        const timer = setTimeout(done, Math.min(left, 200));
        this.engine.on("progress", onProgress);
      });
    }
  }

  async stop(): Promise<void> {
    await this.dispatcher.stop();
    await this.queue.stop();
  }
}

const runtimes = new WeakMap<AppContext, TxRuntime>();

/** The runtime of `ctx`, created on first use. */
export function txRuntimeOf(ctx: AppContext, options?: TxRuntimeOptions): TxRuntime {
  let runtime = runtimes.get(ctx);
  if (runtime === undefined) {
    runtime = new TxRuntime(ctx, options);
    runtimes.set(ctx, runtime);
  }
  return runtime;
}
