import {
  chooseFeeModel,
  keptQuote,
  quoteFor,
  type FeeMarket,
  type FeeModel,
  type FeeQuote,
} from "./fee-policy.js";
import { readFeeSignals } from "../chain/rpc/node-dialect.js";
import type { RpcClient } from "../chain/rpc/rpc-client.js";
import { STAND_IN_MAX_AGE_MS, withStandIn } from "../chain/stand-in.js";

export { bumpFees, describeFeeModel, type FeeModel, type FeeQuote } from "./fee-policy.js";

/** The fee model the oracle uses, and when it was detected (`GET /api/v1/status`). */
export interface DetectedFeeModel extends FeeModel {
  detectedAt: Date;
}

/**
 * Fee quotes in the node's dialect (fee-policy.ts): type-2 caps where blocks carry a base fee,
 * a legacy `gasPrice` where they do not, zero on a free-gas network. The model is detected on
 * the first quote (or `detect()` at start), again after any failure to read a quote, after
 * `redetectMs`, and when the engine asks (`redetect()`, e.g. on `isTxTypeUnsupported`). A quote
 * is shared by every transaction of a block interval: one read per `ttlMs` (default 1 s, the
 * dev chain's block time) instead of one per transaction; and the price it gives stays the same
 * over a run of blocks while it still holds (`keptQuote`).
 *
 * @example
 * const fees = new FeeOracle(rpc);
 * const quote = await fees.quote(); // { type: 2, maxFeePerGas, maxPriorityFeePerGas }
 */
/** How long after the last quote asked for `warm` keeps reading one per block. */
const WARM_MS = 600_000;

export class FeeOracle {
  readonly #rpc: RpcClient;
  readonly #ttlMs: number;
  readonly #redetectMs: number;
  #cached:
    | {
        at: number;
        quote: Promise<FeeQuote>;
        /** Raced against the last quote (`quoteForCheck`), shared by its callers. */
        raced?: Promise<FeeQuote>;
      }
    | undefined;
  /** The quote given out last (`keptQuote`: one price for a run of blocks). */
  #kept: Required<FeeQuote> | undefined;
  /** The last quote read, and when it was asked for. */
  #answered: { at: number; quote: FeeQuote } | undefined;
  #model: Promise<DetectedFeeModel> | undefined;
  #known: DetectedFeeModel | undefined;

  constructor(rpc: RpcClient, options: { ttlMs?: number; redetectMs?: number } = {}) {
    this.#rpc = rpc;
    this.#ttlMs = options.ttlMs ?? 1_000;
    this.#redetectMs = options.redetectMs ?? 600_000;
  }

  /** The model last detected, if any (never waits, never asks the node). */
  get model(): DetectedFeeModel | undefined {
    return this.#known;
  }

  /** The fee model (detected once; again after a failure or `redetectMs`). */
  detect(): Promise<DetectedFeeModel> {
    const known = this.#known;
    if (known !== undefined && Date.now() - known.detectedAt.getTime() >= this.#redetectMs)
      this.#model = undefined;
    this.#model ??= this.#detect();
    return this.#model;
  }

  /** Forgets the model and the cached quote: the next quote detects the model again. */
  redetect(): void {
    this.#model = undefined;
    this.#cached = undefined;
    this.#answered = undefined;
    this.#kept = undefined;
  }

  /**
   * Reads the quote again for a new block when one was asked for within `WARM_MS` (the engine
   * calls it on every block): the first write after a quiet spell then finds a fresh quote
   * instead of waiting for the node, which is busiest just then (issue 45). One read per block.
   */
  warm(): void {
    if (Date.now() - this.#askedAt > WARM_MS) return;
    this.#refresh(Date.now()).catch(() => {
      // A failed read is dropped; the next write asks again.
    });
  }

  #askedAt = Number.NEGATIVE_INFINITY;

  /** The current quote (cached for `ttlMs`). */
  quote(): Promise<FeeQuote> {
    const now = Date.now();
    this.#askedAt = now;
    if (this.#cached !== undefined && now - this.#cached.at < this.#ttlMs)
      return this.#cached.quote;
    return this.#refresh(now);
  }

  #refresh(now: number): Promise<FeeQuote> {
    const quote = this.#fetch();
    this.#cached = { at: now, quote };
    quote.then(
      (answer) => {
        if (this.#cached?.quote === quote) this.#answered = { at: now, quote: answer };
      },
      () => {
        if (this.#cached?.quote === quote) this.#cached = undefined;
      },
    );
    return quote;
  }

  /**
   * The quote a new write is checked and capped against: the current one, or, while the next
   * one is being read (the node answers slowly while it mines), the last one (`stand-in.ts`). A
   * write reserves twice its quote (`reservedFeeCap`) and the engine prices each send with
   * `quote()`, so a quote one block old only moves that reservation by one block's change of
   * the base fee (at most 12.5%).
   */
  quoteForCheck(): Promise<FeeQuote> {
    const quote = this.quote();
    const cached = this.#cached;
    const last = this.#answered;
    if (cached === undefined || last === undefined || last.at === cached.at) return quote;
    if (Date.now() - last.at >= STAND_IN_MAX_AGE_MS) return quote;
    cached.raced ??= withStandIn(quote, last.quote);
    return cached.raced;
  }

  #detect(): Promise<DetectedFeeModel> {
    const attempt = (async () => {
      const model = { ...chooseFeeModel(await readFeeSignals(this.#rpc)), detectedAt: new Date() };
      this.#known = model;
      return model;
    })();
    attempt.catch(() => {
      if (this.#model === attempt) this.#model = undefined;
    });
    return attempt;
  }

  /**
   * The base fee of the next block as last read with a quote (0 on a chain without one), or
   * undefined before the first quote: what a sent transaction's fee cap must reach to be mined
   * (`pricedOut` in `decisions.ts`).
   */
  get baseFee(): bigint | undefined {
    return this.#baseFee;
  }

  #baseFee: bigint | undefined;

  async #fetch(): Promise<FeeQuote> {
    const model = await this.detect();
    try {
      const market = await this.#market(model);
      this.#baseFee = market.baseFeePerGas;
      this.#kept = keptQuote(this.#kept, quoteFor(model, market), market.baseFeePerGas);
      return this.#kept;
    } catch (error) {
      // The node no longer answers as the model expects (a method gone, an upgrade): look again.
      this.#model = undefined;
      throw error;
    }
  }

  async #market(model: FeeModel): Promise<FeeMarket> {
    switch (model.source) {
      case "free":
        return { baseFeePerGas: 0n };
      case "eth_feeHistory": {
        const history = await this.#rpc.call<{ baseFeePerGas: string[]; reward?: string[][] }>(
          "eth_feeHistory",
          ["0x1", "latest", [50]],
        );
        return {
          baseFeePerGas: BigInt(history.baseFeePerGas.at(-1) ?? "0x0"),
          tip: BigInt(history.reward?.[0]?.[0] ?? "0x0"),
        };
      }
      case "eth_maxPriorityFeePerGas":
      case "eth_gasPrice": {
        if (model.type === 0)
          return {
            baseFeePerGas: 0n,
            gasPrice: BigInt(await this.#rpc.call<string>("eth_gasPrice")),
          };
        const [block, price] = await this.#rpc.batch([
          { method: "eth_getBlockByNumber", params: ["latest", false] },
          { method: model.source, params: [] },
        ]);
        if (block instanceof Error) throw block;
        if (price instanceof Error) throw price;
        const base = (block as { baseFeePerGas?: string } | null)?.baseFeePerGas;
        if (base === undefined) throw new Error("the latest block has no base fee any more");
        const value = BigInt(price as string);
        return model.source === "eth_gasPrice"
          ? { baseFeePerGas: BigInt(base), gasPrice: value }
          : { baseFeePerGas: BigInt(base), tip: value };
      }
    }
  }
}
