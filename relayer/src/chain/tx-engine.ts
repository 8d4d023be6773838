import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { ContractAddresses } from "../context.js";
import { transactions, wallets } from "../db/schema/index.js";
import { RpcUnavailableError } from "../errors.js";
import type { KeyStore } from "../wallets/key-store.js";
import { eq } from "drizzle-orm";
import { bumpFees, type FeeOracle, type FeeQuote } from "./fee-oracle.js";
import type { NonceAllocator } from "./nonce-allocator.js";
import { receiptFacts, type RawLog } from "./receipt-events.js";
import { revertReason } from "./revert-reasons.js";
import type { RpcClient } from "./rpc-client.js";
import { classifyRpcFailure, RpcResponseError } from "./rpc-errors.js";
import { newTxId } from "./tx-ids.js";
import { isFinal, type TxRow, type TxStore } from "./tx-store.js";
import { withWalletSigner, type TxSigner } from "./wallet-signer.js";

/** Tuning knobs of the engine (defaults suit a 1 s block chain). */
export interface TxEngineOptions {
  /** Receipt poll interval while transactions are pending. Default 100 ms. */
  receiptPollMs: number;
  /** Re-price a transaction not mined after this long. Default 15 s. */
  stuckAfterMs: number;
  /** Lease length on a driven row; renewed at a third of it. Default 15 s. */
  leaseMs: number;
  /** Gas margin over `eth_estimateGas`, in percent. Default 25. */
  gasMarginPercent: number;
}

export const DEFAULT_ENGINE_OPTIONS: TxEngineOptions = {
  receiptPollMs: 100,
  stuckAfterMs: 15_000,
  leaseMs: 15_000,
  gasMarginPercent: 25,
};

interface RawReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  gasUsed: string;
  effectiveGasPrice: string;
  logs: RawLog[];
}

/** What the engine needs. */
export interface TxEngineDeps {
  store: TxStore;
  rpc: RpcClient;
  fees: FeeOracle;
  nonces: NonceAllocator;
  keyStore: KeyStore;
  logger: Logger;
  contracts: ContractAddresses;
  chainId: number;
  /** Identifies this process in leases. */
  owner: string;
  /** Schedules a root row for execution (used for gap fillers). */
  enqueue: (txId: string, orgId: string) => Promise<void>;
  options?: Partial<TxEngineOptions>;
}

/**
 * Drives recorded transactions to a final state: nonce (under the wallet row lock), fees, signing
 * (key decrypted only for the signing scope), broadcast, receipt polling, re-pricing of stuck
 * transactions (same nonce, both fee caps +12.5% or more), resync after "nonce too low" or a lost
 * nonce, and decoding of reverts and events. Before any resend it looks for a receipt of every
 * hash already broadcast. Every step is written to `transactions` first, so any process can
 * resume a row where a dead one stopped.
 *
 * Emits `progress` with the root id after each state change (waiting API calls listen).
 */
export class TxEngine extends EventEmitter<{ progress: [rootId: string] }> {
  readonly #d: TxEngineDeps;
  readonly options: TxEngineOptions;

  constructor(deps: TxEngineDeps) {
    super();
    this.setMaxListeners(0);
    this.#d = deps;
    this.options = { ...DEFAULT_ENGINE_OPTIONS, ...deps.options };
  }

  /**
   * Works on a root row (a single transaction or a batch parent) that this process has leased,
   * until every member is final.
   *
   * @throws RpcUnavailableError when the node is unreachable (the row stays live: retry later)
   */
  async drive(rootId: string): Promise<void> {
    const root = await this.#d.store.get(rootId);
    if (root === undefined || isFinal(root)) return;
    const members = await this.#d.store.members(root);
    const [wallet] = await this.#d.store.database.db
      .select()
      .from(wallets)
      .where(eq(wallets.id, root.walletId));
    if (wallet === undefined) throw new Error(`wallet ${root.walletId} of ${root.id} not found`);
    try {
      await this.#advance(root, members, wallet);
      if (root.kind === "batch-issue") await this.#finishParent(root);
      await this.#d.store.setLastError([root.id], null);
    } catch (error) {
      if (classifyRpcFailure(error) === "unavailable") {
        await this.#d.store
          .setLastError([root.id, ...members.map((m) => m.id)], "RPC unavailable")
          .catch(() => {});
        this.emit("progress", root.id);
        throw error instanceof RpcUnavailableError
          ? error
          : new RpcUnavailableError({ cause: error });
      }
      throw error;
    } finally {
      this.emit("progress", root.id);
    }
  }

  async #advance(
    root: TxRow,
    initial: TxRow[],
    wallet: typeof wallets.$inferSelect,
  ): Promise<void> {
    const store = this.#d.store;
    const rows = new Map(initial.map((r) => [r.id, r]));
    const reload = async (id: string) => {
      const fresh = await store.get(id);
      if (fresh !== undefined) rows.set(id, fresh);
      return fresh;
    };
    const live = () => [...rows.values()].filter((r) => !isFinal(r));

    await withWalletSigner(this.#d.keyStore, wallet, async (sign) => {
      let firstPass = true;
      for (let round = 0; round < 50 && live().length > 0; round++) {
        // 1. Gas limits for rows recorded without one.
        for (const row of live()) {
          if (row.gasLimit === null && row.nonce === null) {
            const gas = await this.#estimate(row);
            if (gas === undefined) await reload(row.id);
          }
        }
        // 2. Nonces (consecutive, in item order) for rows without one.
        const needNonce = live().filter((r) => r.nonce === null);
        if (needNonce.length > 0) {
          const quote = await this.#d.fees.quote();
          await this.#d.nonces.assign(
            wallet.id,
            wallet.address,
            needNonce.map((r) => r.id),
            quote,
          );
          for (const r of needNonce) await reload(r.id);
        }
        // 3. Before sending anything again: receipts of every hash already broadcast.
        if (firstPass) {
          await this.#checkReceipts(live(), reload);
          firstPass = false;
        }
        // 4. Broadcast rows that have no attempt yet (or whose attempts were never accepted).
        // Re-sending an attempt already on the node is harmless (same signed bytes: "already known").
        const toSend = live().filter((r) => r.nonce !== null);
        await Promise.all(toSend.map((r) => this.#broadcast(r, sign, wallet, reload)));
        if (root.kind === "batch-issue") await store.markParentSent(root.id);
        this.emit("progress", root.id);
        // 5. Wait for receipts; re-price stuck ones; detect lost nonces.
        const needsAnotherRound = await this.#waitForReceipts(root.id, live, sign, wallet, reload);
        if (!needsAnotherRound) break;
      }
    });
  }

  /** Estimates gas for a row without a limit; on a revert the row fails without using a nonce. */
  async #estimate(row: TxRow): Promise<bigint | undefined> {
    try {
      const gas = BigInt(
        await this.#d.rpc.call<string>("eth_estimateGas", [
          {
            from: row.fromAddress,
            to: row.toAddress,
            data: row.data,
            value: toHex(BigInt(row.value)),
          },
        ]),
      );
      const limit = (gas * BigInt(100 + this.options.gasMarginPercent)) / 100n;
      await this.#d.store.setGasLimit(row.id, limit);
      row.gasLimit = limit.toString();
      return limit;
    } catch (error) {
      const kind = classifyRpcFailure(error);
      if (kind === "unavailable") throw error;
      const reason =
        kind === "revert" ? revertReason((error as RpcResponseError).data) : messageOf(error);
      await this.#d.store.markFailed(row.id, reason, kind === "revert" ? "revert" : "rejected");
      return undefined;
    }
  }

  async #broadcast(
    row: TxRow,
    sign: TxSigner,
    wallet: { id: string; address: string },
    reload: (id: string) => Promise<TxRow | undefined>,
    fees?: FeeQuote,
  ): Promise<void> {
    if (row.nonce === null || row.gasLimit === null) return;
    const quote: FeeQuote = fees ?? {
      maxFeePerGas: BigInt(row.maxFeePerGas ?? "0"),
      maxPriorityFeePerGas: BigInt(row.maxPriorityFeePerGas ?? "0"),
    };
    if (quote.maxFeePerGas === 0n) Object.assign(quote, await this.#d.fees.quote());
    const signed = sign({
      chainId: this.#d.chainId,
      nonce: row.nonce,
      to: row.toAddress ?? wallet.address,
      data: row.data ?? "0x",
      value: BigInt(row.value),
      gasLimit: BigInt(row.gasLimit),
      maxFeePerGas: quote.maxFeePerGas,
      maxPriorityFeePerGas: quote.maxPriorityFeePerGas,
    });
    if (!row.attempts.some((a) => a.hash === signed.hash)) {
      await this.#d.store.recordAttempt(row.id, {
        hash: signed.hash,
        maxFeePerGas: quote.maxFeePerGas.toString(),
        maxPriorityFeePerGas: quote.maxPriorityFeePerGas.toString(),
        sentAt: new Date().toISOString(),
      });
    }
    try {
      await this.#d.rpc.call<string>("eth_sendRawTransaction", [signed.raw]);
    } catch (error) {
      const kind = classifyRpcFailure(error);
      switch (kind) {
        case "already-known":
          break;
        case "unavailable":
          throw error;
        case "nonce-too-low": {
          // Maybe one of our own attempts was mined; otherwise the nonce went elsewhere.
          const fresh = await reload(row.id);
          if (fresh !== undefined && (await this.#checkReceipts([fresh], reload)) > 0) break;
          this.#d.logger.warn(
            { txId: row.id, nonce: row.nonce },
            "nonce consumed by another transaction; re-queueing",
          );
          await this.#d.nonces.resync(wallet.id, wallet.address);
          await this.#d.store.requeue(row.id);
          break;
        }
        case "underpriced": {
          const current = await this.#d.fees.quote();
          const bumped = bumpFees(quote, current);
          // First send only: another transaction holds this nonce in the pool; outbid it once.
          // Replacements that are refused are bumped again at the next stuck check.
          const fresh = await reload(row.id);
          if (fresh !== undefined && fees === undefined)
            await this.#broadcast(fresh, sign, wallet, reload, bumped);
          break;
        }
        default: {
          // Refused for good (insufficient funds, malformed...): give the nonce back or fill it.
          const reason =
            kind === "insufficient-funds"
              ? "Insufficient funds for gas and value"
              : messageOf(error);
          await this.#d.store.markFailed(row.id, reason, "rejected");
          await this.#releaseNonce(row, wallet, reason);
        }
      }
    }
    await reload(row.id);
  }

  /** Looks up receipts for all hashes of `rows`; finalises the mined ones. Returns how many were final. */
  async #checkReceipts(
    rows: TxRow[],
    reload: (id: string) => Promise<TxRow | undefined>,
  ): Promise<number> {
    const hashes = rows.flatMap((r) => r.attempts.map((a) => ({ row: r, hash: a.hash })));
    if (hashes.length === 0) return 0;
    const answers = await this.#d.rpc.batch(
      hashes.map((h) => ({ method: "eth_getTransactionReceipt", params: [h.hash] })),
    );
    const done = new Set<string>();
    for (let i = 0; i < hashes.length; i++) {
      const answer = answers[i];
      const entry = hashes[i]!;
      if (
        answer instanceof RpcResponseError ||
        answer === null ||
        answer === undefined ||
        done.has(entry.row.id)
      )
        continue;
      await this.#finalise(entry.row, answer as RawReceipt);
      done.add(entry.row.id);
      await reload(entry.row.id);
    }
    return done.size;
  }

  async #finalise(row: TxRow, receipt: RawReceipt): Promise<void> {
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
      await this.#d.store.markConfirmed(row.id, summary, {
        ...row.context,
        ...facts,
        txHash: summary.hash,
      });
      return;
    }
    // Reverted on chain: replay the call at that block to read the revert data.
    let reason = "execution reverted";
    try {
      await this.#d.rpc.call("eth_call", [
        {
          from: row.fromAddress,
          to: row.toAddress,
          data: row.data,
          value: toHex(BigInt(row.value)),
          gas: toHex(BigInt(row.gasLimit ?? "0")),
        },
        toHex(BigInt(summary.blockNumber) - 1n),
      ]);
    } catch (error) {
      if (error instanceof RpcResponseError) reason = revertReason(error.data);
    }
    await this.#d.store.markFailed(row.id, reason, "revert", summary);
  }

  /** Polls receipts until all rows are final. Returns true when some row needs a new nonce. */
  async #waitForReceipts(
    rootId: string,
    live: () => TxRow[],
    sign: TxSigner,
    wallet: { id: string; address: string },
    reload: (id: string) => Promise<TxRow | undefined>,
  ): Promise<boolean> {
    let lastNonceCheck = Date.now();
    let rpcDownSince: number | undefined;
    while (live().length > 0) {
      if (live().some((r) => r.nonce === null)) return true;
      await sleep(this.options.receiptPollMs);
      try {
        const before = live().length;
        await this.#checkReceipts(live(), reload);
        if (live().length !== before) this.emit("progress", rootId);
        if (rpcDownSince !== undefined) {
          rpcDownSince = undefined;
          await this.#d.store.setLastError([rootId], null);
        }
        const now = Date.now();
        // Stuck: same nonce, higher fees.
        for (const row of live()) {
          const last = row.attempts.at(-1);
          if (last === undefined || now - Date.parse(last.sentAt) < this.options.stuckAfterMs)
            continue;
          const bumped = bumpFees(
            {
              maxFeePerGas: BigInt(last.maxFeePerGas),
              maxPriorityFeePerGas: BigInt(last.maxPriorityFeePerGas),
            },
            await this.#d.fees.quote(),
          );
          this.#d.logger.info(
            { txId: row.id, nonce: row.nonce, maxFeePerGas: bumped.maxFeePerGas.toString() },
            "re-pricing stuck transaction",
          );
          await this.#broadcast(row, sign, wallet, reload, bumped);
        }
        // Lost nonces: the chain moved past our nonce but none of our hashes has a receipt.
        if (now - lastNonceCheck > 2_000) {
          lastNonceCheck = now;
          const latest = Number(
            BigInt(
              await this.#d.rpc.call<string>("eth_getTransactionCount", [wallet.address, "latest"]),
            ),
          );
          const passed = live().filter((r) => r.nonce !== null && r.nonce < latest);
          if (passed.length > 0 && (await this.#checkReceipts(passed, reload)) < passed.length) {
            for (const row of passed) {
              const fresh = await reload(row.id);
              if (fresh === undefined || isFinal(fresh)) continue;
              this.#d.logger.warn(
                { txId: row.id, nonce: row.nonce },
                "nonce consumed by another transaction; re-queueing",
              );
              await this.#d.nonces.resync(wallet.id, wallet.address);
              await this.#d.store.requeue(row.id);
              await reload(row.id);
            }
            return true;
          }
          // Dropped from the pool (e.g. node restarted without its pool): send the last attempt again.
          for (const row of live()) {
            if (row.nonce === null || row.attempts.length === 0) continue;
            const known = await this.#d.rpc.call<unknown>("eth_getTransactionByHash", [
              row.attempts.at(-1)!.hash,
            ]);
            if (known === null) {
              const last = row.attempts.at(-1)!;
              await this.#broadcast(row, sign, wallet, reload, {
                maxFeePerGas: BigInt(last.maxFeePerGas),
                maxPriorityFeePerGas: BigInt(last.maxPriorityFeePerGas),
              });
            }
          }
        }
      } catch (error) {
        if (classifyRpcFailure(error) !== "unavailable") throw error;
        // Keep the work (it is on the node or will be re-sent), tell waiters, and retry for a while.
        rpcDownSince ??= Date.now();
        await this.#d.store.setLastError([rootId], "RPC unavailable");
        this.emit("progress", rootId);
        if (Date.now() - rpcDownSince > 5_000) throw error;
        await sleep(500);
      }
    }
    return false;
  }

  /**
   * A row that got a nonce will never be broadcast: rewind the counter, or fill the gap with a
   * self-transfer and mark the row `replaced` (its nonce now belongs to the filler).
   */
  async #releaseNonce(
    row: TxRow,
    wallet: { id: string; address: string },
    reason: string,
  ): Promise<void> {
    if (row.nonce === null) return;
    if (await this.#d.nonces.release(wallet.id, row.nonce)) return;
    const fillerId = newTxId();
    await this.#d.store.database.db.insert(transactions).values({
      id: fillerId,
      orgId: row.orgId,
      walletId: row.walletId,
      kind: "nonce-fill",
      mode: "async",
      requestHash: "",
      fromAddress: row.fromAddress,
      toAddress: row.fromAddress,
      data: "0x",
      value: "0",
      gasLimit: "21000",
      nonce: row.nonce,
      context: { fills: row.id },
    });
    this.#d.logger.warn(
      { txId: row.id, nonce: row.nonce, fillerId },
      "filling nonce gap with a self-transfer",
    );
    await this.#d.store.markReplaced(row.id, reason);
    await this.#d.enqueue(fillerId, row.orgId);
  }

  async #finishParent(root: TxRow): Promise<void> {
    const children = await this.#d.store.children(root.id);
    if (children.some((c) => !isFinal(c))) return;
    const results = children.map((c) => {
      const ok = c.state === "confirmed" || c.state === "mined";
      const hash = c.receipt?.hash ?? c.attempts.at(-1)?.hash ?? null;
      return ok
        ? {
            index: c.itemIndex ?? 0,
            success: true,
            tokenId: idText(c.result?.tokenId),
            txHash: hash,
          }
        : {
            index: c.itemIndex ?? 0,
            success: false,
            txHash: hash,
            error: `Transaction failed: ${c.error ?? "unknown"}`,
          };
    });
    const issued = results.filter((r) => r.success).length;
    await this.#d.store.finishParent(
      root.id,
      issued > 0 || children.length === 0 ? "confirmed" : "failed",
      {
        ...root.context,
        issued,
        failed: results.length - issued,
        results,
      },
    );
  }
}

function idText(value: unknown): string {
  return typeof value === "string" || typeof value === "number" || typeof value === "bigint"
    ? String(value)
    : "";
}

function toHex(value: bigint): string {
  return "0x" + value.toString(16);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
