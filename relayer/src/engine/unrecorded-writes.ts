/**
 * Writes of this process whose rows are being recorded: each is checked and recorded in one
 * statement (`TxStore.record`), and two writes of one org whose statements run at the same moment
 * each see only the rows committed before theirs. Without this ledger, together they could pass
 * the queue bound, or spend more than the wallet holds.
 *
 * A write is held (`hold`) from the synchronous step in which its statement is sent until that
 * statement has answered. Every statement of the org sent meanwhile carries the writes held
 * (`held`), and counts those whose rows it does not see: each write is counted once, whether its
 * statement committed before the other's began or not. A held write that its statement then
 * refuses counts while the statement runs (a refusal for funds is decided again).
 *
 * Exact within a process. Writes of one org checked at the same moment in two processes each
 * count only what the other had committed (docs/scaling.md).
 */
export class UnrecordedWrites {
  readonly #orgs = new Map<string, Map<string, bigint>>();

  /** The org's writes held now (their root row's id, and the wei each reserves). */
  held(orgId: string): HeldWrite[] {
    return [...(this.#orgs.get(orgId) ?? [])].map(([id, wei]) => ({ id, wei }));
  }

  /** Holds a write (its root row's id) until the returned function is called. */
  hold(orgId: string, id: string, wei: bigint): () => void {
    let writes = this.#orgs.get(orgId);
    if (writes === undefined) {
      writes = new Map();
      this.#orgs.set(orgId, writes);
    }
    writes.set(id, wei);
    return () => {
      writes.delete(id);
      if (writes.size === 0 && this.#orgs.get(orgId) === writes) this.#orgs.delete(orgId);
    };
  }
}

/** A write held in `UnrecordedWrites`. */
export interface HeldWrite {
  id: string;
  wei: bigint;
}
