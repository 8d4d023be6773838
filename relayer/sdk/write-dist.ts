/**
 * Writes the SDK bundles to relayer/sdk/dist/ (rwa-sdk.js, rwa-sdk.mjs) for use outside a running
 * relayer. The relayer itself builds them in memory on the first `/sdk/*` request; dist/ is not
 * committed. Usage: `node --import tsx relayer/sdk/write-dist.ts`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildSdkBundles, SDK_ENTRY } from "./build-bundles.js";

const outDir = path.join(path.dirname(SDK_ENTRY), "dist");
const started = Date.now();
const bundles = await buildSdkBundles();
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, "rwa-sdk.js"), bundles.iife);
writeFileSync(path.join(outDir, "rwa-sdk.mjs"), bundles.esm);
console.log(
  `relayer/sdk/dist: rwa-sdk.js ${bundles.iife.length} B, rwa-sdk.mjs ${bundles.esm.length} B (${Date.now() - started} ms)`,
);
