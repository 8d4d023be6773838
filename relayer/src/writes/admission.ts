import type { Logger } from "pino";
import type { RpcClient } from "../chain/rpc/rpc-client.js";
import type { Database } from "../db/client.js";
import { RateLimitError } from "../errors.js";

/**
 * Admission of writes (docs/scaling.md, "The accept path"): under overload a write is refused at
 * once with 429 and `Retry-After`, before anything is read, checked or recorded, instead of
 * waiting seconds behind the writes already being accepted. Three bounds, each checked in the
 * synchronous step that enters the accept path:
 * - **per organization**: at most `perOrg` of its writes in the accept path at once
 *   (`WRITE_LIMITS.acceptingPerOrg`), so one organization's flood leaves room for the others; a
 *   sync write's wait for its receipt does not count, only the accepting;
 * - **globally**: at most `concurrency` writes of all organizations in the accept path at once
 *   (`WRITE_ACCEPT_CONCURRENCY`): more would only queue on this process's event loop and pool;
 *   a write route counts its request from its arrival, before its API key is looked up
 *   (`arrive`);
 * - **the backlog**: at most `queueMax` live writes (queued, sent or mined, all organizations;
 *   counted in the database at most once a second, plus those this process recorded since) —
 *   what the chain drains in `WRITE_QUEUE_DRAIN_SECONDS` (`chainCapacity`). A write over it
 *   would wait longer than that to be sent.
 * A refused write was not recorded: nothing of it exists; the client retries after
 * `Retry-After`. Refusals for the busy and backlog bounds are told different waits
 * (`ReturnSchedule`), so that the clients refused in one burst come back spread out at the pace
 * the bound frees room, not all in the same second.
 */
export interface AdmissionOptions {
  /** Writes of one organization in the accept path at once. */
  perOrg: number;
  /** Writes of all organizations in the accept path at once (this process); read on every write. */
  concurrency: () => number;
  /** Live writes above which new ones are refused; undefined: no backlog bound (yet). */
  queueMax: () => number | undefined;
  /** Live writes of all organizations now (`countLiveWrites` on the database). */
  countLive: () => Promise<number>;
  /** Seconds the chain takes to drain a full backlog (WRITE_QUEUE_DRAIN_SECONDS). */
  drainSeconds: () => number;
  /** How long a sync write waits for its outcome before answering 202 (SYNC_WRITE_DEADLINE_SECONDS). */
  syncDeadlineMs: () => number;
}

/**
 * When refused clients are told to come back (`Retry-After`): at most `perSecond` of them in any
 * one second, each in the earliest second from `min` seconds on that has room, `max` at most.
 * With one value for every refusal, a flood's 1,000 writers refused in the same second came back
 * together five seconds later, found the same bound, and the answers of that wave took 2 s
 * (issue 45); spread, they come back at the pace the bound frees room.
 *
 * @example
 * const schedule = new ReturnSchedule();
 * schedule.book(Date.now(), 2, 1, 5); // 1
 * schedule.book(Date.now(), 2, 1, 5); // 1
 * schedule.book(Date.now(), 2, 1, 5); // 2: the next second has room
 */
export class ReturnSchedule {
  /** Returns booked per epoch second. */
  readonly #booked = new Map<number, number>();

  book(now: number, perSecond: number, min: number, max: number): number {
    const second = Math.floor(now / 1000);
    for (const booked of this.#booked.keys()) if (booked <= second) this.#booked.delete(booked);
    for (let wait = min; wait < max; wait++) {
      const booked = this.#booked.get(second + wait) ?? 0;
      if (booked < perSecond) {
        this.#booked.set(second + wait, booked + 1);
        return wait;
      }
    }
    return max;
  }
}

/** Live writes (queued, sent or mined) of every organization, from the database. */
export function countLiveWrites(database: Database): () => Promise<number> {
  return async () => {
    const { rows } = await database.pool.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM transactions WHERE state IN ('queued', 'sent', 'mined')",
    );
    return Number(rows[0]?.n ?? 0);
  };
}

/** How often the live-write count is read again from the database while writes arrive. */
const COUNT_EVERY_MS = 1_000;

/** The longest `Retry-After` of a refusal for the busy bound. */
const BUSY_RETRY_MAX_SECONDS = 5;

/** A write's place in the accept path from its arrival (`WriteAdmission.arrive`). */
export interface AdmissionArrival {
  /** Gives the place back; once is enough. A bound function: it may be passed as a listener. */
  readonly release: () => void;
}

/** A write's place in the accept path (`WriteAdmission.enter`). */
export interface AdmissionTicket {
  /** Leaves the accept path (the write is recorded, refused or failed); once is enough. */
  release(): void;
  /** Counts a recorded write toward the backlog until the next count from the database. */
  countRecorded(recorded: boolean): void;
}

export class WriteAdmission {
  readonly #perOrg = new Map<string, number>();
  #accepting = 0;
  #live = 0;
  /** Writes this process recorded since the last count (they may not be in it). */
  #recordedSince = 0;
  #countedAt = 0;
  #counting: Promise<void> | undefined;
  /** Refusals by bound, for `/metrics`. */
  readonly refused = { org: 0, busy: 0, backlog: 0 };
  readonly #busyReturns = new ReturnSchedule();
  readonly #backlogReturns = new ReturnSchedule();

  constructor(private readonly options: AdmissionOptions) {}

  /** How long a sync write waits for its outcome before answering 202 with its id. */
  syncDeadlineMs(): number {
    return this.options.syncDeadlineMs();
  }

  /**
   * Takes a place in the accept path for a write that has just arrived, before anything of it
   * is read (its API key included), or throws `RateLimitError` (429, busy). The write routes
   * call it first (`RouteDefinition.admitsWrite`): counted from the executor on, a flood's
   * writes over the bound had each waited for its key's look-up and rate-limit lease before
   * being refused, and the server's 429 p99 was 250-1,000 ms; refused on arrival, 5-75 ms.
   * The place is given back by `release`, or by the ticket of `enter` that takes it over.
   */
  arrive(): AdmissionArrival {
    const concurrency = this.options.concurrency();
    if (this.#accepting >= concurrency) {
      this.refused.busy++;
      // As many come back each second as the accept path holds at once.
      const wait = this.#busyReturns.book(Date.now(), concurrency, 1, BUSY_RETRY_MAX_SECONDS);
      throw new RateLimitError(wait, "Service busy: too many write requests in progress");
    }
    this.#accepting++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#accepting--;
      },
    };
  }

  /**
   * Enters the accept path for `orgId`, or throws `RateLimitError` (429 with `Retry-After`).
   * `arrived`: the place the write took on arrival (`arrive`); without it, one is taken here.
   * The ticket's `release` must be called once the write is recorded or refused (before a sync
   * write's wait for its receipt); it gives the place back too.
   */
  enter(orgId: string, arrived?: AdmissionArrival): AdmissionTicket {
    this.#refreshCount();
    const own = this.#perOrg.get(orgId) ?? 0;
    if (own >= this.options.perOrg) {
      this.refused.org++;
      throw new RateLimitError(
        1,
        `Too many concurrent write requests for this organization (at most ${this.options.perOrg})`,
      );
    }
    const max = this.options.queueMax();
    if (max !== undefined && this.#live + this.#recordedSince >= max) {
      this.refused.backlog++;
      // As many come back each second as the chain drains, within the time it drains it all.
      const drain = Math.max(1, this.options.drainSeconds());
      const perSecond = Math.max(1, Math.floor(max / drain));
      const wait = this.#backlogReturns.book(Date.now(), perSecond, 1, Math.ceil(drain));
      throw new RateLimitError(
        wait,
        "Service busy: the write backlog is full; writes are accepted again as it drains",
      );
    }
    const place = arrived ?? this.arrive();
    this.#perOrg.set(orgId, own + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        place.release();
        const left = (this.#perOrg.get(orgId) ?? 1) - 1;
        if (left <= 0) this.#perOrg.delete(orgId);
        else this.#perOrg.set(orgId, left);
      },
      countRecorded: (recorded) => {
        if (recorded) this.#recordedSince++;
      },
    };
  }

  /** Writes in the accept path now, and live writes at the last count (for `/metrics`). */
  get accepting(): number {
    return this.#accepting;
  }

  get live(): number {
    return this.#live + this.#recordedSince;
  }

  /** Reads the live-write count again when the last one is over a second old (in the background). */
  #refreshCount(): void {
    if (this.#counting !== undefined || Date.now() - this.#countedAt < COUNT_EVERY_MS) return;
    const since = this.#recordedSince;
    this.#counting = this.options
      .countLive()
      .then((live) => {
        this.#live = live;
        // Writes recorded while the count ran may or may not be in it: keep counting them once.
        this.#recordedSince -= since;
        this.#countedAt = Date.now();
      })
      .catch(() => {
        // The database is away: the writes themselves will say so; keep the last count.
        this.#countedAt = Date.now();
      })
      .finally(() => (this.#counting = undefined));
  }
}

/**
 * Writes per second the chain can take: its block gas limit over the gas of one write, per
 * block interval. `gasPerWrite` is an issuance's (the commonest and a middling write).
 */
export function chainCapacity(
  blockGasLimit: bigint,
  blockSeconds: number,
  gasPerWrite: bigint,
): number {
  if (gasPerWrite <= 0n || blockSeconds <= 0) return Number.POSITIVE_INFINITY;
  return Number(blockGasLimit / gasPerWrite) / blockSeconds;
}

/** The accept path's bounds (SYNC_WRITE_DEADLINE_SECONDS, WRITE_ACCEPT_CONCURRENCY, WRITE_QUEUE_DRAIN_SECONDS, WRITE_QUEUE_MAX). */
export interface WriteAdmissionSettings {
  syncDeadlineMs: number;
  acceptConcurrency: number;
  queueDrainSeconds: number;
  /** WRITE_QUEUE_MAX; undefined: the chain's capacity × `queueDrainSeconds`, measured at start. */
  queueMax: number | undefined;
}

/** Gas of one issuance (an `AssetToken.mint` with its stake), the write the capacity is counted in. */
export const ISSUANCE_GAS = 115_000n;

/** How often the chain's capacity is measured again (its gas limit may change). */
const CAPACITY_EVERY_MS = 10 * 60_000;

interface RawHeader {
  number: string;
  timestamp: string;
  gasLimit: string;
}

/**
 * The backlog bound: WRITE_QUEUE_MAX when set, else the chain's capacity (its latest block's gas
 * limit in issuances, over its median block interval of the last 20 blocks) times
 * WRITE_QUEUE_DRAIN_SECONDS. Measured in the background; undefined (no bound) until the first
 * measurement, and kept when a later one fails.
 */
export function backlogBound(
  rpc: Pick<RpcClient, "call">,
  settingsOf: () => WriteAdmissionSettings,
  logger: Logger,
): () => number | undefined {
  let bound: number | undefined;
  let measuredAt = Number.NEGATIVE_INFINITY;
  let measuring = false;
  const measure = async () => {
    const latest = await rpc.call<RawHeader | null>("eth_getBlockByNumber", ["latest", false]);
    if (latest === null) return;
    const head = Number(BigInt(latest.number));
    const span = Math.min(20, head);
    const headers = await Promise.all(
      Array.from({ length: span }, (_, i) =>
        rpc.call<RawHeader | null>("eth_getBlockByNumber", [
          `0x${(head - span + i).toString(16)}`,
          false,
        ]),
      ),
    );
    const times = [...headers, latest]
      .filter((h): h is RawHeader => h !== null)
      .map((h) => Number(BigInt(h.timestamp)));
    // The median interval: a quiet spell (a dev chain mines only when asked, a saved chain was
    // loaded minutes after its blocks) is one long interval among short ones, not the pace. An
    // automining chain makes many blocks a second: counted as one a second.
    const intervals = times
      .slice(1)
      .map((t, i) => t - times[i]!)
      .sort((a, b) => a - b);
    const median = intervals[Math.floor(intervals.length / 2)] ?? 1;
    const seconds = Math.max(1, median);
    const perSecond = chainCapacity(BigInt(latest.gasLimit), seconds, ISSUANCE_GAS);
    const drainSeconds = settingsOf().queueDrainSeconds;
    bound = Math.max(1, Math.round(perSecond * drainSeconds));
    logger.info(
      { writesPerSecond: Math.round(perSecond), drainSeconds, bound },
      "write backlog bound measured from the chain",
    );
  };
  return () => {
    const fixed = settingsOf().queueMax;
    if (fixed !== undefined) return fixed;
    const now = Date.now();
    if (!measuring && now - measuredAt >= CAPACITY_EVERY_MS) {
      measuring = true;
      measuredAt = now;
      measure()
        .catch((error: unknown) => {
          logger.warn({ err: error }, "measuring the chain's capacity failed; retrying in 10 s");
          measuredAt = now - CAPACITY_EVERY_MS + 10_000;
        })
        .finally(() => (measuring = false));
    }
    return bound;
  };
}
