import pg from "pg";
import type { Logger } from "pino";

/**
 * A session advisory lock held on a dedicated connection: whoever holds it is the only indexer.
 * When the holder dies its connection closes, the server releases the lock, and a process
 * polling `tryAcquire` every second takes over.
 */
export class LeaderLock {
  #client: pg.Client | undefined;
  #held = false;

  constructor(
    private readonly connectionString: string,
    private readonly lockId: number,
    private readonly logger: Logger,
  ) {}

  /** Whether this process holds the lock (false after the connection broke). */
  get held(): boolean {
    return this.#held;
  }

  /** Tries once to take the lock; true when held. */
  async tryAcquire(): Promise<boolean> {
    if (this.#held) return true;
    if (this.#client === undefined) {
      const client = new pg.Client({
        connectionString: this.connectionString,
        application_name: "rwa-indexer-lock",
      });
      client.on("error", (err) => {
        this.logger.warn({ err }, "indexer lock connection lost");
        this.#held = false;
        this.#client = undefined;
      });
      await client.connect();
      this.#client = client;
    }
    const { rows } = await this.#client.query<{ ok: boolean }>(
      "SELECT pg_try_advisory_lock($1) AS ok",
      [this.lockId],
    );
    this.#held = rows[0]?.ok === true;
    return this.#held;
  }

  /** Releases the lock and closes the connection. */
  async release(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#held = false;
    if (client === undefined) return;
    await client.end().catch(() => undefined);
  }
}
