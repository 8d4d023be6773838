import type { Database } from "../db/client.js";
import { UnavailableError } from "../errors.js";

/** 503 while a wallet's rows are being made to agree with the chain after a restore. */
export class WalletReconcilingError extends UnavailableError {
  constructor() {
    super(
      "Wallet is being reconciled with the chain after a database restore; retry in a few seconds",
    );
  }
}

/** How often a process re-reads the wallets still to reconcile while there are some. */
const REREAD_MS = 1_000;

/**
 * What the write path asks of recovery (docs/recovery.md "After a restore"), read from the
 * database so that every process (API-only ones too) agrees:
 * - whether a wallet still waits for its reconciliation with the chain (`chain_reconciliations`):
 *   its writes answer 503 until it is done, so a retried request cannot be recorded as a new
 *   write before the write it retries is rebuilt from the chain;
 * - whether idempotency records were rebuilt from the chain (`recovered_idempotency_keys`): only
 *   then does a keyed write that has no record look there too.
 *
 * Read once, then again every second while a wallet waits: a restore happens with the service
 * stopped, and the engine's start adds its own wallets here (`note`) before it takes writes.
 */
export class RecoveryGate {
  readonly #database: Database;
  #pending = new Set<string>();
  #recoveredKeys = false;
  #readAt = Number.NEGATIVE_INFINITY;
  #everRead = false;
  #reading: Promise<void> | undefined;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Throws `WalletReconcilingError` (503) while the wallet waits for its reconciliation. */
  async ensureReconciled(walletId: string): Promise<void> {
    await this.#fresh();
    if (this.#pending.has(walletId)) throw new WalletReconcilingError();
  }

  /** Whether idempotency records rebuilt from the chain may exist. */
  async recoveredKeys(): Promise<boolean> {
    await this.#fresh();
    return this.#recoveredKeys;
  }

  /** This process reconciles these wallets now (their writes wait until `done`). */
  note(walletIds: readonly string[]): void {
    for (const id of walletIds) this.#pending.add(id);
  }

  /** The wallet is reconciled; its rebuilt idempotency records (if any) are committed. */
  done(walletId: string, recoveredKeys: boolean): void {
    this.#pending.delete(walletId);
    if (recoveredKeys) this.#recoveredKeys = true;
  }

  async #fresh(): Promise<void> {
    const due =
      !this.#everRead || (this.#pending.size > 0 && Date.now() - this.#readAt > REREAD_MS);
    if (!due) return;
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    await this.#reading;
  }

  async #read(): Promise<void> {
    const { rows } = await this.#database.pool.query<{ pending: string[]; recovered: boolean }>(
      `SELECT coalesce((SELECT array_agg(wallet_id) FROM chain_reconciliations), '{}') AS pending,
              EXISTS (SELECT 1 FROM recovered_idempotency_keys) AS recovered`,
    );
    this.#pending = new Set(rows[0]!.pending);
    this.#recoveredKeys = rows[0]!.recovered;
    this.#readAt = Date.now();
    this.#everRead = true;
  }
}
