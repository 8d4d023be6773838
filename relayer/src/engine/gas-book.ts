/**
 * Gas figures learned from receipts (issue 25: no `eth_estimateGas` per request). A write's gas
 * depends on its kind and the shape of its call: the contract, the function, and the calldata's
 * length (a longer asset-type name is more words to hash and store). The book keeps, per shape,
 * the most gas any receipt of that shape used in this process, and gives a write of a known
 * shape a limit from it without asking the node. Figures are shared between processes through
 * notifications (`GasChange`), so a process that only records writes (RELAYER_ROLE=api) knows
 * what the engine's receipts taught; a process started later learns a shape from its first
 * estimate.
 *
 * A shape not seen yet is estimated (never sent with a guess). What varies within a shape
 * (a first mint of a type, a transfer to an address that held nothing) is covered by the margin
 * and by `MIN_HEADROOM`, one storage slot written from zero. A write that still runs out of gas
 * is re-estimated and sent again by the engine (`engine/settler.ts`), and its shape is forgotten
 * so the next ones are estimated until a receipt teaches the book again.
 */

/** One storage slot written from zero (20,000) and its cold access (2,100). */
const MIN_HEADROOM = 22_100n;

/** The shape of a call: what its gas depends on, without its values. */
export interface CallShape {
  kind: string;
  to: string | null;
  data: string | null;
}

export function shapeKey(call: CallShape): string {
  const data = call.data ?? "0x";
  return `${call.kind}|${(call.to ?? "").toLowerCase()}|${data.slice(0, 10)}|${data.length}`;
}

/** The gas limit for a write that used `used` before: the margin, and at least one cold slot more. */
export function limitFromUsed(used: bigint, marginPercent: number): bigint {
  const withMargin = (used * BigInt(100 + marginPercent)) / 100n;
  return withMargin > used + MIN_HEADROOM ? withMargin : used + MIN_HEADROOM;
}

/**
 * A receipt that ran out of gas: it failed and used (nearly) all its limit. An inner call that runs
 * out leaves 1/64 of the gas to the caller, which then reverts: that counts too.
 */
export function ranOutOfGas(status: number, gasUsed: bigint, gasLimit: bigint | null): boolean {
  if (status !== 0 || gasLimit === null) return false;
  return gasUsed * 64n >= gasLimit * 63n;
}

/**
 * A shape's figure changed in one process: `used` is its new figure, undefined when it was
 * forgotten. Published to the other processes (`Engine`), which apply it with `apply`: an
 * API-only process learns from the engine's receipts, and forgets a shape that ran out of gas.
 */
export interface GasChange {
  key: string;
  used: bigint | undefined;
}

/**
 * A change as a notification payload, `<from> <used or -> <shape key>`: `from` names the
 * process that made it, which ignores its own (none of the three holds a space).
 */
export function encodeGasChange(from: string, change: GasChange): string {
  return `${from} ${change.used?.toString() ?? "-"} ${change.key}`;
}

/** The change a payload names, and who made it; undefined for a malformed one. */
export function decodeGasChange(payload: string): { from: string; change: GasChange } | undefined {
  const match = /^(\S+) (-|\d{1,30}) (\S+)$/.exec(payload);
  if (match === null) return undefined;
  return {
    from: match[1]!,
    change: { key: match[3]!, used: match[2] === "-" ? undefined : BigInt(match[2]!) },
  };
}

export class GasBook {
  readonly #used = new Map<string, bigint>();
  readonly #marginPercent: number;
  readonly #onChange: ((change: GasChange) => void) | undefined;

  /** `onChange` hears every change made here (not those `apply` brings from elsewhere). */
  constructor(marginPercent: number, onChange?: (change: GasChange) => void) {
    this.#marginPercent = marginPercent;
    this.#onChange = onChange;
  }

  /** The limit for a call of a shape seen before; undefined: estimate it. */
  limitFor(call: CallShape): bigint | undefined {
    const used = this.#used.get(shapeKey(call));
    return used === undefined ? undefined : limitFromUsed(used, this.#marginPercent);
  }

  /**
   * Gas a call of this shape needs: a successful receipt's gas, or the node's estimate for a shape
   * not known yet (an estimate covers what the call uses). The shape's figure is the most any of
   * them said.
   */
  learn(call: CallShape, gasUsed: bigint): void {
    const key = shapeKey(call);
    if (this.#raise(key, gasUsed)) this.#onChange?.({ key, used: gasUsed });
  }

  /** A call of this shape ran out of gas: estimate the next ones until a receipt teaches again. */
  forget(call: CallShape): void {
    const key = shapeKey(call);
    if (this.#used.delete(key)) this.#onChange?.({ key, used: undefined });
  }

  /** A change another process made. */
  apply(change: GasChange): void {
    if (change.used === undefined) this.#used.delete(change.key);
    else this.#raise(change.key, change.used);
  }

  #raise(key: string, used: bigint): boolean {
    const known = this.#used.get(key);
    if (known !== undefined && used <= known) return false;
    this.#used.set(key, used);
    return true;
  }
}
