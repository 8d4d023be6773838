import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { RpcClient } from "./rpc/rpc-client.js";

/** How many intervals between consecutive heads `BlockCadence` compares. */
const CADENCE_SAMPLES = 5;
/** How far (as a share of their median) those intervals may spread and still count as regular. */
const CADENCE_TOLERANCE = 0.2;

/**
 * When to ask for the head next. A chain that mines on a clock (anvil's `--block-time`, a
 * Clique or QBFT network's period) is not asked every `pollMs` all through its interval: once
 * the last `CADENCE_SAMPLES` intervals between consecutive heads agree within
 * `CADENCE_TOLERANCE` of their median, the watcher waits after each new head until two polls
 * before the next one is due, then polls every `pollMs` again. A new head is still seen within
 * `pollMs` of the poll that could first see it; what goes is the polls that could not (on 1 s
 * blocks, 10 a second became about 3, and each cost the relayer as much CPU as a write's
 * share of the indexer: a timer, a request and its answer). Irregular blocks (an automining dev
 * chain, a head that skipped or went back, an interval out of line, a head found on the first
 * poll after a wait) poll every `pollMs`: when the chain speeds up, only the blocks mined during
 * one wait are seen late, at its end.
 */
export class BlockCadence {
  readonly #pollMs: number;
  readonly #intervals: number[] = [];
  #last: { head: number; at: number } | undefined;
  /** Whether the last delay was a wait for the next head rather than a poll's interval. */
  #waited = false;

  constructor(pollMs: number) {
    this.#pollMs = pollMs;
  }

  /** A head seen at `at` (ms on a monotonic clock): what the next delays are worked out from. */
  observe(head: number, at: number): void {
    const last = this.#last;
    const waited = this.#waited;
    this.#waited = false;
    if (last !== undefined && head === last.head) return;
    if (last !== undefined) {
      // The next head, found by a poll of the cadence: one more interval. Anything else breaks
      // the pattern: a skip, a head that went back, or one mined while the watcher waited
      // (earlier than the cadence said, and when is not known).
      if (!waited && head === last.head + 1) {
        this.#intervals.push(at - last.at);
        if (this.#intervals.length > CADENCE_SAMPLES) this.#intervals.shift();
      } else {
        this.#intervals.length = 0;
      }
    }
    this.#last = { head, at };
  }

  /** The usual interval between heads, when the last ones were regular; otherwise undefined. */
  get interval(): number | undefined {
    if (this.#intervals.length < CADENCE_SAMPLES) return undefined;
    const sorted = [...this.#intervals].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const regular = sorted.every((x) => Math.abs(x - median) <= median * CADENCE_TOLERANCE);
    return regular ? median : undefined;
  }

  /** How long to wait, at `now` (ms), before the next poll. */
  delay(now: number): number {
    const interval = this.interval;
    if (interval === undefined || this.#last === undefined) return this.#pollMs;
    const wait = this.#last.at + interval - 2 * this.#pollMs - now;
    this.#waited = wait > this.#pollMs;
    return this.#waited ? wait : this.#pollMs;
  }
}

/**
 * Follows the chain head with one cheap `eth_blockNumber` call every `pollMs` (100 ms by default:
 * a 1 s chain's new block is seen within a tenth of its interval), fewer on a chain with a
 * regular block time (`BlockCadence`), and emits `block` with each new head. One per process;
 * the sequencer's receipts and the indexer's wake-ups hang off it, so nothing polls per write
 * and the indexer does not poll beside it while this follows the chain.
 */
export class BlockWatcher extends EventEmitter<{ block: [head: number] }> {
  readonly #rpc: RpcClient;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #cadence: BlockCadence;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #failures = 0;
  head = -1;

  constructor(rpc: RpcClient, logger: Logger, options: { pollMs?: number } = {}) {
    super();
    this.setMaxListeners(0);
    this.#rpc = rpc;
    this.#logger = logger;
    this.#pollMs = options.pollMs ?? 100;
    this.#cadence = new BlockCadence(this.#pollMs);
  }

  /**
   * Whether `block` events can be relied on: started, a head seen, and the last read answered.
   * A follower (the indexer) that waits for them polls on its own while this is false.
   */
  get following(): boolean {
    return this.#running && this.head >= 0 && this.#failures === 0;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#tick();
  }

  async #tick(): Promise<void> {
    if (!this.#running) return;
    try {
      const head = Number(BigInt(await this.#rpc.call<string>("eth_blockNumber")));
      if (this.#failures > 0) this.#logger.info("chain reachable again");
      this.#failures = 0;
      this.#cadence.observe(head, performance.now());
      if (head !== this.head) {
        this.head = head;
        this.emit("block", head);
      }
    } catch (err) {
      this.#failures++;
      if (this.#failures === 1) this.#logger.warn({ err }, "cannot read the chain head; retrying");
    }
    if (!this.#running) return;
    const delay =
      this.#failures === 0
        ? this.#cadence.delay(performance.now())
        : Math.min(2_000, this.#pollMs * 2 ** this.#failures);
    this.#timer = setTimeout(() => void this.#tick(), delay);
  }

  stop(): void {
    this.#running = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}
