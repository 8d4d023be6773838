import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { RpcClient } from "./rpc-client.js";

/**
 * Follows the chain head with one cheap `eth_blockNumber` call every `pollMs` (100 ms by default:
 * a 1 s chain's new block is seen within a tenth of its interval) and emits `block` with each
 * new head. One per process; the sequencer's receipts and the indexer's wake-ups hang off it, so
 * nothing polls per write and the indexer does not poll beside it while this follows the chain.
 */
export class BlockWatcher extends EventEmitter<{ block: [head: number] }> {
  readonly #rpc: RpcClient;
  readonly #logger: Logger;
  readonly #pollMs: number;
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
      this.#failures === 0 ? this.#pollMs : Math.min(2_000, this.#pollMs * 2 ** this.#failures);
    this.#timer = setTimeout(() => void this.#tick(), delay);
  }

  stop(): void {
    this.#running = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}
