/**
 * Gas figures learned from receipts (issue 25: no `eth_estimateGas` per request). A write's gas
 * depends on its kind and the shape of its call: the contract, the function, and the calldata's
 * length (a longer asset-type name is more words to hash and store). The book keeps, per shape,
 * the most gas any receipt of that shape used in this process, and gives a write of a known
 * shape a limit from it without asking the node.
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

export class GasBook {
  readonly #used = new Map<string, bigint>();
  readonly #marginPercent: number;

  constructor(marginPercent: number) {
    this.#marginPercent = marginPercent;
  }

  /** The limit for a call of a shape seen before; undefined: estimate it. */
  limitFor(call: CallShape): bigint | undefined {
    const used = this.#used.get(shapeKey(call));
    return used === undefined ? undefined : limitFromUsed(used, this.#marginPercent);
  }

  /** A successful receipt's gas: the shape's figure is the most any of its receipts used. */
  learn(call: CallShape, gasUsed: bigint): void {
    const key = shapeKey(call);
    const known = this.#used.get(key);
    if (known === undefined || gasUsed > known) this.#used.set(key, gasUsed);
  }

  /** A call of this shape ran out of gas: estimate the next ones until a receipt teaches again. */
  forget(call: CallShape): void {
    this.#used.delete(shapeKey(call));
  }
}
