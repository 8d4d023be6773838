/**
 * Writes of this process that passed their org's checks and are not yet known to every check
 * that read the org's state (`TxStore.writerState`) before they were recorded. Without it, two
 * writes of one org checked at the same moment would both count only the writes already
 * recorded: together they could pass the queue bound, or spend more than the wallet holds.
 *
 * A check opens (`open`) before it reads the org's state and closes when it has decided. A
 * write that passes is held (`hold`) in the same synchronous step as the decision, until its
 * rows are recorded (`Held.recorded`) or it is given up (`Held.release`). A check counts every
 * write held in this process that is not recorded, or was recorded after the check opened (its
 * read may not have seen the rows): at worst a write is counted twice for a moment, never
 * missed. A recorded write is forgotten once no open check began before it was recorded.
 *
 * Exact within a process. Writes of one org checked at the same moment in two processes each
 * count only what was recorded when they read (docs/scaling.md).
 */
export class UnrecordedWrites {
  #seq = 0;
  readonly #orgs = new Map<string, OrgLedger>();

  /** Opens a check of the org's writes, before its state is read. */
  open(orgId: string): WriteCheck {
    const ledger = this.#ledger(orgId);
    const since = this.#seq;
    ledger.openSince.push(since);
    let closed = false;
    return {
      unrecorded: () => {
        let wei = 0n;
        let roots = 0;
        for (const write of ledger.writes) {
          if (write.recordedAt !== undefined && write.recordedAt <= since) continue;
          wei += write.wei;
          roots++;
        }
        return { wei, roots };
      },
      hold: (wei) => {
        const write: HeldWrite = { wei };
        ledger.writes.push(write);
        return {
          recorded: () => {
            write.recordedAt = ++this.#seq;
            this.#prune(orgId, ledger);
          },
          release: () => {
            const index = ledger.writes.indexOf(write);
            if (index >= 0) ledger.writes.splice(index, 1);
            this.#prune(orgId, ledger);
          },
        };
      },
      close: () => {
        if (closed) return;
        closed = true;
        ledger.openSince.splice(ledger.openSince.indexOf(since), 1);
        this.#prune(orgId, ledger);
      },
    };
  }

  #ledger(orgId: string): OrgLedger {
    let ledger = this.#orgs.get(orgId);
    if (ledger === undefined) {
      ledger = { writes: [], openSince: [] };
      this.#orgs.set(orgId, ledger);
    }
    return ledger;
  }

  #prune(orgId: string, ledger: OrgLedger): void {
    const oldest = ledger.openSince.length === 0 ? Infinity : Math.min(...ledger.openSince);
    ledger.writes = ledger.writes.filter(
      (write) => write.recordedAt === undefined || write.recordedAt > oldest,
    );
    if (ledger.writes.length === 0 && ledger.openSince.length === 0) this.#orgs.delete(orgId);
  }
}

/** One check of an org's writes (`UnrecordedWrites.open`). */
export interface WriteCheck {
  /** What the writes held in this process add to the org's state as the check read it. */
  unrecorded(): { wei: bigint; roots: number };
  /** Holds a write that passed the check (call in the same synchronous step as the decision). */
  hold(wei: bigint): Held;
  /** Ends the check (idempotent). */
  close(): void;
}

/** A write held until its rows are recorded. */
export interface Held {
  recorded(): void;
  release(): void;
}

interface HeldWrite {
  wei: bigint;
  recordedAt?: number;
}

interface OrgLedger {
  writes: HeldWrite[];
  /** The sequence number at which each open check began. */
  openSince: number[];
}
