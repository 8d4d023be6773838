/**
 * The text the relayer replaces, in the bundles it serves at `/sdk/rwa-sdk.js|.mjs`, with the
 * base URL they were served from (`PUBLIC_BASE_URL`, else the request's origin), so that in a
 * page loading the bundle `new RwaSdk("rwa_live_...")` needs no `baseUrl`. Replaced with its
 * quotes, as a JSON string.
 */
export const SERVED_BASE_URL_PLACEHOLDER = "__RWA_SDK_SERVED_BASE_URL__";

// Written out (not the constant above) so the literal survives bundling as a plain string.
const served: string = "__RWA_SDK_SERVED_BASE_URL__";

/** The base URL the bundle was served from, or undefined outside a served bundle. */
export function servedBaseUrl(): string | undefined {
  // A method call, not a comparison of two literals, so minifiers cannot fold it away.
  return served.startsWith("__RWA_SDK_") ? undefined : served;
}
