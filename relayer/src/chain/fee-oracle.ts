import type { RpcClient } from "./rpc-client.js";

/** EIP-1559 fee caps for a new transaction, in wei. */
export interface FeeQuote {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * Fee caps shared by every transaction of a block interval: one `eth_feeHistory` round trip per
 * `ttlMs` (default 1 s, the dev chain's block time) instead of one per transaction.
 * maxFee = 2 × next base fee + tip, so a quote stays valid through several full blocks.
 */
export class FeeOracle {
  readonly #rpc: RpcClient;
  readonly #ttlMs: number;
  #cached: { at: number; quote: Promise<FeeQuote> } | undefined;

  constructor(rpc: RpcClient, options: { ttlMs?: number } = {}) {
    this.#rpc = rpc;
    this.#ttlMs = options.ttlMs ?? 1_000;
  }

  /** The current quote (cached for `ttlMs`). */
  quote(): Promise<FeeQuote> {
    const now = Date.now();
    if (this.#cached !== undefined && now - this.#cached.at < this.#ttlMs)
      return this.#cached.quote;
    const quote = this.#fetch();
    this.#cached = { at: now, quote };
    quote.catch(() => {
      if (this.#cached?.quote === quote) this.#cached = undefined;
    });
    return quote;
  }

  async #fetch(): Promise<FeeQuote> {
    const history = await this.#rpc.call<{ baseFeePerGas: string[]; reward?: string[][] }>(
      "eth_feeHistory",
      ["0x1", "latest", [50]],
    );
    const nextBase = BigInt(history.baseFeePerGas.at(-1) ?? "0x0");
    const rewarded = BigInt(history.reward?.[0]?.[0] ?? "0x0");
    const maxPriorityFeePerGas = rewarded > MIN_TIP ? rewarded : MIN_TIP;
    return { maxFeePerGas: nextBase * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas };
  }
}

/** Tip floor: 1 gwei (geth's default minimum for the pool). */
const MIN_TIP = 1_000_000_000n;

/**
 * The fees of a replacement: both caps raised by at least 12.5% (nodes refuse smaller bumps),
 * and never below the current quote.
 */
export function bumpFees(previous: FeeQuote, current: FeeQuote): FeeQuote {
  const bump = (value: bigint) => (value * 1125n + 999n) / 1000n + 1n;
  const priority = max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
  const fee = max(bump(previous.maxFeePerGas), current.maxFeePerGas, priority);
  return { maxFeePerGas: fee, maxPriorityFeePerGas: priority };
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}
