/**
 * Runs one async body at a time: a `kick` while it runs makes it run once more afterwards, so
 * bursts of wake-ups cost one extra run, never overlapping runs. A failed run is handed to
 * `onError` (which may wait before the next run) and the body runs again while `active()`.
 * Each wallet's sequencing and the block follower are such loops.
 */
export class SerialLoop {
  readonly #body: () => Promise<void>;
  readonly #onError: (error: unknown) => Promise<boolean>;
  readonly #active: () => boolean;
  #running: Promise<void> | undefined;
  #again = false;

  /**
   * @param body one run
   * @param onError handles a failed run; resolves whether to run again
   * @param active whether the loop may still run (false once stopped or forgotten)
   */
  constructor(
    body: () => Promise<void>,
    onError: (error: unknown) => Promise<boolean>,
    active: () => boolean,
  ) {
    this.#body = body;
    this.#onError = onError;
    this.#active = active;
  }

  /** The run in progress, if any (stop waits for it). */
  get running(): Promise<void> | undefined {
    return this.#running;
  }

  /** Runs the body now, or once more after the run in progress. */
  kick(): void {
    if (!this.#active()) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.#body();
        } catch (error) {
          if (await this.#onError(error)) this.#again = true;
        }
      } while (this.#again && this.#active());
    })().finally(() => {
      this.#running = undefined;
    });
  }
}
