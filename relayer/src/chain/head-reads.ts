import type { BlockWatcher } from "./block-watcher.js";
import type { ChainReader } from "./chain-reader.js";
import { STAND_IN_MAX_AGE_MS, withStandIn } from "./stand-in.js";

/**
 * Chain views a write is checked against, as of the chain head: each read at most once per key
 * per block (issue 25: nothing per request that can be shared). A value read while the head was
 * block N serves every request until the block watcher sees N+1, and at most `MAX_AGE_MS` (a
 * slow chain's block, or a dev chain's `anvil_setBalance`, is not waited for); concurrent
 * requests share one read. Before the watcher has seen a block (it is not started), every call
 * reads.
 *
 * While a new head's read is slow (the node answers slowly while it mines), the last block's
 * value stands in for it (`stand-in.ts`):
 * - Wallet balances (`balanceAt`). The funds check stays exact: a balance is known to include
 *   every block up to the head it was read at, and a write mined after that block keeps its
 *   reservation in the check, settled or not, so its cost is never counted as available twice.
 *   The last block's balance with that block's reservations is a floor of what the wallet
 *   holds: only the wallet's own transactions (reserved until mined) take coin out of it. A
 *   refusal is decided on the head's own balance (`HeadLook.head`), so coin just received
 *   counts. Only a dev chain can lower a custodial wallet's balance behind its back
 *   (`anvil_setBalance`); the node then refuses a write accepted against the older figure, and
 *   the write fails with `Insufficient funds for gas and value`, as one whose coin left after it
 *   was accepted.
 *   A balance stands in up to `BALANCE_STAND_IN_MAX_AGE_MS` old, not only the last block's:
 *   the first write after a quiet spell does not wait for the node either.
 * - AssetToken's compliance views a mint is checked against (paused, a type's restriction). A
 *   change is mined in a new block, so it is seen with that block (or the next, while the node
 *   is slow); a write that slips between the block and this process's next look is refused by
 *   the contract and answered with the same words (`writes/write-failure.ts`). The process that
 *   made the change forgets at once (`forgetCompliance`).
 */
const MAX_AGE_MS = 1_000;

/**
 * A key a request looked up within this long is read again as soon as the watcher sees a new
 * block, before any request asks: the first write of each wallet in a block then finds the
 * head's balance read (or on its way) instead of waiting up to `STAND_IN_AFTER_MS` for it. The
 * node answers the reads it would have answered anyway, a little earlier, and those of a wallet
 * that went quiet for at most this long.
 */
const WARM_MS = 5_000;

/**
 * The compliance views (a few per deployment: the pause and each asset type's restriction) stay
 * warm this long after a request last asked: one `eth_call` each per block. After a quiet spell
 * longer than `WARM_MS` the first writes of a burst otherwise all waited for the node's answer
 * (the views stand in for at most `STAND_IN_MAX_AGE_MS`), while the node was busiest taking the
 * burst's transactions (issue 45: a plain client's 202 p99 was 5 s in a burst's first seconds).
 */
const COMPLIANCE_WARM_MS = 600_000;

/**
 * How old a balance may be to stand in (`STAND_IN_MAX_AGE_MS` for the other views). A balance of
 * any age is a floor of what the wallet holds once the writes mined after its block are
 * reserved (`TxStore.record` counts them from the stand-in's block), so an older one only makes
 * the check more careful (more rows reserved, and a refusal is decided on the head's own
 * balance anyway). What it spares: after a quiet spell longer than `WARM_MS`, no balance is
 * re-read per block, and the first write of every wallet waited for the node's answer at
 * once. Late in a bench run, with the node slow to answer, that cost the split phase's 202 at
 * 0.8× its p99: about 70 of 4,000 requests, all in the phase's first second, waited 100-600 ms
 * for their wallets' balances. Bounded so that the rows reserved since the stand-in's block
 * stay a few minutes' worth.
 */
const BALANCE_STAND_IN_MAX_AGE_MS = 300_000;

/** A value and the block it is known to include (undefined: no head seen yet). */
export interface AtBlock<T> {
  value: T;
  block: number | undefined;
}

/** A look-up at the head: the head's value, or the last block's while the head's is slow. */
export interface HeadLook<T> {
  /**
   * The oldest block `read` may answer at. For a balance, the reservations it is checked
   * against are counted from it (a later answer then has more reserved than it needs, never
   * less).
   */
  floor: number | undefined;
  /** The head's value, or the last block's if the head's is slow. */
  read: Promise<AtBlock<T>>;
  /** The head's value itself (a refusal for funds is decided on it). */
  head: Promise<AtBlock<T>>;
}

interface Read {
  head: number;
  at: number;
  value: Promise<AtBlock<unknown>>;
  /** Set once the read answered: what may stand in for a later head's read. */
  settled?: AtBlock<unknown>;
  /** The read raced against the stand-in, shared by the requests that wait for it. */
  raced?: { floor: number | undefined; read: Promise<AtBlock<unknown>> };
}

export class HeadReads {
  readonly #reader: ChainReader;
  readonly #blocks: BlockWatcher;
  /** Per key: the newest read, and the newest one answered. */
  readonly #reads = new Map<string, { newest: Read; answered?: Read }>();
  /** Keys requests looked up, when last, and how to read them (`WARM_MS`). */
  readonly #asked = new Map<string, { at: number; read: () => Promise<unknown> }>();

  constructor(reader: ChainReader, blocks: BlockWatcher) {
    this.#reader = reader;
    this.#blocks = blocks;
    blocks.on("block", () => this.#warm());
  }

  /** Starts the new head's read of every key asked for within `WARM_MS` (`COMPLIANCE_WARM_MS`). */
  #warm(): void {
    const now = Date.now();
    for (const [key, asked] of this.#asked) {
      const warmFor = key.startsWith("compliance:") ? COMPLIANCE_WARM_MS : WARM_MS;
      if (now - asked.at > warmFor) this.#asked.delete(key);
      else this.#look(key, asked.read, false);
    }
  }

  /**
   * The wallet's balance, and the block it includes for certain: the head when it was read. The
   * node's `latest` at the read is that block or a later one, so every write mined up to it is
   * paid out of it; a write mined later may not be, and the funds check keeps its reservation
   * (`TxStore.record`). That holds however the processes share the work: another
   * process's engine may settle a write before this process's watcher sees its block.
   */
  balanceAt(address: string): HeadLook<bigint> {
    return this.#look(
      `balance:${address.toLowerCase()}`,
      () => this.#reader.balanceOf(address),
      true,
      BALANCE_STAND_IN_MAX_AGE_MS,
    );
  }

  async paused(): Promise<boolean> {
    return (await this.#look("compliance:paused", () => this.#reader.paused()).read).value;
  }

  async isTypeRestricted(name: string): Promise<boolean> {
    const look = this.#look(`compliance:restricted:${name}`, () =>
      this.#reader.isTypeRestricted(name),
    );
    return (await look.read).value;
  }

  /** Drops the compliance views, after this process changed them (the next check reads). */
  forgetCompliance(): void {
    for (const key of this.#reads.keys())
      if (key.startsWith("compliance:")) this.#reads.delete(key);
  }

  #look<T>(
    key: string,
    read: () => Promise<T>,
    asked = true,
    standInMaxAgeMs = STAND_IN_MAX_AGE_MS,
  ): HeadLook<T> {
    const head = this.#blocks.head;
    if (head < 0) {
      const value = read().then((v) => ({ value: v, block: undefined }));
      return { floor: undefined, read: value, head: value };
    }
    const now = Date.now();
    if (asked) this.#asked.set(key, { at: now, read });
    let entry = this.#reads.get(key);
    if (entry === undefined || entry.newest.head !== head || now - entry.newest.at >= MAX_AGE_MS) {
      const newest: Read = {
        head,
        at: now,
        value: read().then((v) => ({ value: v, block: head })),
      };
      entry = { newest, ...(entry?.answered === undefined ? {} : { answered: entry.answered }) };
      this.#reads.set(key, entry);
      const current = entry;
      newest.value.then(
        (answer) => {
          newest.settled = answer;
          if (current.answered === undefined || current.answered.head <= newest.head)
            current.answered = newest;
        },
        // A failed read is not kept: the next request asks again.
        () => {
          if (this.#reads.get(key) !== current) return;
          if (current.answered === undefined) this.#reads.delete(key);
          else this.#reads.set(key, { newest: current.answered, answered: current.answered });
        },
      );
    }
    const { newest, answered } = entry;
    const own = { floor: head, read: newest.value, head: newest.value } as HeadLook<T>;
    if (newest.settled !== undefined) return own;
    if (newest.raced === undefined) {
      const standIn =
        answered?.settled !== undefined && now - answered.at < standInMaxAgeMs
          ? answered.settled
          : undefined;
      if (standIn === undefined) return own;
      newest.raced = {
        floor: standIn.block,
        read: withStandIn(newest.value, standIn),
      };
    }
    return { ...newest.raced, head: newest.value } as HeadLook<T>;
  }
}
