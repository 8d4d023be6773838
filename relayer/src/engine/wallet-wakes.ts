import { Batcher } from "../db/batcher.js";
import type { Database } from "../db/client.js";
import { notifyPayloads, TX_CHANNELS } from "./tx-channels.js";

/**
 * Tells the other relayer processes which wallets have new queued work (`rwa_tx_queued`, payload:
 * comma-separated wallet ids), for a wallet whose lease this process's engine does not hold.
 * Wallets asked for within `lingerMs` share one statement: one transaction in each connection
 * that listens in the database, however many writes were recorded. It is sent after the writes
 * committed, so a woken engine finds their rows; one lost with a dropped connection or a crash is
 * caught by the lease holder's claim round (every second).
 *
 * @example
 * const wakes = new WalletWakes(database);
 * await wakes.send("wal_1"); // resolves once the notification is sent
 */
export class WalletWakes {
  readonly #sends: Batcher<string, undefined>;

  constructor(database: Database, lingerMs = 10) {
    this.#sends = new Batcher(
      async (walletIds) => {
        await database.pool.query(`SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, [
          TX_CHANNELS.queued,
          notifyPayloads([...new Set(walletIds)]),
        ]);
        return walletIds.map(() => undefined);
      },
      { lingerMs },
    );
  }

  send(walletId: string): Promise<undefined> {
    return this.#sends.add(walletId);
  }
}
