import { z } from "zod";

/** Where the native coin's USD price comes from (COIN_PRICE_USD, COIN_PRICE_URL, COIN_PRICE_TTL_SECONDS). */
export interface CoinPriceSettings {
  /** A fixed decimal price; also the fallback while COIN_PRICE_URL has not answered. */
  fixedUsd: string | undefined;
  /** An http(s) URL answering JSON with `priceUsd`, `usd` or `price`. */
  url: string | undefined;
  /** How long a fetched price is served before the URL is asked again. */
  ttlSeconds: number;
}

/** `GET /api/v1/coin-price` body. `priceUsd` is a decimal string (never a float), null when unknown. */
export interface CoinPrice {
  symbol: string;
  priceUsd: string | null;
  source: string;
  updatedAt: string;
}

const decimal = z.string().regex(/^\d+(\.\d+)?$/, "must be a decimal number");

/** A source of the native coin's USD price. */
export interface CoinPriceService {
  current(): Promise<CoinPrice>;
}

/**
 * The coin price source, chosen once from the configuration (`config.coinPrice`, validated by
 * `config.ts`):
 * - `url` (COIN_PRICE_URL): a JSON document with `priceUsd` (or `usd` / `price`), fetched at most
 *   every `ttlSeconds` (COIN_PRICE_TTL_SECONDS, default 60); on failure the last good value is
 *   served (or the fixed value, or null);
 * - `fixedUsd` (COIN_PRICE_USD): a fixed decimal (the private chain's coin has no market);
 * - neither: `priceUsd: null`, source `none`.
 *
 * @example
 * const coinPrice = createCoinPriceService("COIN", { fixedUsd: "2.50", url: undefined, ttlSeconds: 60 });
 */
export function createCoinPriceService(
  symbol: string,
  settings: CoinPriceSettings,
): CoinPriceService {
  const startedAt = new Date().toISOString();
  const fixed: CoinPrice =
    settings.fixedUsd !== undefined
      ? {
          symbol,
          priceUsd: settings.fixedUsd,
          source: "config:COIN_PRICE_USD",
          updatedAt: startedAt,
        }
      : { symbol, priceUsd: null, source: "none", updatedAt: startedAt };
  const url = settings.url;
  if (url === undefined) return { current: () => Promise.resolve(fixed) };

  let cached: { price: CoinPrice; at: number } | undefined;
  let inflight: Promise<CoinPrice> | undefined;
  const fetchPrice = async (): Promise<CoinPrice> => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      const body = (await response.json()) as Record<string, unknown>;
      const raw = body.priceUsd ?? body.usd ?? body.price;
      const text = typeof raw === "number" ? raw.toString() : raw;
      const value = decimal.parse(text);
      const price = { symbol, priceUsd: value, source: url, updatedAt: new Date().toISOString() };
      cached = { price, at: Date.now() };
      return price;
    } catch {
      return cached?.price ?? fixed;
    }
  };
  return {
    async current() {
      if (cached !== undefined && Date.now() - cached.at < settings.ttlSeconds * 1000)
        return cached.price;
      inflight ??= fetchPrice().finally(() => (inflight = undefined));
      return inflight;
    },
  };
}
