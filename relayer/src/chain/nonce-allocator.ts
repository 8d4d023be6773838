import type pg from "pg";
import type { Database } from "../db/client.js";
import { BaseError } from "../errors.js";
import type { FeeQuote } from "./fee-oracle.js";
import type { RpcClient } from "./rpc-client.js";

/** The wallet row is gone (should not happen: wallets are never deleted). */
export class WalletNotFoundError extends BaseError {
  override name = "WalletNotFoundError";
}

/**
 * Per-wallet nonces, allocated inside a PostgreSQL transaction holding the wallet row lock
 * (`SELECT ... FOR UPDATE`), so several relayer processes can share one wallet. The row's
 * `next_nonce` is the next free nonce; NULL means "unknown": it is then resynchronised from the
 * chain (`eth_getTransactionCount(address, "pending")`) and from the nonces live rows already hold.
 * The nonce and the fee caps are written to the transaction rows in the same database
 * transaction, so a crash can never lose a reserved nonce: the row still has it and is resumed.
 */
export class NonceAllocator {
  readonly #database: Database;
  readonly #rpc: RpcClient;

  constructor(database: Database, rpc: RpcClient) {
    this.#database = database;
    this.#rpc = rpc;
  }

  /**
   * Gives consecutive nonces to `txIds` (in the order given) and stores `fees` on them.
   * Rows that already have a nonce are left alone.
   *
   * @returns the nonce of each row that got one
   */
  async assign(
    walletId: string,
    address: string,
    txIds: readonly string[],
    fees: FeeQuote,
  ): Promise<Map<string, number>> {
    return this.#withWalletLock(walletId, async (client, stored) => {
      let next = stored ?? (await this.#resyncValue(client, walletId, address));
      const assigned = new Map<string, number>();
      for (const id of txIds) {
        const result = await client.query(
          `UPDATE transactions SET nonce = $2, max_fee_per_gas = $3, max_priority_fee_per_gas = $4, updated_at = now()
            WHERE id = $1 AND nonce IS NULL AND state = 'queued'`,
          [id, next, fees.maxFeePerGas.toString(), fees.maxPriorityFeePerGas.toString()],
        );
        if (result.rowCount === 1) {
          assigned.set(id, next);
          next += 1;
        }
      }
      await client.query(`UPDATE wallets SET next_nonce = $2 WHERE id = $1`, [walletId, next]);
      return assigned;
    });
  }

  /**
   * After "nonce too low" or a lost nonce: moves `next_nonce` forward to what the chain and the
   * live rows say (never backwards past a nonce a live row holds).
   */
  async resync(walletId: string, address: string): Promise<number> {
    return this.#withWalletLock(walletId, async (client, stored) => {
      const fresh = await this.#resyncValue(client, walletId, address);
      const next = stored === null ? fresh : Math.max(stored, fresh);
      await client.query(`UPDATE wallets SET next_nonce = $2 WHERE id = $1`, [walletId, next]);
      return next;
    });
  }

  /**
   * Gives back the nonce of a row that will never be broadcast. When it was the last one handed
   * out the counter is rewound; otherwise later nonces depend on it and the caller must fill the gap.
   *
   * @returns true when rewound (no gap), false when a gap filler is needed
   */
  async release(walletId: string, nonce: number): Promise<boolean> {
    return this.#withWalletLock(walletId, async (client, stored) => {
      if (stored !== null && stored === nonce + 1) {
        await client.query(`UPDATE wallets SET next_nonce = $2 WHERE id = $1`, [walletId, nonce]);
        return true;
      }
      return stored === null;
    });
  }

  async #resyncValue(client: pg.PoolClient, walletId: string, address: string): Promise<number> {
    const chainPending = Number(
      BigInt(await this.#rpc.call<string>("eth_getTransactionCount", [address, "pending"])),
    );
    const live = await client.query<{ n: string | null }>(
      `SELECT max(nonce)::text AS n FROM transactions WHERE wallet_id = $1 AND nonce IS NOT NULL AND state IN ('queued', 'sent')`,
      [walletId],
    );
    const maxLive = live.rows[0]?.n;
    return Math.max(
      chainPending,
      maxLive === null || maxLive === undefined ? 0 : Number(maxLive) + 1,
    );
  }

  async #withWalletLock<T>(
    walletId: string,
    work: (client: pg.PoolClient, stored: number | null) => Promise<T>,
  ): Promise<T> {
    const client = await this.#database.pool.connect();
    try {
      await client.query("BEGIN");
      const locked = await client.query<{ next_nonce: string | null }>(
        `SELECT next_nonce FROM wallets WHERE id = $1 FOR UPDATE`,
        [walletId],
      );
      const row = locked.rows[0];
      if (row === undefined) throw new WalletNotFoundError(`Wallet ${walletId} not found`);
      const result = await work(client, row.next_nonce === null ? null : Number(row.next_nonce));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}
