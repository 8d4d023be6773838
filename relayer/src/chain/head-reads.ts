import type { BlockWatcher } from "./block-watcher.js";
import type { ChainReader } from "./chain-reader.js";

/**
 * Chain views a write is checked against, as of the chain head: each read at most once per key
 * per block (issue 25: nothing per request that can be shared). A value read while the head was
 * block N serves every request until the block watcher sees N+1, and at most `MAX_AGE_MS` (a
 * slow chain's block, or a dev chain's `anvil_setBalance`, is not waited for); concurrent
 * requests share one read. Before the watcher has seen a block (it is not started), every call
 * reads.
 *
 * - Wallet balances. The funds check stays exact: a balance is known to include every block up
 *   to the head it was read at (`balanceAt`), and a write mined after that block keeps its
 *   reservation in the check, settled or not, so its cost is never counted as available twice.
 * - AssetToken's compliance views a mint is checked against (paused, a type's restriction). A
 *   change is mined in a new block, so it is seen with that block; a write that slips between
 *   the block and the watcher's next look is refused by the contract and answered with the same
 *   words (`writes/write-failure.ts`). The process that made the change forgets at once
 *   (`forgetCompliance`).
 */
const MAX_AGE_MS = 1_000;

export class HeadReads {
  readonly #reader: ChainReader;
  readonly #blocks: BlockWatcher;
  readonly #known = new Map<string, { head: number; at: number; value: Promise<unknown> }>();

  constructor(reader: ChainReader, blocks: BlockWatcher) {
    this.#reader = reader;
    this.#blocks = blocks;
  }

  /**
   * The wallet's balance, and the block it includes for certain: the head when it was read
   * (undefined before the watcher has seen one). The node's `latest` at the read is that block or
   * a later one, so every write mined up to it is paid out of it; a write mined later may not
   * be, and the funds check keeps its reservation (`TxStore.writerState`). That holds however
   * the processes share the work: another process's engine may settle a write before this
   * process's watcher sees its block.
   */
  balanceAt(address: string): { wei: Promise<bigint>; block: number | undefined } {
    const key = `balance:${address.toLowerCase()}`;
    const wei = this.#atHead(key, () => this.#reader.balanceOf(address));
    const block = this.#known.get(key)?.head;
    return { wei, block };
  }

  paused(): Promise<boolean> {
    return this.#atHead("compliance:paused", () => this.#reader.paused());
  }

  isTypeRestricted(name: string): Promise<boolean> {
    return this.#atHead(`compliance:restricted:${name}`, () => this.#reader.isTypeRestricted(name));
  }

  /** Drops the compliance views, after this process changed them (the next check reads). */
  forgetCompliance(): void {
    for (const key of this.#known.keys())
      if (key.startsWith("compliance:")) this.#known.delete(key);
  }

  #atHead<T>(key: string, read: () => Promise<T>): Promise<T> {
    const head = this.#blocks.head;
    const known = this.#known.get(key);
    const now = Date.now();
    if (head >= 0 && known !== undefined && known.head === head && now - known.at < MAX_AGE_MS)
      return known.value as Promise<T>;
    const value = read();
    if (head >= 0) {
      this.#known.set(key, { head, at: now, value });
      // A failed read is not kept: the next request asks again.
      value.catch(() => {
        if (this.#known.get(key)?.value === value) this.#known.delete(key);
      });
    }
    return value;
  }
}
