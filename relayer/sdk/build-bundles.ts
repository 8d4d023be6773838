import { build } from "esbuild";
import { fileURLToPath } from "node:url";

/** The two SDK bundles, as served at `/sdk/rwa-sdk.js` and `/sdk/rwa-sdk.mjs`. */
export interface SdkBundles {
  /** IIFE: `<script src="/sdk/rwa-sdk.js">` defines the global `RwaSdk`. */
  iife: string;
  /** ES module: `import { RwaClient } from "/sdk/rwa-sdk.mjs"`. */
  esm: string;
}

/** The SDK's entry point (TypeScript source; esbuild strips the type-only server imports). */
export const SDK_ENTRY = fileURLToPath(new URL("./index.ts", import.meta.url));

const BANNER = "/* RWA SDK: API keys belong on servers; see /docs and docs/sdk.md. */";

/**
 * The global `RwaSdk` is the client class itself (`new RwaSdk({ apiKey, baseUrl })`) carrying
 * every export as a property (`RwaSdk.RwaClient`, `RwaSdk.ApiError`, `RwaSdk.verifyWebhook`).
 */
const IIFE_FOOTER = "RwaSdk = Object.assign(RwaSdk.RwaClient, RwaSdk);";

/**
 * Bundles `relayer/sdk/index.ts` with esbuild (ES2020, browsers and Node) in memory: an IIFE
 * exposing the global `RwaSdk` and an ES module. Takes some tens of milliseconds.
 *
 * @param minify default true
 */
export async function buildSdkBundles(minify = true): Promise<SdkBundles> {
  const common = {
    entryPoints: [SDK_ENTRY],
    bundle: true,
    write: false as const,
    minify,
    target: "es2020",
    platform: "neutral" as const,
    legalComments: "none" as const,
    banner: { js: BANNER },
    logLevel: "silent" as const,
  };
  const [iife, esm] = await Promise.all([
    build({ ...common, format: "iife", globalName: "RwaSdk", footer: { js: IIFE_FOOTER } }),
    build({ ...common, format: "esm" }),
  ]);
  const text = (result: { outputFiles?: Array<{ text: string }> }) => {
    const file = result.outputFiles?.[0];
    if (file === undefined) throw new Error("esbuild produced no output");
    return file.text;
  };
  return { iife: text(iife), esm: text(esm) };
}

let cached: Promise<SdkBundles> | undefined;

/**
 * The bundles, built on first use and kept in memory for the life of the process (the source
 * does not change under a running relayer). A failed build is retried on the next call.
 */
export function sdkBundles(): Promise<SdkBundles> {
  if (cached === undefined) {
    cached = buildSdkBundles().catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
  }
  return cached;
}
