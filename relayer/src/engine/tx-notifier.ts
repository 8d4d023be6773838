import { EventEmitter } from "node:events";
import pg from "pg";
import type { Logger } from "pino";
import { decodeGasChange, type GasChange } from "./gas-book.js";
import { TX_CHANNELS } from "./tx-channels.js";
import { ORG_CHANGED_CHANNEL } from "../db/org-changed-channel.js";

/** Channel of the indexer's progress: payload = the last block number applied. */
export const INDEXED_CHANNEL = "rwa_indexed";

/** Channel of learned gas figures: payload = an encoded `GasChange` (`engine/gas-book.ts`). */
export const GAS_CHANNEL = "rwa_gas";

interface NotifierEvents {
  /** A row became final (in this process or another). */
  final: [id: string];
  /** A wallet has new queued work. */
  queued: [walletId: string];
  /** The indexer applied blocks up to this number. */
  indexed: [block: number];
  /** An organization changed: its plan, suspension, keys or policy (in this process or another). */
  orgChanged: [orgId: string];
  /** A process's gas book learned or forgot a shape's figure. */
  gas: [change: GasChange, from: string];
}

/**
 * Tells waiting requests and sequencers what changed, in this process and across processes: one
 * dedicated PostgreSQL connection LISTENs on the store's channels, and local changes are emitted
 * directly. Nothing polls a row: a waiter reads its row once when told, and once more at a slow
 * safety interval in case a notification was lost with a dropped connection.
 */
export class TxNotifier extends EventEmitter<NotifierEvents> {
  readonly #connectionString: string;
  readonly #logger: Logger;
  #client: pg.Client | undefined;
  #stopped = false;
  #reconnect: NodeJS.Timeout | undefined;
  /** Highest block the indexer reported (from notifications or a read of its cursor). */
  indexedBlock = -1;

  constructor(connectionString: string, logger: Logger) {
    super();
    this.setMaxListeners(0);
    this.#connectionString = connectionString;
    this.#logger = logger;
  }

  /** Connects and LISTENs; reconnects by itself when the connection drops. */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#connect();
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#connectionString,
      application_name: "rwa-relayer-notify",
    });
    client.on("error", () => {});
    client.on("end", () => {
      if (this.#client !== client || this.#stopped) return;
      this.#client = undefined;
      this.#scheduleReconnect();
    });
    client.on("notification", (message) => this.#onNotification(message));
    await client.connect();
    await client.query(
      `LISTEN ${TX_CHANNELS.final}; LISTEN ${TX_CHANNELS.queued}; LISTEN ${INDEXED_CHANNEL}; LISTEN ${ORG_CHANGED_CHANNEL}; LISTEN ${GAS_CHANNEL}`,
    );
    this.#client = client;
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnect !== undefined) return;
    this.#reconnect = setTimeout(() => {
      this.#reconnect = undefined;
      this.#connect().catch((err: unknown) => {
        this.#logger.debug({ err }, "notification connection failed; retrying");
        this.#scheduleReconnect();
      });
    }, 1_000);
  }

  #onNotification(message: pg.Notification): void {
    const payload = message.payload ?? "";
    switch (message.channel) {
      case TX_CHANNELS.final:
        for (const id of payload.split(",")) if (id !== "") this.emit("final", id);
        break;
      case TX_CHANNELS.queued:
        for (const id of payload.split(",")) if (id !== "") this.emit("queued", id);
        break;
      case INDEXED_CHANNEL:
        this.noteIndexed(Number(payload));
        break;
      case ORG_CHANGED_CHANNEL:
        if (payload !== "") this.emit("orgChanged", payload);
        break;
      case GAS_CHANNEL: {
        const decoded = decodeGasChange(payload);
        if (decoded !== undefined) this.emit("gas", decoded.change, decoded.from);
        break;
      }
    }
  }

  /** Records indexer progress (from this process's indexer or a notification). */
  noteIndexed(block: number): void {
    if (!Number.isSafeInteger(block) || block <= this.indexedBlock) return;
    this.indexedBlock = block;
    this.emit("indexed", block);
  }

  /**
   * Resolves when `ready()` holds, re-checking it on every `event` that `matches`, and at least
   * every `safetyMs`; resolves false after `timeoutMs`. `ready` is told why it is asked (the
   * first check, a matching event, or the safety interval), so it can skip a read that nothing
   * could have changed.
   */
  async waitUntil<E extends keyof NotifierEvents>(
    event: E,
    matches: (...args: NotifierEvents[E]) => boolean,
    ready: (reason: "start" | "event" | "safety") => Promise<boolean> | boolean,
    timeoutMs: number,
    safetyMs = 5_000,
  ): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    let wake: (() => void) | undefined;
    let signalled = false;
    const listener = (...args: NotifierEvents[E]) => {
      if (!matches(...args)) return;
      signalled = true;
      wake?.();
    };
    this.on(event, listener as never);
    let reason: "start" | "event" | "safety" = "start";
    try {
      for (;;) {
        signalled = false;
        if (await ready(reason)) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        if (signalled) {
          reason = "event";
          continue;
        }
        reason = await new Promise<"event" | "safety">((resolve) => {
          const timer = setTimeout(() => done("safety"), Math.min(left, safetyMs));
          function done(why: "event" | "safety") {
            clearTimeout(timer);
            wake = undefined;
            resolve(why);
          }
          wake = () => done("event");
        });
      }
    } finally {
      this.off(event, listener as never);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#reconnect !== undefined) clearTimeout(this.#reconnect);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}
