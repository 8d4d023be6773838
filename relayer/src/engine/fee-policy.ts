import type { FeeSignals } from "../chain/rpc/node-dialect.js";
import type { TxAttempt } from "./tx-lifecycle.js";
import type { TxRow } from "./tx-rows.js";
import type { SignedTx, UnsignedTx } from "../wallets/signer-backend.js";

/**
 * What a transaction may pay, in one place (docs/transactions.md "Fees"): the fee model and the
 * quote for the node's dialect, re-pricing, the cap a write reserves at acceptance, a row's cap
 * (with the operator's `MAX_FEE_PER_GAS_GWEI`), and the transaction fields for either model.
 * Pure functions; `fee-oracle.ts` asks the node, the engine and the write executor ask here.
 */

/**
 * Fee caps for a new transaction, in wei, in one representation for both fee models:
 *
 * - `type: 2` (EIP-1559, chains whose blocks carry a base fee): `maxFeePerGas` and
 *   `maxPriorityFeePerGas` as the transaction's own fields.
 * - `type: 0` (legacy, chains before London): the transaction's `gasPrice` is `maxFeePerGas`,
 *   and `maxPriorityFeePerGas` equals it. A legacy price is both the most the sender pays and
 *   what the block producer gets, so with both caps equal the engine's re-pricing (`bumpFees`,
 *   +12.5% on both) and its fee caps (lowering `maxFeePerGas`, the tip never above it) work
 *   unchanged, and they stay equal. The signer sends `gasPrice = maxFeePerGas` when `type` is 0.
 *
 * `type` is optional only so that quotes rebuilt from attempts recorded before it existed still
 * type-check; absent means 2. The oracle always sets it.
 */
export interface FeeQuote {
  type?: 0 | 2;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * How the relayer prices transactions on a node (detected by `FeeOracle`, shown in
 * `GET /api/v1/status`).
 *
 * - `eth_feeHistory`: type 2; next base fee and the 50th-percentile tip of the last block.
 * - `eth_maxPriorityFeePerGas`: type 2 on a node without fee history; the latest block's base
 *   fee and the node's suggested tip.
 * - `eth_gasPrice`: type 0 on a chain without a base fee (`gasPrice` as the node suggests), or
 *   type 2 on a London node with neither method above (tip = gas price − base fee).
 * - `free`: a free-gas network (base fee 0 or none, and `eth_gasPrice` 0): every price is 0.
 */
export interface FeeModel {
  type: 0 | 2;
  source: "eth_feeHistory" | "eth_maxPriorityFeePerGas" | "eth_gasPrice" | "free";
}

/** What `FeeOracle` reads for a quote (the fields its model's source gives). */
export interface FeeMarket {
  /** The next block's base fee (fee history) or the latest block's; 0 before London. */
  baseFeePerGas: bigint;
  /** The suggested tip (fee history's 50th percentile, or `eth_maxPriorityFeePerGas`). */
  tip?: bigint;
  /** `eth_gasPrice`. */
  gasPrice?: bigint;
}

/** Tip floor on EIP-1559 chains that charge for gas: 1 gwei (geth's default minimum for the pool). */
export const MIN_TIP = 1_000_000_000n;

/**
 * The fee model for a node's signals: type 2 where blocks carry a base fee, else legacy type 0;
 * the price from `eth_feeHistory` where it exists, else `eth_maxPriorityFeePerGas`, else
 * `eth_gasPrice`; free when there is no price at all. A method the probe could not read
 * ("unknown") is not relied on.
 *
 * @throws Error on a chain without a base fee whose `eth_gasPrice` did not answer (nothing to
 *   price a legacy transaction with)
 * @example
 * chooseFeeModel({ baseFeePerGas: null, gasPrice: 10n ** 9n, feeHistory: "no", maxPriorityFeePerGas: "no" })
 * // { type: 0, source: "eth_gasPrice" }
 */
export function chooseFeeModel(signals: FeeSignals): FeeModel {
  const type = signals.baseFeePerGas === null ? 0 : 2;
  if ((signals.baseFeePerGas ?? 0n) === 0n && signals.gasPrice === 0n)
    return { type, source: "free" };
  if (type === 0) {
    if (signals.gasPrice === undefined)
      throw new Error("blocks carry no base fee and eth_gasPrice did not answer: no legacy price");
    return { type, source: "eth_gasPrice" };
  }
  if (signals.feeHistory === "yes") return { type, source: "eth_feeHistory" };
  if (signals.maxPriorityFeePerGas === "yes") return { type, source: "eth_maxPriorityFeePerGas" };
  return { type, source: "eth_gasPrice" };
}

/**
 * A quote from what the model's source said:
 * - type 2: tip = the suggested tip (or gas price − base fee), at least `MIN_TIP`;
 *   maxFee = 2 × base fee + tip, so a quote stays valid through several full blocks;
 * - type 0: gasPrice = `eth_gasPrice`, as both caps;
 * - free: zero.
 *
 * @example
 * quoteFor({ type: 0, source: "eth_gasPrice" }, { baseFeePerGas: 0n, gasPrice: 7n })
 * // { type: 0, maxFeePerGas: 7n, maxPriorityFeePerGas: 7n }
 */
export function quoteFor(model: FeeModel, market: FeeMarket): Required<FeeQuote> {
  if (model.source === "free")
    return { type: model.type, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n };
  if (model.type === 0) {
    const gasPrice = market.gasPrice ?? 0n;
    return { type: 0, maxFeePerGas: gasPrice, maxPriorityFeePerGas: gasPrice };
  }
  const base = market.baseFeePerGas;
  const suggested =
    market.tip ??
    (market.gasPrice !== undefined && market.gasPrice > base ? market.gasPrice - base : 0n);
  const tip = suggested > MIN_TIP ? suggested : MIN_TIP;
  return { type: 2, maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
}

/**
 * The quote new transactions are priced at: the one given out last (`kept`) for as long as it
 * still holds, else the market's (`fresh`). It holds while, after two more full blocks (the base
 * fee up by 12.5% each, from `baseFee`, the next block's), it would still pay 90% of its tip;
 * while the market's tip is within half and twice its own; and while it is at most twice the
 * market's fee cap (the base fee fell). Legacy and free quotes are the market's.
 *
 * Why (issue 45): a quote read each block rises with every full block under a backlog, so each
 * write was priced a little above the writes waiting before it. A pool that orders by fee cap
 * (anvil's) then mined the newest first and left the oldest for the 15 s re-pricing: the sync
 * writes' p99 was 21 s. With one price for a run of blocks the pool takes them in the order they
 * came (geth's orders by tip, equal too). A quote that moves leaves the writes sent at the old
 * one behind the new ones: the engine re-prices those at once (`outbid` in `decisions.ts`).
 *
 * @example
 * const kept = { type: 2, maxFeePerGas: 1_000_600n, maxPriorityFeePerGas: 1_000_000n } as const;
 * keptQuote(kept, { ...kept, maxFeePerGas: 1_003_000n }, 1_500n) // kept: 600 wei still covers the base fee
 */
export function keptQuote(
  kept: Required<FeeQuote> | undefined,
  fresh: Required<FeeQuote>,
  baseFee: bigint,
): Required<FeeQuote> {
  if (kept === undefined || kept.type !== 2 || fresh.type !== 2) return fresh;
  const tip = kept.maxPriorityFeePerGas;
  const marketTip = fresh.maxPriorityFeePerGas;
  if (marketTip > tip * 2n || marketTip * 2n < tip) return fresh;
  const inTwoFullBlocks = (baseFee * 81n + 63n) / 64n;
  if (kept.maxFeePerGas - inTwoFullBlocks < (tip * 9n) / 10n) return fresh;
  if (kept.maxFeePerGas > fresh.maxFeePerGas * 2n) return fresh;
  return kept;
}

/**
 * The fees of a replacement: both caps raised by at least 12.5% (nodes refuse smaller bumps),
 * and never below the current quote. In the legacy representation (both caps equal) the two
 * stay equal. The replacement takes the current quote's type (a chain upgraded to London gets
 * a type-2 replacement; geth and Besu compare a legacy price as both caps).
 *
 * @example
 * bumpFees({ type: 0, maxFeePerGas: 1000n, maxPriorityFeePerGas: 1000n }, { type: 0, maxFeePerGas: 900n, maxPriorityFeePerGas: 900n })
 * // { type: 0, maxFeePerGas: 1126n, maxPriorityFeePerGas: 1126n }
 */
export function bumpFees(previous: FeeQuote, current: FeeQuote): FeeQuote {
  const bump = (value: bigint) => (value * 1125n + 999n) / 1000n + 1n;
  const priority = max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
  const fee = max(bump(previous.maxFeePerGas), current.maxFeePerGas, priority);
  return {
    type: current.type ?? previous.type ?? 2,
    maxFeePerGas: fee,
    maxPriorityFeePerGas: priority,
  };
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}

/**
 * One line for a human: "EIP-1559 (type 2), price from eth_feeHistory".
 *
 * @example
 * describeFeeModel({ type: 0, source: "free" }) // "legacy (type 0), free gas (all prices 0)"
 */
export function describeFeeModel(model: FeeModel): string {
  const kind = model.type === 2 ? "EIP-1559 (type 2)" : "legacy gasPrice (type 0)";
  const price = model.source === "free" ? "free gas (all prices 0)" : `price from ${model.source}`;
  return `${kind}, ${price}`;
}

/**
 * The fee cap a write reserves when it is accepted: twice the current quote (so about six
 * 12.5% re-pricings fit), lowered to the operator ceiling when there is one. The funds check
 * reserves `gas limit × this` per write.
 */
export function reservedFeeCap(quote: FeeQuote, ceiling: bigint | undefined): bigint {
  const headroom = quote.maxFeePerGas * 2n;
  return ceiling !== undefined && ceiling < headroom ? ceiling : headroom;
}

/** The highest maxFeePerGas (or gas price) any attempt of `row` may pay. */
export function feeCapOf(row: Pick<TxRow, "feeCap">, ceiling: bigint | undefined): bigint {
  const reserved = row.feeCap === null ? undefined : BigInt(row.feeCap);
  const caps = [reserved, ceiling].filter((c): c is bigint => c !== undefined);
  return caps.length === 0 ? 2n ** 255n : caps.reduce((a, b) => (a < b ? a : b));
}

/** A quote lowered to `cap` (the tip never above the fee). */
export function capFees(quote: FeeQuote, cap: bigint): FeeQuote {
  const maxFeePerGas = quote.maxFeePerGas < cap ? quote.maxFeePerGas : cap;
  const maxPriorityFeePerGas =
    quote.maxPriorityFeePerGas < maxFeePerGas ? quote.maxPriorityFeePerGas : maxFeePerGas;
  return { type: quote.type ?? 2, maxFeePerGas, maxPriorityFeePerGas };
}

/**
 * The fees of a re-pricing of `previous`: bumped by at least 12.5% and to the current quote,
 * lowered to `cap` when the quote is above it, or `at-cap` when even the 12.5% bump is. When the fee
 * model changed (the node refused the old transaction type) it is the new quote, capped.
 */
export function nextFees(
  previous: FeeQuote,
  quote: FeeQuote,
  cap: bigint,
): { kind: "bump"; fees: FeeQuote } | { kind: "at-cap" } {
  if ((previous.type ?? 2) !== (quote.type ?? 2))
    return { kind: "bump", fees: capFees(quote, cap) };
  const bumped = bumpFees(previous, quote);
  if (bumped.maxFeePerGas <= cap)
    return { kind: "bump", fees: { ...bumped, type: previous.type ?? 2 } };
  // The market asks for more than the cap: up to the cap itself, while that is still a
  // replacement the node takes (12.5% over the last attempt). Stopping one bump short of the
  // cap left a write priced out by a rising base fee it could have paid (issue 45).
  const minimal = bumpFees(previous, { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
  if (minimal.maxFeePerGas > cap) return { kind: "at-cap" };
  return { kind: "bump", fees: { ...capFees(bumped, cap), type: previous.type ?? 2 } };
}

/** The fees an attempt was signed with. */
export function feesOf(attempt: TxAttempt): FeeQuote {
  return {
    type: attempt.type ?? 2,
    maxFeePerGas: BigInt(attempt.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(attempt.maxPriorityFeePerGas),
  };
}

/** The record of one signed attempt (its bytes kept, to send the very same again). */
export function attemptOf(signed: SignedTx, fees: FeeQuote, nonce: number): TxAttempt {
  return {
    hash: signed.hash,
    nonce,
    type: fees.type ?? 2,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
    sentAt: new Date().toISOString(),
    raw: signed.raw,
  };
}

/** Gas of a plain transfer: what a cancelling self-transfer uses. */
export const SELF_TRANSFER_GAS = 21_000n;

/**
 * The zero-value self-transfer that cancels `row` once it was sent: its nonce, no call, 21,000
 * gas (docs/transactions.md "Cancelling a sent write").
 */
export function cancelTx(
  row: Pick<TxRow, "fromAddress">,
  nonce: number,
  fees: FeeQuote,
  chainId: number,
): UnsignedTx {
  return unsignedTx(
    {
      toAddress: row.fromAddress,
      fromAddress: row.fromAddress,
      data: "0x",
      value: "0",
      gasLimit: SELF_TRANSFER_GAS.toString(),
    },
    nonce,
    fees,
    chainId,
  );
}

/**
 * The fees of a cancelling self-transfer: at least the pool's replacement bump over `last` (the
 * newest attempt that may be mined) and never below the current quote (the next block's base
 * fee twice, plus the tip), so it is mined in the next block; within `ceiling`
 * (`MAX_FEE_PER_GAS_GWEI`) when set. Undefined when the ceiling leaves no room for the bump, or
 * on a chain without fees (a higher fee cannot replace anything there).
 */
export function cancelFees(
  last: FeeQuote,
  quote: FeeQuote,
  ceiling: bigint | undefined,
): FeeQuote | undefined {
  if (last.maxFeePerGas === 0n && quote.maxFeePerGas === 0n) return undefined;
  const bumped = bumpFees(last, quote);
  if (ceiling === undefined || bumped.maxFeePerGas <= ceiling) return bumped;
  // The bump alone (the quote aside) must fit under the ceiling; the quote is then cut to it.
  const floor = bumpFees(last, { ...last, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
  if (floor.maxFeePerGas > ceiling) return undefined;
  return capFees(bumped, ceiling);
}

/** The transaction to sign for `row` at `nonce` with `fees`. */
export function unsignedTx(
  row: Pick<TxRow, "toAddress" | "fromAddress" | "data" | "value" | "gasLimit">,
  nonce: number,
  fees: FeeQuote,
  chainId: number,
): UnsignedTx {
  return {
    chainId,
    nonce,
    to: row.toAddress ?? row.fromAddress,
    data: row.data ?? "0x",
    value: BigInt(row.value),
    gasLimit: BigInt(row.gasLimit ?? "21000"),
    type: fees.type ?? 2,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  };
}
