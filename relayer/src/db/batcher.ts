/**
 * Gathers the calls made in one turn of the event loop into one call of `run`, sent on the next
 * turn (`setImmediate`), or `lingerMs` after the first call when that is set (calls that arrive a
 * few turns apart share it too): under load, the requests a turn handles share one statement,
 * one round trip and one commit instead of one each. A call is never older than the statement
 * that answers it, since the statement is sent after it.
 *
 * `run` answers each item in order (an `Error` in an item's place fails that item alone); when
 * `run` throws, every item of the batch fails with that error.
 *
 * @example
 * const rows = new Batcher(async (ids: string[]) => readMany(ids));
 * await Promise.all([rows.add("a"), rows.add("b")]); // one readMany(["a", "b"])
 */
export class Batcher<I, O> {
  readonly #run: (items: readonly I[]) => Promise<ReadonlyArray<O | Error>>;
  #pending: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];

  readonly #lingerMs: number;

  constructor(
    run: (items: readonly I[]) => Promise<ReadonlyArray<O | Error>>,
    options: { lingerMs?: number } = {},
  ) {
    this.#run = run;
    this.#lingerMs = options.lingerMs ?? 0;
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (this.#pending.length !== 1) return;
      if (this.#lingerMs > 0) setTimeout(() => void this.#flush(), this.#lingerMs);
      else setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    try {
      const results = await this.#run(batch.map((p) => p.item));
      batch.forEach((p, i) => {
        const result = results[i];
        if (result instanceof Error) p.reject(result);
        else if (i >= results.length) p.reject(new Error("batch answered fewer items than asked"));
        else p.resolve(result as O);
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}
