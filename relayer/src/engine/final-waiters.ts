/** One waiting request's signal: set by a notification, taken by `next`. */
export interface FinalSignal {
  /**
   * Resolves true once the row may have become final since the last call (a notification named
   * it, or the shared safety read found it final), false when `ms` pass first.
   */
  next(ms: number): Promise<boolean>;
  /** Stops listening (call once the wait ends). */
  close(): void;
}

interface Waiter {
  pending: boolean;
  wake: (() => void) | undefined;
}

/**
 * The requests waiting for their rows to become final (synchronous writes), by row id. A `final`
 * notification wakes the waiters of its row only (one map look-up, not a call per waiting
 * request); and one shared safety read every `safetyMs` covers a notification that was lost (the
 * LISTEN connection dropped): it asks which of all the waited rows are final in one call, instead
 * of one read per waiting request.
 *
 * @example
 * const signal = waiters.listen(txId); // before the first read: nothing is missed after it
 * try { while (!final(await read()) && (await signal.next(left))) {} } finally { signal.close(); }
 */
export class FinalWaiters {
  readonly #waiters = new Map<string, Set<Waiter>>();
  readonly #finalAmong: (ids: string[]) => Promise<ReadonlySet<string>>;
  readonly #safetyMs: number;
  #sweep: NodeJS.Timeout | undefined;

  /**
   * @param finalAmong which of `ids` are final (or gone) now: the safety read
   * @param safetyMs how often the safety read runs while anyone waits
   */
  constructor(finalAmong: (ids: string[]) => Promise<ReadonlySet<string>>, safetyMs = 5_000) {
    this.#finalAmong = finalAmong;
    this.#safetyMs = safetyMs;
  }

  /** A `final` notification for `id` (from this process or another). */
  notify(id: string): void {
    for (const waiter of this.#waiters.get(id) ?? []) {
      waiter.pending = true;
      waiter.wake?.();
    }
  }

  /** Waits for `id`'s notifications from now on. */
  listen(id: string): FinalSignal {
    const waiter: Waiter = { pending: false, wake: undefined };
    let set = this.#waiters.get(id);
    if (set === undefined) {
      set = new Set();
      this.#waiters.set(id, set);
    }
    set.add(waiter);
    this.#sweep ??= setInterval(() => void this.#safetyRead(), this.#safetyMs).unref();
    return {
      next: (ms) => {
        if (waiter.pending) {
          waiter.pending = false;
          return Promise.resolve(true);
        }
        if (ms <= 0) return Promise.resolve(false);
        return new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => done(false), ms);
          function done(woken: boolean) {
            clearTimeout(timer);
            waiter.wake = undefined;
            waiter.pending = false;
            resolve(woken);
          }
          waiter.wake = () => done(true);
        });
      },
      close: () => {
        set.delete(waiter);
        if (set.size === 0 && this.#waiters.get(id) === set) this.#waiters.delete(id);
        if (this.#waiters.size === 0 && this.#sweep !== undefined) {
          clearInterval(this.#sweep);
          this.#sweep = undefined;
        }
      },
    };
  }

  /** Rows being waited for now. */
  get size(): number {
    return this.#waiters.size;
  }

  async #safetyRead(): Promise<void> {
    const ids = [...this.#waiters.keys()];
    if (ids.length === 0) return;
    let final: ReadonlySet<string>;
    try {
      final = await this.#finalAmong(ids);
    } catch {
      return; // the database is away: the next read, or a notification, wakes them
    }
    for (const id of final) this.notify(id);
  }

  /** Stops the safety read (the waiters' own timeouts still end their waits). */
  stop(): void {
    if (this.#sweep !== undefined) clearInterval(this.#sweep);
    this.#sweep = undefined;
  }
}
