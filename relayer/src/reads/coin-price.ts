import { z } from "zod";

/** `GET /api/v1/coin-price` body. `priceUsd` is a decimal string (never a float), null when unknown. */
export interface CoinPrice {
  symbol: string;
  priceUsd: string | null;
  source: string;
  updatedAt: string;
}

const decimal = z.string().regex(/^\d+(\.\d+)?$/, "must be a decimal number");

const envSchema = z.object({
  COIN_PRICE_USD: decimal.optional(),
  COIN_PRICE_URL: z.url().optional(),
  COIN_PRICE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
});

/** A source of the native coin's USD price. */
export interface CoinPriceService {
  current(): Promise<CoinPrice>;
}

/**
 * The coin price source, chosen once from the environment:
 * - `COIN_PRICE_URL`: a JSON document with `priceUsd` (or `usd` / `price`), fetched at most every
 *   `COIN_PRICE_TTL_SECONDS` (default 60); on failure the last good value is served (or the fixed
 *   value, or null);
 * - `COIN_PRICE_USD`: a fixed decimal (the private chain's coin has no market; dev default);
 * - neither: `priceUsd: null`, source `none`.
 */
export function createCoinPriceService(
  symbol: string,
  env: NodeJS.ProcessEnv = process.env,
): CoinPriceService {
  const parsed = envSchema.parse({
    COIN_PRICE_USD: env.COIN_PRICE_USD,
    COIN_PRICE_URL: env.COIN_PRICE_URL,
    COIN_PRICE_TTL_SECONDS: env.COIN_PRICE_TTL_SECONDS,
  });
  const startedAt = new Date().toISOString();
  const fixed: CoinPrice =
    parsed.COIN_PRICE_USD !== undefined
      ? {
          symbol,
          priceUsd: parsed.COIN_PRICE_USD,
          source: "config:COIN_PRICE_USD",
          updatedAt: startedAt,
        }
      : { symbol, priceUsd: null, source: "none", updatedAt: startedAt };
  const url = parsed.COIN_PRICE_URL;
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
      if (cached !== undefined && Date.now() - cached.at < parsed.COIN_PRICE_TTL_SECONDS * 1000)
        return cached.price;
      inflight ??= fetchPrice().finally(() => (inflight = undefined));
      return inflight;
    },
  };
}
